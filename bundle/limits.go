package bundle

import (
	"fmt"

	"github.com/klauspost/compress/zstd"

	"github.com/dshaudit/dshaudit/manifest"
)

// Default reader limits (SPEC.md "Reader limits and refusals"). The writer
// refuses to produce a bundle that these defaults would refuse.
const (
	// DefaultMaxEntries bounds the number of archive entries. A run of
	// T0–T4 with the maximum repeat writes a few dozen files.
	DefaultMaxEntries = 10_000
	// DefaultMaxEntrySize bounds one entry: a stage's full stdout, the
	// full --dump-config output or a README. It is twice the engine's
	// per-stream capture limit, the most a merged record can hold.
	DefaultMaxEntrySize = 16 << 20
	// DefaultMaxTotal bounds the sum of all entry sizes, which a reader
	// holds in memory: with it, verify stays within 128 MiB of peak RSS
	// (SPEC.md "Reader limits and refusals"; issue 11).
	DefaultMaxTotal = 64 << 20
	// DefaultMaxCompressed bounds the compressed input read into memory.
	DefaultMaxCompressed = 512 << 20
	// DefaultMaxWindow is the largest zstd window accepted. It equals the
	// writer's window (EncoderWindow), so every bundle dshaudit writes
	// fits and a decoder never needs more than 8 MiB of history.
	DefaultMaxWindow = EncoderWindow
	// DefaultMaxPathLen bounds an entry name in bytes.
	DefaultMaxPathLen = manifest.MaxPathLen
)

// Limits bound what Read accepts and allocates. Every field must be
// positive; use DefaultLimits and change what you need.
type Limits struct {
	// MaxEntries is the most archive entries, manifest and signature
	// included.
	MaxEntries int
	// MaxEntrySize is the largest size of one entry, in bytes.
	MaxEntrySize int64
	// MaxTotal is the largest sum of entry sizes, in bytes.
	MaxTotal int64
	// MaxCompressed is the largest compressed input, in bytes.
	MaxCompressed int64
	// MaxWindow is the largest zstd window, in bytes.
	MaxWindow uint64
	// MaxPathLen is the longest entry name, in bytes.
	MaxPathLen int
}

// DefaultLimits returns the documented default limits.
func DefaultLimits() Limits {
	return Limits{
		MaxEntries:    DefaultMaxEntries,
		MaxEntrySize:  DefaultMaxEntrySize,
		MaxTotal:      DefaultMaxTotal,
		MaxCompressed: DefaultMaxCompressed,
		MaxWindow:     DefaultMaxWindow,
		MaxPathLen:    DefaultMaxPathLen,
	}
}

// validate refuses zero, negative and inconsistent limits rather than
// guessing what a zero was meant to say.
func (l Limits) validate() error {
	switch {
	case l.MaxEntries < 1:
		return fmt.Errorf("%w: MaxEntries %d < 1", ErrLimits, l.MaxEntries)
	case l.MaxEntrySize < 1:
		return fmt.Errorf("%w: MaxEntrySize %d < 1", ErrLimits, l.MaxEntrySize)
	case l.MaxTotal < l.MaxEntrySize:
		return fmt.Errorf("%w: MaxTotal %d < MaxEntrySize %d", ErrLimits, l.MaxTotal, l.MaxEntrySize)
	case l.MaxCompressed < 1:
		return fmt.Errorf("%w: MaxCompressed %d < 1", ErrLimits, l.MaxCompressed)
	case l.MaxWindow < zstd.MinWindowSize || l.MaxWindow > zstd.MaxWindowSize:
		return fmt.Errorf("%w: MaxWindow %d outside [%d, %d]", ErrLimits, l.MaxWindow, zstd.MinWindowSize, zstd.MaxWindowSize)
	case l.MaxPathLen < 1:
		return fmt.Errorf("%w: MaxPathLen %d < 1", ErrLimits, l.MaxPathLen)
	}
	return nil
}
