package bundle

import (
	"archive/tar"
	"bytes"
	"errors"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/manifest"
)

func TestReadRoundTrip(t *testing.T) {
	c := sampleContents(t)
	a, err := Read(bytes.NewReader(mustWrite(t, c)), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.RawManifest, c.Manifest) || !bytes.Equal(a.RawSignature, c.Signature) {
		t.Error("manifest or signature bytes changed")
	}
	if !reflect.DeepEqual(a.Files, c.Files) {
		t.Error("files changed")
	}
	if want := slices.Sorted(maps.Keys(c.Files)); !reflect.DeepEqual(a.Order, want) {
		t.Errorf("order %q, want %q", a.Order, want)
	}
	m, err := manifest.Decode(a.RawManifest)
	if err != nil {
		t.Fatal(err)
	}
	if f := CompareFiles(m, a); len(f) != 0 {
		t.Errorf("findings on an untouched bundle: %v", f)
	}
}

func TestCompareFilesReportsAll(t *testing.T) {
	c := sampleContents(t)
	a, err := Read(bytes.NewReader(mustWrite(t, c)), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	m, _ := manifest.Decode(a.RawManifest)
	delete(a.Files, "r1/t2/stdout")
	a.Files["r1/t3/stdout"] = []byte("tampered")
	a.Files["r1/t4/stderr"] = append(a.Files["r1/t4/stderr"], '!')
	a.Files["zz-extra"] = []byte("x")
	got := CompareFiles(m, a)
	want := []struct{ class, path string }{
		{FindingMissing, "r1/t2/stdout"},
		{FindingChanged, "r1/t3/stdout"},
		{FindingChanged, "r1/t4/stderr"},
		{FindingExtra, "zz-extra"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d findings, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Class != w.class || got[i].Path != w.path || got[i].Detail == "" {
			t.Errorf("finding %d = %+v, want %s %q", i, got[i], w.class, w.path)
		}
	}
}

// TestReadRefuses crafts one hostile archive per refusal class.
func TestReadRefuses(t *testing.T) {
	man := validManifestEntry(t)
	sig := reg(manifest.SignaturePath, []byte("{}"))
	few := DefaultLimits()
	few.MaxEntries = 3
	withType := func(name string, typ byte, link string) rawEntry {
		return rawEntry{hdr: tar.Header{Typeflag: typ, Name: name, Linkname: link, Mode: 0o644}}
	}
	pax := reg("a", []byte("x"))
	pax.hdr.PAXRecords = map[string]string{"SCHILY.xattr.user.x": "y"}
	paxMtime := reg("a", []byte("x"))
	paxMtime.hdr.ModTime = time.Unix(1, 5e8)
	paxMtime.hdr.Format = tar.FormatPAX
	gnu := reg("a", []byte("x"))
	gnu.hdr.Format = tar.FormatGNU
	linkname := reg("a", []byte("x"))
	linkname.hdr.Linkname = "b"

	manifestTar := rawTar(t, man, sig, reg("a", []byte("x")))
	// A tar stream big enough that the encoder writes several blocks and
	// declares its window instead of a single-segment frame.
	bigTar := rawTar(t, man, reg("a", pseudoRandom(600<<10)))
	cases := []struct {
		name    string
		archive []byte
		lim     Limits
		want    error
		quoted  string // the entry name the error must quote
	}{
		{"symlink", compress(t, rawTar(t, man, withType("a", tar.TypeSymlink, "/etc/passwd"))), DefaultLimits(), ErrLink, `"a"`},
		{"hardlink", compress(t, rawTar(t, man, withType("a", tar.TypeLink, manifest.Path))), DefaultLimits(), ErrLink, `"a"`},
		{"char device", compress(t, rawTar(t, man, withType("a", tar.TypeChar, ""))), DefaultLimits(), ErrDevice, `"a"`},
		{"block device", compress(t, rawTar(t, man, withType("a", tar.TypeBlock, ""))), DefaultLimits(), ErrDevice, `"a"`},
		{"fifo", compress(t, rawTar(t, man, withType("a", tar.TypeFifo, ""))), DefaultLimits(), ErrNotRegular, `"a"`},
		{"directory", compress(t, rawTar(t, man, withType("a", tar.TypeDir, ""))), DefaultLimits(), ErrNotRegular, `"a"`},
		{"global pax header", compress(t, rawTar(t, man, rawEntry{hdr: tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "g", PAXRecords: map[string]string{"comment": "x"}}})), DefaultLimits(), ErrNotRegular, `"g"`},
		{"dotdot", compress(t, rawTar(t, man, reg("../x", []byte("x")))), DefaultLimits(), manifest.ErrPathEscape, `"../x"`},
		{"nested dotdot", compress(t, rawTar(t, man, reg("a/../../x", []byte("x")))), DefaultLimits(), manifest.ErrPathEscape, `"a/../../x"`},
		{"absolute", compress(t, rawTar(t, man, reg("/abs", []byte("x")))), DefaultLimits(), manifest.ErrPathEscape, `"/abs"`},
		{"dot", compress(t, rawTar(t, man, reg("./a", []byte("x")))), DefaultLimits(), manifest.ErrPathInvalid, `"./a"`},
		{"backslash", compress(t, rawTar(t, man, reg(`..\x`, []byte("x")))), DefaultLimits(), manifest.ErrPathInvalid, `"..\\x"`},
		{"control char", compress(t, rawTar(t, man, reg("a\x1bb", []byte("x")))), DefaultLimits(), manifest.ErrPathInvalid, `"a\x1bb"`},
		{"not utf8", compress(t, rawTar(t, man, reg("a\xffb", []byte("x")))), DefaultLimits(), manifest.ErrPathInvalid, `"a\xffb"`},
		{"long path", compress(t, rawTar(t, man, reg(strings.Repeat("a", 2000), []byte("x")))), DefaultLimits(), manifest.ErrPathInvalid, ""},
		{"duplicate", compress(t, rawTar(t, man, reg("a", []byte("x")), reg("a", []byte("y")))), DefaultLimits(), manifest.ErrDuplicate, `"a"`},
		{"duplicate manifest", compress(t, rawTar(t, man, man)), DefaultLimits(), manifest.ErrDuplicate, `"manifest.json"`},
		{"file and dir", compress(t, rawTar(t, man, reg("a", []byte("x")), reg("a/b", []byte("y")))), DefaultLimits(), manifest.ErrPathConflict, `"a/b"`},
		{"oversize entry", compress(t, rawTar(t, man, reg("a", make([]byte, man.hdr.Size+1)))), entryRoom(man), ErrEntryTooLarge, `"a"`},
		{"oversize total", compress(t, rawTar(t, man, reg("a", []byte("0123456789")), reg("b", []byte("0123456789")))), totalRoom(t, man, 15), ErrTooLarge, `"b"`},
		{"too many entries", compress(t, rawTar(t, man, reg("a", nil), reg("b", nil), reg("c", nil))), few, ErrTooManyEntries, `"c"`},
		{"manifest not first", compress(t, rawTar(t, reg("a", []byte("x")), man)), DefaultLimits(), ErrLayout, `"a"`},
		{"signature third", compress(t, rawTar(t, man, reg("a", nil), sig)), DefaultLimits(), ErrLayout, `"signature.sigstore.json"`},
		{"unsorted", compress(t, rawTar(t, man, reg("b", nil), reg("a", nil))), DefaultLimits(), ErrLayout, `"a"`},
		{"empty archive", compress(t, rawTar(t)), DefaultLimits(), ErrLayout, `"manifest.json"`},
		{"xattr pax", compress(t, rawTar(t, man, pax)), DefaultLimits(), ErrUnsupportedHeader, `"SCHILY.xattr.user.x"`},
		{"mtime pax", compress(t, rawTar(t, man, paxMtime)), DefaultLimits(), ErrUnsupportedHeader, `"mtime"`},
		{"gnu format", compress(t, rawTar(t, man, gnu)), DefaultLimits(), ErrUnsupportedHeader, `"a"`},
		{"regular with linkname", compress(t, rawTar(t, man, linkname)), DefaultLimits(), ErrUnsupportedHeader, `"b"`},
		{"trailing garbage after frame", append(compress(t, manifestTar), "garbage"...), DefaultLimits(), ErrTrailingData, ""},
		{"second frame", append(compress(t, manifestTar), compress(t, []byte("x"))...), DefaultLimits(), ErrTrailingData, "second zstd frame"},
		{"skippable frame after", append(compress(t, manifestTar), 0x50, 0x2a, 0x4d, 0x18, 1, 0, 0, 0, 'x'), DefaultLimits(), ErrTrailingData, "skippable"},
		{"skippable frame first", append([]byte{0x50, 0x2a, 0x4d, 0x18, 1, 0, 0, 0, 'x'}, compress(t, manifestTar)...), DefaultLimits(), ErrCorrupt, "skippable"},
		{"trailing data after tar end", compress(t, append(bytes.Clone(manifestTar), "after the end"...)), DefaultLimits(), ErrTrailingData, ""},
		{"trailing zero block after tar end", compress(t, append(bytes.Clone(manifestTar), make([]byte, 512)...)), DefaultLimits(), ErrTrailingData, ""},
		{"window too large", compressWindow(t, bigTar, 16<<20), DefaultLimits(), ErrWindowTooLarge, ""},
		{"not zstd", manifestTar, DefaultLimits(), ErrCorrupt, ""},
		{"empty input", nil, DefaultLimits(), ErrCorrupt, ""},
		{"not tar", compress(t, []byte("hello, this is not a tar archive at all")), DefaultLimits(), ErrCorrupt, ""},
		{"truncated frame", compress(t, manifestTar)[:40], DefaultLimits(), ErrCorrupt, ""},
		{"bad checksum", flipChecksum(compress(t, manifestTar)), DefaultLimits(), ErrCorrupt, ""},
		{"truncated tar", compress(t, manifestTar[:len(manifestTar)-1024-100]), DefaultLimits(), ErrCorrupt, ""},
		{"no end marker", compress(t, manifestTar[:len(manifestTar)-1024]), DefaultLimits(), ErrCorrupt, "end-of-archive"},
		{"half end marker", compress(t, manifestTar[:len(manifestTar)-512]), DefaultLimits(), ErrCorrupt, "end-of-archive"},
		{"compressed too large", compress(t, manifestTar), Limits{MaxEntries: 10, MaxEntrySize: 1 << 20, MaxTotal: 1 << 20, MaxCompressed: 10, MaxWindow: 1 << 20, MaxPathLen: 10}, ErrTooLarge, ""},
		{"bad limits", compress(t, manifestTar), Limits{}, ErrLimits, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := Read(bytes.NewReader(c.archive), c.lim)
			if !errors.Is(err, c.want) {
				t.Fatalf("Read = %v, want %v", err, c.want)
			}
			if a != nil {
				t.Error("archive returned with an error")
			}
			if c.quoted != "" && !strings.Contains(err.Error(), c.quoted) {
				t.Errorf("error %q does not name %s", err, c.quoted)
			}
		})
	}
}

// TestReadUnlisted: the reader accepts an archive with a file the
// manifest does not list (it cannot know the list), and CompareFiles
// reports it.
func TestReadUnlisted(t *testing.T) {
	c := sampleContents(t)
	m, _ := manifest.Decode(c.Manifest)
	entries := []entry{{manifest.Path, c.Manifest}, {manifest.SignaturePath, c.Signature}}
	for _, f := range m.Files {
		entries = append(entries, entry{f.Path, c.Files[f.Path]})
	}
	entries = append(entries, entry{"zz/unlisted", []byte("smuggled")})
	var buf bytes.Buffer
	if err := writeEntries(&buf, entries); err != nil {
		t.Fatal(err)
	}
	a, err := Read(&buf, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	f := CompareFiles(m, a)
	if len(f) != 1 || f[0].Class != FindingExtra || f[0].Path != "zz/unlisted" {
		t.Errorf("findings %v, want one extra zz/unlisted", f)
	}
}

// entryRoom returns limits whose entry size allows the manifest and no more.
func entryRoom(man rawEntry) Limits {
	l := DefaultLimits()
	l.MaxEntrySize = man.hdr.Size
	return l
}

// totalRoom returns limits whose total allows the manifest plus n bytes.
func totalRoom(t *testing.T, man rawEntry, n int64) Limits {
	l := DefaultLimits()
	l.MaxEntrySize = man.hdr.Size
	l.MaxTotal = man.hdr.Size + n
	return l
}

func compressWindow(t *testing.T, tarBytes []byte, window int) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc, err := zstdNewWriterWindow(&buf, window)
	if err != nil {
		t.Fatal(err)
	}
	// Enough data that the encoder keeps the declared window (and does
	// not use a single-segment frame sized to the content).
	if _, err := enc.Write(tarBytes); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pseudoRandom returns n incompressible, reproducible bytes.
func pseudoRandom(n int) []byte {
	b := make([]byte, n)
	x := uint64(0x9e3779b97f4a7c15)
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x)
	}
	return b
}

// flipChecksum corrupts the frame's trailing content checksum.
func flipChecksum(b []byte) []byte {
	b = bytes.Clone(b)
	b[len(b)-1] ^= 0xff
	return b
}

// TestReadStreamCap: PAX extended headers are consumed inside
// archive/tar before an entry is returned; the decompressed-stream cap
// bounds them.
func TestReadStreamCap(t *testing.T) {
	man := validManifestEntry(t)
	e := reg("a", []byte("x"))
	e.hdr.PAXRecords = map[string]string{"comment": strings.Repeat("c", 200<<10)}
	lim := DefaultLimits()
	lim.MaxEntries = 2
	lim.MaxPathLen = 16
	lim.MaxEntrySize = 4096
	lim.MaxTotal = 8192
	_, err := Read(bytes.NewReader(compress(t, rawTar(t, man, e))), lim)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Read = %v, want ErrTooLarge", err)
	}
}

// TestReadRefusesClaimedSizeBeforeAllocating: an entry header that claims
// 1 GiB is refused from the header alone, without allocating for it.
func TestReadRefusesClaimedSizeBeforeAllocating(t *testing.T) {
	var buf bytes.Buffer
	man := validManifestEntry(t)
	full := rawTar(t, man)
	buf.Write(full[:len(full)-1024]) // manifest entry, no end marker
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "big", Size: 1 << 30, Mode: 0o644}); err != nil {
		t.Fatal(err)
	}
	// Only the header block reaches buf; no data follows.
	buf.Write(make([]byte, 1024))
	bundle := compress(t, buf.Bytes())

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Read(bytes.NewReader(bundle), DefaultLimits())
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrEntryTooLarge) {
		t.Fatalf("Read = %v, want ErrEntryTooLarge", err)
	}
	// The decoder's window (8 MiB) and buffers are expected; 1 GiB is not.
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("Read allocated %d bytes for a refused entry", got)
	}
}
