package bundle

import (
	"archive/tar"
	"bytes"
	"errors"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// fuzzLimits are small, so that the fuzzer reaches every limit.
func fuzzLimits() Limits {
	return Limits{
		MaxEntries:    16,
		MaxEntrySize:  32 << 10,
		MaxTotal:      64 << 10,
		MaxCompressed: 256 << 10,
		MaxWindow:     DefaultMaxWindow,
		MaxPathLen:    128,
	}
}

// checkArchive asserts what a successful Read promises.
func checkArchive(t *testing.T, a *Archive, lim Limits) {
	t.Helper()
	if a.RawManifest == nil {
		t.Fatal("no manifest")
	}
	n := 1 + len(a.Files)
	if a.RawSignature != nil {
		n++
	}
	if n > lim.MaxEntries {
		t.Fatalf("%d entries, limit %d", n, lim.MaxEntries)
	}
	total := int64(len(a.RawManifest) + len(a.RawSignature))
	if len(a.Order) != len(a.Files) {
		t.Fatalf("order has %d paths, files %d", len(a.Order), len(a.Files))
	}
	for i, p := range a.Order {
		if err := checkEvidencePath(p, lim.MaxPathLen); err != nil {
			t.Fatalf("accepted bad path: %v", err)
		}
		if i > 0 && a.Order[i-1] >= p {
			t.Fatalf("order not ascending: %q, %q", a.Order[i-1], p)
		}
		if int64(len(a.Files[p])) > lim.MaxEntrySize {
			t.Fatalf("%q exceeds the entry limit", p)
		}
		total += int64(len(a.Files[p]))
	}
	if total > lim.MaxTotal {
		t.Fatalf("total %d exceeds %d", total, lim.MaxTotal)
	}
}

func seedTars(t testing.TB) [][]byte {
	man := validManifestEntry(t)
	sig := reg(SignaturePath, []byte("{}"))
	pax := reg("a", []byte("x"))
	pax.hdr.PAXRecords = map[string]string{"SCHILY.xattr.user.x": "y"}
	long := reg("d/"+string(bytes.Repeat([]byte("n"), 110)), []byte("long"))
	long.hdr.Format = tar.FormatPAX
	return [][]byte{
		rawTar(t, man, sig, reg("a", []byte("x")), reg("b/c", []byte("y"))),
		rawTar(t, man, rawEntry{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: "a", Linkname: "/etc"}}),
		rawTar(t, man, reg("../x", []byte("x"))),
		rawTar(t, man, reg("a", []byte("x")), reg("a", []byte("x"))),
		rawTar(t, man, pax),
		rawTar(t, man, long),
		rawTar(t),
	}
}

func FuzzRead(f *testing.F) {
	c := sampleContents(f)
	valid := mustWrite(f, c)
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add(append(bytes.Clone(valid), 0))
	for _, tb := range seedTars(f) {
		f.Add(compress(f, tb))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		lim := fuzzLimits()
		a, err := Read(bytes.NewReader(in), lim)
		if err != nil {
			if a != nil {
				t.Fatal("archive with error")
			}
			return
		}
		checkArchive(t, a, lim)
	})
}

// FuzzReadTar fuzzes the tar layer: the input is a tar stream that is
// compressed the way the writer does before Read sees it, so mutations
// reach the tar parsing instead of dying in the zstd checksum.
func FuzzReadTar(f *testing.F) {
	for _, tb := range seedTars(f) {
		f.Add(tb)
	}
	// A fast encoder, made once: the writer's best level would spend the
	// fuzzing time compressing, not reading.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, tb []byte) {
		lim := fuzzLimits()
		a, err := Read(bytes.NewReader(enc.EncodeAll(tb, nil)), lim)
		if err != nil {
			if a != nil {
				t.Fatal("archive with error")
			}
			return
		}
		checkArchive(t, a, lim)
	})
}

func FuzzDecodeManifest(f *testing.F) {
	good, err := EncodeManifest(sampleManifest(sampleFiles(f)))
	if err != nil {
		f.Fatal(err)
	}
	empty, _ := EncodeManifest(newManifest())
	f.Add(good)
	f.Add(empty)
	f.Add(compactBytes(good))
	f.Add([]byte(`{"media_type":"` + ManifestMediaType + `","schema_version":1}`))
	f.Add([]byte("null"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := DecodeManifest(raw)
		if err != nil {
			if m != nil {
				t.Fatal("manifest with error")
			}
			for _, s := range []error{ErrManifestTooLarge, ErrManifestMediaType, ErrManifestSchema, ErrManifestInvalid, ErrManifestNotCanonical} {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("error of no class: %v", err)
		}
		again, err := EncodeManifest(m)
		if err != nil {
			t.Fatalf("decoded manifest does not encode: %v", err)
		}
		if !bytes.Equal(again, raw) {
			t.Fatal("decoded manifest re-encodes differently")
		}
	})
}

func compactBytes(b []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.Split(b, []byte("\n")) {
		out.Write(bytes.TrimSpace(line))
	}
	return out.Bytes()
}
