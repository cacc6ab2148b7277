package report

import (
	"archive/tar"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestNotesWhenVerifyStopsEarly: a bundle whose archive is refused, and
// one whose manifest cannot be decoded, each get a page that says which,
// and show nothing from inside the bundle.
func TestNotesWhenVerifyStopsEarly(t *testing.T) {
	_, pol := loadVectors(t)
	unsafe, err := os.ReadFile(filepath.Join(vectorsDir, "path_traversal.dshaudit.tar.zst"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, note string
		raw        []byte
	}{
		{"path_traversal", "the archive could not be read safely: nothing from inside it is shown", unsafe},
		{"undecodable manifest", "the manifest could not be decoded: nothing from inside the bundle is shown", archiveWithManifest(t, []byte("{}\n"))},
	} {
		p, err := Build(context.Background(), Input{Name: c.name, Raw: c.raw, Verify: verifyOptions(pol)})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if p.Verified || !slices.Equal(p.Notes, []string{c.note}) || p.Facts != nil || len(p.Repetitions) != 0 || len(p.OtherEvidence) != 0 {
			t.Errorf("%s: verified %v, notes %q, facts %v, %d repetitions, %d other files", c.name, p.Verified, p.Notes, p.Facts, len(p.Repetitions), len(p.OtherEvidence))
		}
	}
}

// archiveWithManifest is a safe archive holding only manifest.json.
func archiveWithManifest(t *testing.T, manifest []byte) []byte {
	t.Helper()
	var tarBuf bytes.Buffer
	tw := tar.NewWriter(&tarBuf)
	if err := tw.WriteHeader(&tar.Header{Name: "manifest.json", Mode: 0o644, Size: int64(len(manifest)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
		t.Fatal(err)
	}
	tw.Write(manifest)
	tw.Close()
	var out bytes.Buffer
	zw, err := zstd.NewWriter(&out)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(tarBuf.Bytes())
	zw.Close()
	return out.Bytes()
}
