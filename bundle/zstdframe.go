package bundle

import (
	"io"
	"sync"

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

// encoders keeps encoders between writes: a new encoder allocates and
// clears a history of twice the window (16 MiB) on its first block,
// which cost a writer of many small bundles (batch; the mutation
// harness, which writes one bundle per mutation) about half its CPU. An
// encoder reset for a new frame writes the same bytes as a new one
// (TestEncoderReuseSameBytes).
var encoders sync.Pool

// getEncoder returns a pooled encoder with the fixed bundle settings, or
// a new one; the caller resets it onto its writer.
func getEncoder() (*zstd.Encoder, error) {
	if e, ok := encoders.Get().(*zstd.Encoder); ok {
		return e, nil
	}
	return newEncoder(nil)
}

// putEncoder returns a closed encoder to the pool, detached from the
// writer it wrote to.
func putEncoder(e *zstd.Encoder) {
	e.Reset(nil)
	encoders.Put(e)
}

// newDecoder returns a zstd decoder that refuses windows above
// lim.MaxWindow and verifies the content checksum: single-threaded with a
// history of the window plus 1 MiB, or with cfg.decodeAhead on two
// goroutines of its own with a history of twice the window (DecodeAhead).
func newDecoder(r io.Reader, lim Limits, cfg readConfig) (*zstd.Decoder, error) {
	concurrency, lowmem := 1, true
	if cfg.decodeAhead {
		concurrency, lowmem = 2, false
	}
	return zstd.NewReader(r,
		zstd.WithDecoderConcurrency(concurrency),
		zstd.WithDecoderLowmem(lowmem),
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
