package bundle

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// frameReader passes a compressed bundle to the zstd decoder while it
// checks, as the bytes go by, that they are exactly one zstd frame of the
// kind the writer produces (SPEC.md "Reader limits and refusals"): no
// skippable frame, no dictionary, a content checksum, a window within
// lim.MaxWindow, no reserved block type, no block above 128 KiB, nothing
// after the frame, and at most lim.MaxCompressed bytes in all. Nothing is
// buffered beyond one block header: the input is read once, in step with
// the decoder. After any failure err holds the structural error, which
// takes precedence over what the decoder made of the bytes it was given.
type frameReader struct {
	r   io.Reader
	lim Limits
	n   int64 // compressed bytes read so far
	// pending are bytes already read from r and not yet passed on.
	pending []byte
	// left is what remains of the current block's content or of the
	// checksum; last says the current block is the frame's last.
	left int
	last bool
	// state: the next thing expected after left runs out.
	state frameState
	err   error
	buf   [MaxFrameHeaderSize]byte
}

type frameState int

const (
	stateBlockHeader frameState = iota
	stateChecksum
	stateEnd
)

// MaxFrameHeaderSize, the longest zstd frame header, is magic (4),
// descriptor (1), window (1), dictionary id (4) and content size (8):
// RFC 8878 3.1.1.1.
const MaxFrameHeaderSize = 18

func newFrameReader(r io.Reader, lim Limits) *frameReader {
	return &frameReader{r: r, lim: lim}
}

// readHeader reads and checks the frame header; it is passed on to the
// decoder by the following Reads.
func (f *frameReader) readHeader() error {
	b := f.buf[:5]
	if err := f.readFull(b); err != nil {
		return f.fail(fmt.Errorf("%w: zstd frame header: %w", ErrCorrupt, err))
	}
	size := 5
	switch magic := binary.LittleEndian.Uint32(b); {
	case magic&0xFFFFFFF0 == 0x184D2A50:
		return f.fail(fmt.Errorf("%w: skippable zstd frame", ErrCorrupt))
	case magic == 0xFD2FB528:
		fhd := b[4]
		single := fhd&0x20 != 0
		if !single {
			size++
		}
		size += []int{0, 1, 2, 4}[fhd&3]
		switch fhd >> 6 {
		case 0:
			if single {
				size++
			}
		case 1:
			size += 2
		case 2:
			size += 4
		case 3:
			size += 8
		}
		if err := f.readFull(f.buf[5:size]); err != nil {
			return f.fail(fmt.Errorf("%w: zstd frame header: %w", ErrCorrupt, err))
		}
	}
	var h zstd.Header
	if err := h.Decode(f.buf[:size]); err != nil {
		return f.fail(fmt.Errorf("%w: zstd frame header: %w", ErrCorrupt, err))
	}
	switch {
	case h.Skippable:
		return f.fail(fmt.Errorf("%w: skippable zstd frame", ErrCorrupt))
	case h.DictionaryID != 0:
		return f.fail(fmt.Errorf("%w: zstd frame needs dictionary %d", ErrCorrupt, h.DictionaryID))
	case !h.HasCheckSum:
		return f.fail(fmt.Errorf("%w: zstd frame has no content checksum", ErrCorrupt))
	}
	window := h.WindowSize
	if h.SingleSegment {
		window = h.FrameContentSize
	}
	if window > f.lim.MaxWindow {
		return f.fail(fmt.Errorf("%w: frame needs %d bytes, limit %d", ErrWindowTooLarge, window, f.lim.MaxWindow))
	}
	f.pending = f.buf[:size]
	f.state = stateBlockHeader
	return nil
}

func (f *frameReader) fail(err error) error {
	if f.err == nil {
		f.err = err
	}
	return f.err
}

// readFull reads len(b) bytes from r, counting them against MaxCompressed.
func (f *frameReader) readFull(b []byte) error {
	n, err := io.ReadFull(f.r, b)
	f.n += int64(n)
	if f.n > f.lim.MaxCompressed {
		return fmt.Errorf("%w: compressed input exceeds %d bytes", ErrTooLarge, f.lim.MaxCompressed)
	}
	return err
}

// Read passes on the frame's bytes and reports io.EOF where the frame ends.
func (f *frameReader) Read(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if len(f.pending) > 0 {
		n := copy(p, f.pending)
		f.pending = f.pending[n:]
		return n, nil
	}
	for f.left == 0 {
		switch f.state {
		case stateEnd:
			return 0, io.EOF
		case stateChecksum:
			f.state = stateEnd
			continue
		}
		// A block header.
		off := f.n
		hb := f.buf[:blockHeaderSize]
		if err := f.readFull(hb); err != nil {
			if !errors.Is(err, ErrTooLarge) {
				err = fmt.Errorf("%w: zstd block header at offset %d: %w", ErrCorrupt, off, io.ErrUnexpectedEOF)
			}
			return 0, f.fail(err)
		}
		bh := uint32(hb[0]) | uint32(hb[1])<<8 | uint32(hb[2])<<16
		last, typ, size := bh&1 == 1, (bh>>1)&3, int(bh>>3)
		switch typ {
		case 0, 2: // raw, compressed
		case 1: // RLE: one byte repeated size times
			size = 1
		default:
			return 0, f.fail(fmt.Errorf("%w: reserved zstd block type at offset %d", ErrCorrupt, off))
		}
		if size > maxBlockSize {
			return 0, f.fail(fmt.Errorf("%w: zstd block of %d bytes at offset %d", ErrCorrupt, size, off))
		}
		f.left, f.last = size, last
		if last {
			f.left += checksumSize
			f.state = stateChecksum
		}
		f.pending = hb
		n := copy(p, f.pending)
		f.pending = f.pending[n:]
		return n, nil
	}
	if len(p) > f.left {
		p = p[:f.left]
	}
	n, err := f.r.Read(p)
	f.n += int64(n)
	f.left -= n
	if f.n > f.lim.MaxCompressed {
		return 0, f.fail(fmt.Errorf("%w: compressed input exceeds %d bytes", ErrTooLarge, f.lim.MaxCompressed))
	}
	if err != nil && !errors.Is(err, io.EOF) {
		// Kept, so that Read reports the input's own failure, not what
		// the decoder made of it.
		return n, f.fail(fmt.Errorf("read bundle: %w", err))
	}
	if errors.Is(err, io.EOF) {
		if f.left > 0 {
			what := "zstd block"
			if f.state == stateChecksum && f.left <= checksumSize {
				what = "zstd checksum"
			}
			return n, f.fail(fmt.Errorf("%w: %s: %w", ErrCorrupt, what, io.ErrUnexpectedEOF))
		}
		err = nil
	}
	return n, err
}

// finish checks that the input ends where the frame ended.
func (f *frameReader) finish() error {
	if f.err != nil {
		return f.err
	}
	if f.state != stateEnd || f.left > 0 || len(f.pending) > 0 {
		return f.fail(fmt.Errorf("%w: the zstd frame did not end where the decompressed stream did", ErrCorrupt))
	}
	var b [4]byte
	n, err := io.ReadFull(f.r, b[:])
	if n == 0 {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return f.fail(fmt.Errorf("read bundle: %w", err))
	}
	kind := "bytes"
	if n == 4 {
		switch m := binary.LittleEndian.Uint32(b[:]); {
		case m == 0xFD2FB528:
			kind = "bytes (a second zstd frame)"
		case m&0xFFFFFFF0 == 0x184D2A50:
			kind = "bytes (a skippable zstd frame)"
		}
	}
	rest, _ := io.Copy(io.Discard, io.LimitReader(f.r, f.lim.MaxCompressed))
	return f.fail(fmt.Errorf("%w: %d %s after the zstd frame", ErrTrailingData, int64(n)+rest, kind))
}

// decoders keeps single-threaded zstd decoders for the default window, so
// that verifying many bundles does not allocate a decoder's buffers each
// time.
var decoders sync.Pool

// getDecoder returns a decoder reading r: with cfg.decodeAhead a new one
// of its own (DecodeAhead), else one from the pool when lim has the
// default window. Give it back with putDecoder.
func getDecoder(r io.Reader, lim Limits, cfg readConfig) (*zstd.Decoder, error) {
	if !cfg.decodeAhead && lim.MaxWindow == DefaultMaxWindow {
		if d, ok := decoders.Get().(*zstd.Decoder); ok {
			if err := d.Reset(r); err == nil {
				return d, nil
			}
			d.Close()
		}
	}
	return newDecoder(r, lim, cfg)
}

// putDecoder gives back a decoder from getDecoder. When it returns, the
// decoder has stopped: none of its goroutines reads its input any more
// (Reset and Close drain its output, which its last goroutine closes
// after the last read).
func putDecoder(d *zstd.Decoder, lim Limits, cfg readConfig) {
	if cfg.decodeAhead || lim.MaxWindow != DefaultMaxWindow || d.Reset(nil) != nil {
		d.Close()
		return
	}
	decoders.Put(d)
}

// skipRest reads the rest of the frame past the decoder, checking its
// structure as Read does, up to the frame's end or the first refusal.
// Call it only once the decoder has stopped.
func (f *frameReader) skipRest() {
	// io.Discard reads through a buffer of its own pool: a refused
	// bundle allocates nothing more for it.
	_, _ = io.Copy(io.Discard, f)
}

// prefer returns the frame's structural error when there is one, else err.
func (f *frameReader) prefer(err error) error {
	if f.err != nil {
		return f.err
	}
	return err
}

// DeclaredSize reads the zstd frame header at the start of b (at most
// MaxFrameHeaderSize bytes are looked at) and returns the decompressed size the frame
// declares and the window it needs, when it declares a size. A bundle
// Read accepts holds exactly the declared size: the decoder refuses a
// frame that decodes to more or less (ErrCorrupt). Nothing else of the
// header is checked here; Read checks it all. For sizing work before a
// Read (verify's memory budget, DESIGN.md "Many bundles").
func DeclaredSize(b []byte) (content, window uint64, ok bool) {
	var h zstd.Header
	if len(b) > MaxFrameHeaderSize {
		b = b[:MaxFrameHeaderSize]
	}
	if h.Decode(b) != nil || h.Skippable || !h.HasFCS {
		return 0, 0, false
	}
	window = h.WindowSize
	if h.SingleSegment {
		window = h.FrameContentSize
	}
	return h.FrameContentSize, window, true
}
