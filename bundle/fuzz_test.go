package bundle

import (
	"archive/tar"
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"

	"github.com/dshaudit/dshaudit/manifest"
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
		if err := manifest.CheckEvidencePath(p, lim.MaxPathLen); err != nil {
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
	sig := reg(manifest.SignaturePath, []byte("{}"))
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

// FuzzReadTar fuzzes the tar layer: the input is a tar stream that is put
// in a zstd frame before Read sees it, so mutations reach the tar parsing
// instead of dying in the zstd checksum. The frame is stored, not
// compressed (raw blocks, content size and checksum set): a valid frame
// Read must accept like any other, which costs nothing to build, so the
// fuzzing time goes to reading (compressing each input took three
// quarters of it). FuzzRead fuzzes the compressed-block decoder.
func FuzzReadTar(f *testing.F) {
	for _, tb := range seedTars(f) {
		f.Add(tb)
	}
	var frame []byte
	f.Fuzz(func(t *testing.T, tb []byte) {
		lim := fuzzLimits()
		frame = storedFrame(frame[:0], tb)
		a, err := Read(bytes.NewReader(frame), lim)
		if err != nil {
			if a != nil {
				t.Fatal("archive with error")
			}
			return
		}
		checkArchive(t, a, lim)
	})
}

// storedFrame appends to dst a single-segment zstd frame (RFC 8878 3.1.1)
// holding b in raw blocks, with its content size and checksum.
func storedFrame(dst, b []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, 0xFD2FB528)
	// Frame header descriptor: 4-byte content size, single segment,
	// content checksum.
	dst = append(dst, 2<<6|1<<5|1<<2)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(b)))
	rest := b
	for {
		n := min(len(rest), maxBlockSize)
		last := 0
		if n == len(rest) {
			last = 1
		}
		// Block header: last flag, type 0 (raw), size.
		hdr := uint32(n)<<3 | uint32(last)
		dst = append(dst, byte(hdr), byte(hdr>>8), byte(hdr>>16))
		dst = append(dst, rest[:n]...)
		rest = rest[n:]
		if last == 1 {
			break
		}
	}
	return binary.LittleEndian.AppendUint32(dst, uint32(xxhash.Sum64(b)))
}

// The stored frame is a frame Read accepts.
func TestStoredFrame(t *testing.T) {
	for _, tb := range seedTars(t)[:1] {
		a, err := Read(bytes.NewReader(storedFrame(nil, tb)), fuzzLimits())
		if err != nil {
			t.Fatal(err)
		}
		checkArchive(t, a, fuzzLimits())
		if len(a.Files) != 2 || a.RawSignature == nil {
			t.Fatalf("read %d files", len(a.Files))
		}
		// The checksum is checked: one bit off is refused.
		bad := storedFrame(nil, tb)
		bad[len(bad)-1] ^= 1
		if _, err := Read(bytes.NewReader(bad), fuzzLimits()); err == nil {
			t.Fatal("a wrong checksum was accepted")
		}
	}
	big := bytes.Repeat([]byte("x"), 3*maxBlockSize+5)
	dec, err := zstd.NewReader(bytes.NewReader(storedFrame(nil, big)))
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	got, err := io.ReadAll(dec)
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("multi-block frame: %v", err)
	}
}
