package verify

import (
	"context"

	"golang.org/x/sync/semaphore"

	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/rules/static"
)

// parseCostFactor is what a parse may cost per byte of its input, at
// most: a YAML node tree of a flow list of one-character scalars
// allocates about 120 times its text, JSON decoded into Go values about
// 60 (SPEC.md "T3 dump size limit"; SPEC-CHANGELOG.md, 1.6).
const parseCostFactor = 128

// maxParsedInput is the largest input any rule parses whole: the T3 dump
// limit or T0's bounds, whichever is larger.
func maxParsedInput(rl rules.Limits) int64 {
	n := rl.MaxDumpSize
	if n <= 0 {
		n = rules.DefaultMaxDumpSize
	}
	if rl.MaxStaticInput > 0 { // every T0 input's bound (static.Input.MaxInputBytes)
		return max(n, rl.MaxStaticInput)
	}
	return max(n, static.MaxPackageJSONBytes, static.MaxPatchBytes, static.MaxEntrySchemaBytes, static.MaxEntryDeclarationBytes)
}

// Budget bounds the memory that verifications running at once hold
// together, so that `verify DIR --jobs N` needs no more than one
// verification of the largest bundle the limits admit, whatever N and
// whatever the bundles hold (DESIGN.md "Many bundles"). It has two pools,
// always taken in the same order and each request within its pool, so no
// set of verifications can wait on one another for ever:
//   - content: before a bundle is read, the decompressed size its zstd
//     frame declares plus its window (the decoder holds the frame to that
//     size), or the whole pool when it declares none;
//   - parse: before the verdicts are re-derived, parseCostFactor times
//     the largest evidence file, capped at what the rules parse.
//
// A typical bundle (about 60 KB, its largest file a 16 KB dump) takes
// about a five-hundredth of the content pool and a sixteenth of the parse
// pool, so up to 16 such verifications parse at once.
type Budget struct {
	content, parse       *semaphore.Weighted
	contentCap, parseCap int64
	maxParsed            int64
}

// NewBudget returns the budget of verifications with these limits (zero
// values are the defaults, as in Options).
func NewBudget(lim bundle.Limits, rl rules.Limits) *Budget {
	if lim == (bundle.Limits{}) {
		lim = bundle.DefaultLimits()
	}
	b := &Budget{maxParsed: maxParsedInput(rl)}
	b.contentCap = lim.MaxTotal + int64(min(lim.MaxWindow, 1<<40))
	b.parseCap = parseCostFactor * b.maxParsed
	b.content = semaphore.NewWeighted(b.contentCap)
	b.parse = semaphore.NewWeighted(b.parseCap)
	return b
}

// contentWeight is what reading a bundle whose frame header is hdr takes
// from the content pool.
func (b *Budget) contentWeight(hdr []byte) int64 {
	size, window, ok := bundle.DeclaredSize(hdr)
	if !ok || size >= uint64(b.contentCap) || window >= uint64(b.contentCap) {
		return b.contentCap
	}
	return min(int64(size)+int64(window), b.contentCap)
}

// parseWeight is what re-deriving the verdicts of arc takes from the
// parse pool.
func (b *Budget) parseWeight(arc *bundle.Archive) int64 {
	var largest int64
	for _, f := range arc.Files {
		largest = max(largest, min(int64(len(f)), b.maxParsed))
	}
	return min(max(parseCostFactor*largest, 1), b.parseCap)
}

// acquire takes n from pool and returns the func that gives it back, or
// ctx's error and no func.
func acquire(ctx context.Context, pool *semaphore.Weighted, n int64) (release func(), err error) {
	if err := pool.Acquire(ctx, n); err != nil {
		return nil, err
	}
	return func() { pool.Release(n) }, nil
}
