package bundle

import (
	"archive/tar"
	"bytes"
	"io"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/dshaudit/dshaudit/internal/testutil/manifesttest"
	"github.com/dshaudit/dshaudit/manifest"
)

// sampleFiles is the shared sample evidence (manifesttest.SampleFiles).
func sampleFiles(t testing.TB) map[string][]byte {
	t.Helper()
	return manifesttest.SampleFiles(t, filepath.Join("testdata", "dsh-sample"))
}

// sampleManifest is the shared sample manifest listing files.
func sampleManifest(files map[string][]byte) *manifest.Manifest {
	m := manifesttest.SampleManifest()
	m.Files = FileList(files)
	return m
}

// sampleContents returns a complete, valid bundle's contents.
func sampleContents(t testing.TB) Contents {
	t.Helper()
	files := sampleFiles(t)
	raw, err := manifest.Encode(sampleManifest(files))
	if err != nil {
		t.Fatalf("manifest.Encode: %v", err)
	}
	return Contents{Manifest: raw, Signature: []byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}` + "\n"), Files: files}
}

func mustWrite(t testing.TB, c Contents) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, c); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes()
}

// rawEntry is one hand-made tar entry for crafting hostile archives.
type rawEntry struct {
	hdr  tar.Header
	data []byte
}

func reg(name string, data []byte) rawEntry {
	return rawEntry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name, Size: int64(len(data)), Mode: 0o644}, data: data}
}

// rawTar writes entries with archive/tar exactly as given.
func rawTar(t testing.TB, entries ...rawEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := e.hdr
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatalf("WriteHeader %q: %v", h.Name, err)
		}
		if _, err := tw.Write(e.data); err != nil {
			t.Fatalf("Write %q: %v", h.Name, err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// compress wraps a tar stream the way the writer does.
func compress(t testing.TB, tarBytes []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc, err := newEncoder(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := enc.Write(tarBytes); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// validManifestEntry returns a manifest entry listing no files, for
// archives whose evidence does not matter.
func validManifestEntry(t testing.TB) rawEntry {
	t.Helper()
	raw, err := manifest.Encode(newManifest())
	if err != nil {
		t.Fatal(err)
	}
	return reg(manifest.Path, raw)
}

func zstdNewWriterWindow(w io.Writer, window int) (*zstd.Encoder, error) {
	return zstd.NewWriter(w, zstd.WithWindowSize(window), zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true))
}

// newManifest is an empty manifest as manifest.Decode returns one.
func newManifest() *manifest.Manifest { return manifesttest.Empty() }
