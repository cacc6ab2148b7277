package bundle

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// Encoder settings (SPEC.md "Bundle layout"). Changing any of them changes
// the bytes of every bundle written afterwards, so they are constants.
const (
	// EncoderLevel is the klauspost/compress zstd level.
	EncoderLevel = zstd.SpeedBetterCompression
	// EncoderWindow is the zstd window size in bytes.
	EncoderWindow = 8 << 20
)

// newEncoder returns a zstd encoder with the fixed bundle settings:
// single-threaded (so block boundaries do not depend on scheduling), a
// fixed level and window, the content checksum on, and a full frame even
// for empty input.
func newEncoder(w io.Writer) (*zstd.Encoder, error) {
	return zstd.NewWriter(w,
		zstd.WithEncoderLevel(EncoderLevel),
		zstd.WithWindowSize(EncoderWindow),
		zstd.WithEncoderConcurrency(1),
		zstd.WithConcurrentBlocks(false),
		zstd.WithEncoderCRC(true),
		zstd.WithZeroFrames(true),
		zstd.WithLowerEncoderMem(false),
	)
}

// newDecoder returns a single-threaded zstd decoder that refuses windows
// above lim.MaxWindow and verifies the content checksum.
func newDecoder(r io.Reader, lim Limits) (*zstd.Decoder, error) {
	return zstd.NewReader(r,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(lim.MaxWindow),
		zstd.WithDecoderMaxMemory(lim.MaxWindow),
		zstd.IgnoreChecksum(false),
	)
}

// zstd frame format constants (RFC 8878 3.1.1.2).
const (
	blockHeaderSize = 3
	maxBlockSize    = 128 << 10
	checksumSize    = 4
)

// frameEnd checks that buf starts with exactly one zstd frame of the kind
// the writer produces and returns its length. It walks the block headers
// without decompressing, so trailing bytes, skippable frames, a second
// frame, a dictionary, a missing checksum or an oversized window are
// refused before the decoder allocates anything.
func frameEnd(buf []byte, lim Limits) (int, error) {
	var h zstd.Header
	if err := h.Decode(buf); err != nil {
		return 0, fmt.Errorf("%w: zstd frame header: %w", ErrCorrupt, err)
	}
	if h.Skippable {
		return 0, fmt.Errorf("%w: skippable zstd frame", ErrCorrupt)
	}
	if h.DictionaryID != 0 {
		return 0, fmt.Errorf("%w: zstd frame needs dictionary %d", ErrCorrupt, h.DictionaryID)
	}
	if !h.HasCheckSum {
		return 0, fmt.Errorf("%w: zstd frame has no content checksum", ErrCorrupt)
	}
	window := h.WindowSize
	if h.SingleSegment {
		window = h.FrameContentSize
	}
	if window > lim.MaxWindow {
		return 0, fmt.Errorf("%w: frame needs %d bytes, limit %d", ErrWindowTooLarge, window, lim.MaxWindow)
	}
	off := h.HeaderSize
	for {
		if len(buf)-off < blockHeaderSize {
			return 0, fmt.Errorf("%w: zstd block header at offset %d: %w", ErrCorrupt, off, io.ErrUnexpectedEOF)
		}
		bh := uint32(buf[off]) | uint32(buf[off+1])<<8 | uint32(buf[off+2])<<16
		off += blockHeaderSize
		last, typ, size := bh&1 == 1, (bh>>1)&3, int(bh>>3)
		switch typ {
		case 0, 2: // raw, compressed
		case 1: // RLE: one byte repeated size times
			size = 1
		default:
			return 0, fmt.Errorf("%w: reserved zstd block type at offset %d", ErrCorrupt, off-blockHeaderSize)
		}
		if size > maxBlockSize {
			return 0, fmt.Errorf("%w: zstd block of %d bytes at offset %d", ErrCorrupt, size, off-blockHeaderSize)
		}
		if len(buf)-off < size {
			return 0, fmt.Errorf("%w: zstd block at offset %d: %w", ErrCorrupt, off-blockHeaderSize, io.ErrUnexpectedEOF)
		}
		off += size
		if last {
			break
		}
	}
	if len(buf)-off < checksumSize {
		return 0, fmt.Errorf("%w: zstd checksum: %w", ErrCorrupt, io.ErrUnexpectedEOF)
	}
	off += checksumSize
	if off != len(buf) {
		kind := "bytes"
		if len(buf)-off >= 4 {
			switch m := binary.LittleEndian.Uint32(buf[off:]); {
			case m == 0xFD2FB528:
				kind = "bytes (a second zstd frame)"
			case m&0xFFFFFFF0 == 0x184D2A50:
				kind = "bytes (a skippable zstd frame)"
			}
		}
		return 0, fmt.Errorf("%w: %d %s after the zstd frame", ErrTrailingData, len(buf)-off, kind)
	}
	return off, nil
}
