package verify

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"golang.org/x/sync/semaphore"

	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/rules"
)

// TestBudgetWeights: a bundle takes from the content pool what its frame
// declares, the whole pool when it declares nothing or too much, and from
// the parse pool parseCostFactor times its largest file, capped at what
// the rules parse (DESIGN.md "Many bundles").
func TestBudgetWeights(t *testing.T) {
	b := NewBudget(bundle.Limits{}, rules.Limits{})
	lim := bundle.DefaultLimits()
	if want := lim.MaxTotal + int64(lim.MaxWindow); b.contentCap != want {
		t.Fatalf("content pool %d, want MaxTotal + MaxWindow = %d", b.contentCap, want)
	}
	if want := int64(parseCostFactor * rules.DefaultMaxDumpSize); b.parseCap != want {
		t.Fatalf("parse pool %d, want %d", b.parseCap, want)
	}
	raw, err := os.ReadFile(filepath.Join(vectorsDir, "pass.dshaudit.tar.zst"))
	if err != nil {
		t.Fatal(err)
	}
	size, window, ok := bundle.DeclaredSize(raw)
	if !ok || size == 0 || window == 0 {
		t.Fatalf("the pass vector declares no size: %d %d %v", size, window, ok)
	}
	if got := b.contentWeight(raw[:bundle.MaxFrameHeaderSize]); got != int64(size+window) {
		t.Errorf("pass vector: weight %d, want %d + %d", got, size, window)
	}
	arc, err := bundle.Read(bytes.NewReader(raw), lim)
	if err != nil {
		t.Fatal(err)
	}
	largest := 0
	for _, f := range arc.Files {
		largest = max(largest, len(f))
	}
	if got := b.parseWeight(arc); got != int64(parseCostFactor*largest) || got > b.parseCap/8 {
		t.Errorf("pass vector: parse weight %d, want %d × %d, at most an eighth of the pool", got, parseCostFactor, largest)
	}
	arc.Files["repetitions/1/T1/stdout"] = make([]byte, 60<<20)
	if got := b.parseWeight(arc); got != b.parseCap {
		t.Errorf("a 60 MiB log: parse weight %d, want the pool, %d", got, b.parseCap)
	}

	// A frame without a declared size (a streaming writer's) and one that
	// declares more than the pool take the whole pool.
	var stream bytes.Buffer
	enc, _ := zstd.NewWriter(&stream)
	enc.Write([]byte("hello"))
	enc.Close()
	if _, _, ok := bundle.DeclaredSize(stream.Bytes()); ok {
		t.Fatal("a streaming frame declares a size")
	}
	for name, hdr := range map[string][]byte{
		"no size":  stream.Bytes(),
		"too much": declaring(t, uint64(b.contentCap)),
		"garbage":  []byte("not zstd"),
		"nothing":  nil,
	} {
		if got := b.contentWeight(hdr); got != b.contentCap {
			t.Errorf("%s: weight %d, want the pool, %d", name, got, b.contentCap)
		}
	}
}

// declaring returns a frame header declaring size bytes.
func declaring(t *testing.T, size uint64) []byte {
	t.Helper()
	enc, _ := zstd.NewWriter(nil)
	var out bytes.Buffer
	enc.ResetContentSize(&out, int64(size))
	enc.Write([]byte("x")) // the header is written with the first block
	enc.Flush()
	if got, _, ok := bundle.DeclaredSize(out.Bytes()); !ok || got != size {
		t.Fatalf("header declares %d %v, want %d", got, ok, size)
	}
	return out.Bytes()
}

// TestEachWithTightBudget: verifications that each need most of a pool
// still all finish, with more workers than fit at once (no deadlock
// between the pools), and an interrupted batch returns.
func TestEachWithTightBudget(t *testing.T) {
	paths, pol := validVectorPaths(t)
	paths = append(paths, paths...)
	paths = append(paths, paths...)
	// Pools so small that every bundle takes the whole content pool and
	// about a whole parse pool.
	budget := NewBudget(bundle.Limits{}, rules.Limits{})
	budget.contentCap, budget.parseCap = 1, 1
	budget.content, budget.parse = semaphore.NewWeighted(1), semaphore.NewWeighted(1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	n := 0
	Each(ctx, paths, Options{Policy: pol, Budget: budget}, 8, func(it Item) {
		n++
		if it.Report == nil || !it.Report.OK() {
			t.Errorf("%s: not verified: %s", it.Path, it.Error)
		}
	})
	if n != len(paths) || ctx.Err() != nil {
		t.Fatalf("%d of %d items, ctx %v", n, len(paths), ctx.Err())
	}

	// A held pool and a cancelled context: every bundle is reported
	// interrupted, none waits for ever; each pool is taken.
	for name, pool := range map[string]*semaphore.Weighted{"content": budget.content, "parse": budget.parse} {
		pool.Acquire(context.Background(), 1)
		ctx, cancel := context.WithCancel(context.Background())
		go func() { time.Sleep(100 * time.Millisecond); cancel() }()
		n := 0
		Each(ctx, paths[:4], Options{Policy: pol, Budget: budget}, 2, func(it Item) {
			n++
			if it.Report != nil {
				t.Errorf("%s verified while the %s pool was held", it.Path, name)
			}
		})
		if n != 4 {
			t.Fatalf("%s pool held: %d of 4 items after the interrupt", name, n)
		}
		pool.Release(1)
	}
}

// The parse pool is sized by the largest input a rule parses whole: the
// dump limit or MaxStaticInput, whichever is larger (SPEC.md "Many
// bundles").
func TestMaxParsedInputFollowsRuleLimits(t *testing.T) {
	for _, c := range []struct {
		rl   rules.Limits
		want int64
	}{
		{rules.Limits{}, 256 << 10},
		{rules.DefaultLimits(), 256 << 10},
		{rules.Limits{MaxStaticInput: 1 << 20}, 1 << 20},
		{rules.Limits{MaxStaticInput: 1 << 10}, 256 << 10},
		{rules.Limits{MaxDumpSize: 2 << 20, MaxStaticInput: 1 << 20}, 2 << 20},
	} {
		if got := maxParsedInput(c.rl); got != c.want {
			t.Errorf("maxParsedInput(%+v) = %d, want %d", c.rl, got, c.want)
		}
	}
}
