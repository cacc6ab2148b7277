package bundle

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/dshaudit/dshaudit/manifest"
)

// The frame is checked as it streams: each refusal keeps its class
// although the decoder has seen part of the input.
func TestReadStreamingRefusals(t *testing.T) {
	man := validManifestEntry(t)
	good := compress(t, rawTar(t, man, reg("a", []byte(strings.Repeat("evidence ", 4000)))))
	small := DefaultLimits()
	small.MaxCompressed = int64(len(good)) - 1
	exact := DefaultLimits()
	exact.MaxCompressed = int64(len(good))

	// A reserved block type (3) in the first block header.
	hdrLen := frameHeaderLen(t, good)
	reserved := bytes.Clone(good)
	reserved[hdrLen] |= 3 << 1

	for _, c := range []struct {
		name string
		in   []byte
		lim  Limits
		want error
		text string
	}{
		{"compressed input one byte over the limit", good, small, ErrTooLarge, "compressed input exceeds"},
		{"reserved block type", reserved, DefaultLimits(), ErrCorrupt, "reserved zstd block type"},
		{"checksum cut short", good[:len(good)-2], DefaultLimits(), ErrCorrupt, "checksum"},
		{"trailing byte", append(bytes.Clone(good), 0), DefaultLimits(), ErrTrailingData, "1 bytes after the zstd frame"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := Read(bytes.NewReader(c.in), c.lim)
			if !errors.Is(err, c.want) || a != nil {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), c.text) {
				t.Errorf("error %q does not say %q", err, c.text)
			}
		})
	}
	if _, err := Read(bytes.NewReader(good), exact); err != nil {
		t.Fatalf("input exactly at MaxCompressed: %v", err)
	}
}

// Read takes the input in small reads, never all at once, and consumes
// it exactly to its end.
func TestReadStreamsInput(t *testing.T) {
	c := sampleContents(t)
	in := mustWrite(t, c)
	r := &smallReads{r: bytes.NewReader(in), max: 7}
	a, err := Read(r, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if r.n != len(in) {
		t.Errorf("read %d of %d bytes", r.n, len(in))
	}
	if len(CompareFiles(mustDecode(t, a.RawManifest), a)) != 0 {
		t.Error("files differ from the manifest")
	}
}

// Replacing a file after Read makes CompareFiles hash the new content.
func TestCompareFilesAfterEdit(t *testing.T) {
	c := sampleContents(t)
	a, err := Read(bytes.NewReader(mustWrite(t, c)), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	m := mustDecode(t, a.RawManifest)
	p := a.Order[0]
	edited := bytes.Clone(a.Files[p])
	edited = append(edited[:len(edited)-1], edited[len(edited)-1]^1)
	a.Files[p] = edited
	f := CompareFiles(m, a)
	if len(f) != 1 || f[0].Class != FindingChanged || f[0].Path != p {
		t.Fatalf("findings %v", f)
	}
}

type smallReads struct {
	r   io.Reader
	max int
	n   int
}

func (s *smallReads) Read(p []byte) (int, error) {
	if len(p) > s.max {
		p = p[:s.max]
	}
	n, err := s.r.Read(p)
	s.n += n
	return n, err
}

func frameHeaderLen(t *testing.T, b []byte) int {
	t.Helper()
	f := newFrameReader(bytes.NewReader(b), DefaultLimits())
	if err := f.readHeader(); err != nil {
		t.Fatal(err)
	}
	return len(f.pending)
}

func mustDecode(t *testing.T, raw []byte) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The writer declares the tar stream's length in the frame header, and a
// window no larger than that length needs (SPEC.md "Archive encoding"):
// above one 128 KiB block, as below it.
func TestWriteDeclaresContentSize(t *testing.T) {
	for _, size := range []int{1000, 300 << 10} {
		in := writeWithFile(t, size)
		var tarLen countingWriter
		dec, err := zstd.NewReader(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(&tarLen, dec); err != nil {
			t.Fatal(err)
		}
		dec.Close()
		var h zstd.Header
		if err := h.Decode(in); err != nil {
			t.Fatal(err)
		}
		if !h.HasFCS || h.FrameContentSize != uint64(tarLen) {
			t.Errorf("%d-byte file: frame declares content size %v %d, tar stream is %d bytes", size, h.HasFCS, h.FrameContentSize, tarLen)
		}
		window := h.WindowSize
		if h.SingleSegment {
			window = h.FrameContentSize
		}
		if window > 2*uint64(tarLen) || window > EncoderWindow {
			t.Errorf("%d-byte file: window %d for %d bytes of content", size, window, tarLen)
		}
	}
}

// A frame whose content is not the size it declares is refused.
func TestReadRefusesWrongContentSize(t *testing.T) {
	in := writeWithFile(t, 300<<10)
	var h zstd.Header
	if err := h.Decode(in); err != nil || !h.HasFCS || h.SingleSegment || in[4]>>6 != 2 {
		t.Fatalf("want a frame with a 4-byte content size and a window byte: %v %+v", err, h)
	}
	// magic (4), descriptor (1), window (1), then the 4-byte content size.
	lie := bytes.Clone(in)
	binary.LittleEndian.PutUint32(lie[6:], uint32(h.FrameContentSize+512))
	if a, err := Read(bytes.NewReader(lie), DefaultLimits()); !errors.Is(err, ErrCorrupt) || a != nil {
		t.Fatalf("content size 512 bytes too large: got %v, want %v", err, ErrCorrupt)
	}
	if _, err := Read(bytes.NewReader(in), DefaultLimits()); err != nil {
		t.Fatalf("the bundle as written: %v", err)
	}
}

// writeWithFile writes the sample bundle with one more file of about
// size bytes, listed in its manifest.
func writeWithFile(t *testing.T, size int) []byte {
	t.Helper()
	c := sampleContents(t)
	c.Files["big"] = bytes.Repeat([]byte("evidence "), size/9)
	raw, err := manifest.Encode(sampleManifest(c.Files))
	if err != nil {
		t.Fatal(err)
	}
	c.Manifest = raw
	return mustWrite(t, c)
}
