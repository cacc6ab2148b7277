package bundle

import (
	"bytes"
	"errors"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// readBoth reads in with and without DecodeAhead (and OnFile) and fails
// unless both give the same archive or the same refusal, byte for byte,
// and OnFile was given every evidence file of an archive read, in
// order, as the very slice the archive holds.
func readBoth(t *testing.T, name string, in []byte, lim Limits) error {
	t.Helper()
	a1, err1 := Read(bytes.NewReader(in), lim)
	var given []string
	var data [][]byte
	onFile := func(p string, b []byte) { given, data = append(given, p), append(data, b) }
	a2, err2 := Read(bytes.NewReader(in), lim, DecodeAhead(), OnFile(onFile))
	if err2 == nil {
		if !slices.Equal(given, a2.Order) {
			t.Fatalf("%s: OnFile was given %q, the archive holds %q", name, given, a2.Order)
		}
		for i, p := range given {
			if b := a2.Files[p]; len(b) != len(data[i]) || len(b) > 0 && &b[0] != &data[i][0] {
				t.Fatalf("%s: OnFile was given other bytes for %q than the archive holds", name, p)
			}
		}
	}
	switch {
	case (err1 == nil) != (err2 == nil):
		t.Fatalf("%s: inline %v, ahead %v", name, err1, err2)
	case err1 != nil:
		if err1.Error() != err2.Error() {
			t.Fatalf("%s: inline %q, ahead %q", name, err1, err2)
		}
		if a1 != nil || a2 != nil {
			t.Fatalf("%s: an archive beside the refusal", name)
		}
	case !reflect.DeepEqual(a1, a2):
		t.Fatalf("%s: the two reads give different archives", name)
	}
	return err1
}

func decompressAll(t *testing.T, frame []byte) []byte {
	t.Helper()
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	out, err := dec.DecodeAll(frame, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tarHeaders returns the offset of each header block of the tar stream b
// and of its end-of-archive marker.
func tarHeaders(t *testing.T, b []byte) []int {
	t.Helper()
	var out []int
	for off := 0; off+512 <= len(b); {
		out = append(out, off)
		if bytes.Count(b[off:off+512], []byte{0}) == 512 {
			return out
		}
		size, err := strconv.ParseInt(strings.Trim(string(b[off+124:off+136]), " \x00"), 8, 64)
		if err != nil {
			t.Fatalf("tar header at %d: size: %v", off, err)
		}
		off += 512 + int(roundBlock(size))
	}
	t.Fatal("no end-of-archive marker")
	return nil
}

// blockStarts returns the offset of each block header of the one frame
// in b, as the writer lays them out.
func blockStarts(t *testing.T, b []byte) []int {
	t.Helper()
	var out []int
	for off := frameHeaderLen(t, b); off+blockHeaderSize <= len(b); {
		out = append(out, off)
		bh := uint32(b[off]) | uint32(b[off+1])<<8 | uint32(b[off+2])<<16
		size := int(bh >> 3)
		if (bh>>1)&3 == 1 {
			size = 1
		}
		off += blockHeaderSize + size
		if bh&1 == 1 {
			break
		}
	}
	return out
}

// DecodeAhead changes how Read works, never its result: every test
// vector, and damaged copies of a bundle of many blocks (bytes changed,
// cut short, a block header's type made reserved, a byte of the tar
// stream changed before compression), read the same with
// and without it, refusal messages included. A decoder that reads ahead
// reaches parts of the frame the tar reader never asks for; the frame's
// structure is checked to its end either way (TestStructuralRefusalAnywhere).
func TestReadOptionsAgree(t *testing.T) {
	vectors, err := filepath.Glob("../testdata/vectors/*.dshaudit.tar.zst")
	if err != nil || len(vectors) == 0 {
		t.Fatalf("no test vectors: %v", err)
	}
	for _, p := range vectors {
		in, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		readBoth(t, filepath.Base(p), in, DefaultLimits())
	}

	big := writeWithFile(t, 600<<10)
	starts := blockStarts(t, big)
	if len(starts) < 4 {
		t.Fatalf("the bundle has %d blocks, want several", len(starts))
	}
	tarBytes := decompressAll(t, big)
	headers := tarHeaders(t, tarBytes)
	rng := rand.New(rand.NewPCG(11, 2026))
	refused := map[string]bool{}
	for i := 0; i < 600; i++ {
		in := bytes.Clone(big)
		switch i % 4 {
		case 0: // one to three bytes changed anywhere
			for n := 1 + rng.IntN(3); n > 0; n-- {
				in[rng.IntN(len(in))] ^= byte(1 + rng.IntN(255))
			}
		case 1: // cut short
			in = in[:rng.IntN(len(in))]
		case 2: // a block's type made reserved, and a byte of the content before it changed
			b := starts[1+rng.IntN(len(starts)-1)]
			in[b] |= 3 << 1
			in[starts[0]+blockHeaderSize+rng.IntN(b-starts[0]-blockHeaderSize)] ^= 0x5a
		case 3: // a well-formed frame of a tar stream with a byte of a header changed
			tb := bytes.Clone(tarBytes)
			tb[headers[rng.IntN(len(headers))]+rng.IntN(512)] ^= byte(1 + rng.IntN(255))
			in = compress(t, tb)
		}
		if err := readBoth(t, "damaged", in, DefaultLimits()); err != nil {
			refused[err.Error()] = true
		}
	}
	// The damage reaches each layer: the frame's structure, the
	// decoder, the checksum and the tar reader.
	for _, want := range []string{"reserved zstd block type", errBlockUndecodable.Error(), errChecksumMismatch.Error(), "archive/tar"} {
		found := false
		for msg := range refused {
			found = found || strings.Contains(msg, want)
		}
		if !found {
			t.Errorf("no damaged copy was refused with %q; the refusals: %q", want, slices.Sorted(maps.Keys(refused)))
		}
	}
}

// A structural refusal anywhere in the frame takes precedence over what
// the tar reader made of the content before it (SPEC.md "Streaming
// read"), however far the decoder had read: here a first entry that is
// not the manifest, and a reserved block type three blocks later.
func TestStructuralRefusalAnywhere(t *testing.T) {
	tarBytes := rawTar(t, reg("a", pseudoRandom(600<<10)), validManifestEntry(t))
	in := compress(t, tarBytes)
	if _, err := Read(bytes.NewReader(in), DefaultLimits()); !errors.Is(err, ErrLayout) {
		t.Fatalf("the undamaged frame: %v, want ErrLayout", err)
	}
	starts := blockStarts(t, in)
	if len(starts) < 4 {
		t.Fatalf("the bundle has %d blocks, want several", len(starts))
	}
	in[starts[3]] |= 3 << 1
	for _, opts := range [][]ReadOption{nil, {DecodeAhead()}} {
		a, err := Read(bytes.NewReader(in), DefaultLimits(), opts...)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "reserved zstd block type") || a != nil {
			t.Fatalf("with %d options: %v, want the reserved block type", len(opts), err)
		}
	}
}

// TestNewFileBuffer: a buffer for an evidence file, advised for huge
// pages or not, is n zero bytes.
func TestNewFileBuffer(t *testing.T) {
	for _, n := range []int64{0, 1, hugeFileBuffer - 1, hugeFileBuffer, hugeFileBuffer + 4097, 3*hugeFileBuffer + 1} {
		b := newFileBuffer(n)
		if int64(len(b)) != n || int64(cap(b)) != n {
			t.Fatalf("newFileBuffer(%d): len %d cap %d", n, len(b), cap(b))
		}
		if i := bytes.IndexFunc(b, func(r rune) bool { return r != 0 }); i >= 0 {
			t.Fatalf("newFileBuffer(%d): byte %d is not zero", n, i)
		}
	}
}
