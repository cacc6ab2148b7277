package verify

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"sync"
)

// Item is one bundle of a batch: its report, or why it could not be read.
type Item struct {
	Path   string  `json:"path"`
	Report *Report `json:"report,omitempty"`
	Error  string  `json:"error,omitempty"`
	// Skipped: an entry under a walked directory that is not verified
	// (Walk); Error says what it is.
	Skipped bool `json:"-"`
}

// aheadPerWorker bounds how many bundles Each verifies ahead of the next
// one it hands on, per worker: a slow bundle lets the others run on, and
// memory stays bounded by the workers, not by the number of paths.
const aheadPerWorker = 4

// Each verifies every bundle with up to workers at once (GOMAXPROCS when
// workers < 1) and hands each item to emit, on the calling goroutine, in
// the order of paths, as soon as it and every item before it are done.
// At most aheadPerWorker × workers items are held at once, whatever the
// number of paths, and the verifications share one Budget (opts.Budget,
// or a new one for opts' limits), so that their memory together stays
// that of one verification of the largest bundle (SPEC.md "Many
// bundles"). Each decodes every bundle on its worker's goroutine
// (opts.DecodeAhead is ignored). Once ctx is done no bundle is
// started; each one not verified is emitted as "not verified:
// interrupted".
func Each(ctx context.Context, paths []string, opts Options, workers int, emit func(Item)) {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	if opts.Budget == nil {
		opts.Budget = NewBudget(opts.Limits, opts.RuleLimits)
	}
	opts.DecodeAhead = false // the workers fill the cores
	inOrder(ctx, len(paths), workers,
		func(i int) Item { return one(ctx, paths[i], opts) },
		func(i int, it Item) {
			if it.Path == "" {
				it = Item{Path: paths[i], Error: "not verified: interrupted"}
			}
			emit(it)
		})
}

// inOrder runs work(0) … work(n-1) on workers goroutines, starting none
// once ctx is done, and calls emit(i, result) on the calling goroutine in
// the order of i, each as soon as every earlier one is emitted; an index
// never started is emitted with the zero T. At most aheadPerWorker ×
// workers results are held or in progress at once.
func inOrder[T any](ctx context.Context, n, workers int, work func(int) T, emit func(int, T)) {
	type done struct {
		i int
		v T
	}
	window := aheadPerWorker * workers
	slots := make(chan struct{}, window) // one per index started, not yet emitted
	next := make(chan int)
	results := make(chan done, window)
	go func() {
		defer close(next)
		for i := range n {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			if ctx.Err() != nil {
				return
			}
			next <- i
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results <- done{i, work(i)}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	held := make(map[int]T, window)
	k := 0 // the next index to emit
	for r := range results {
		held[r.i] = r.v
		for {
			v, ok := held[k]
			if !ok {
				break
			}
			delete(held, k)
			emit(k, v)
			<-slots
			k++
		}
	}
	// Every started index was emitted above (they start in order and all
	// finish); the rest were never started.
	var zero T
	for ; k < n; k++ {
		emit(k, zero)
	}
}

// All is Each collected: every item, in the order of paths.
func All(ctx context.Context, paths []string, opts Options, workers int) []Item {
	items := make([]Item, 0, len(paths))
	Each(ctx, paths, opts, workers, func(it Item) { items = append(items, it) })
	return items
}

func one(ctx context.Context, path string, opts Options) Item {
	f, err := os.Open(path)
	if err != nil {
		return Item{Path: path, Error: err.Error()}
	}
	defer f.Close()
	rep, err := Verify(ctx, path, f, opts)
	if err != nil {
		return Item{Path: path, Error: err.Error()}
	}
	return Item{Path: path, Report: rep}
}

// Summary counts a batch (compare DSHIO/T 20 Annex B).
type Summary struct {
	Bundles  int `json:"bundles"`
	Verified int `json:"verified"`
	// ByVerdict counts verified bundles by Report.SummaryVerdict.
	ByVerdict map[string]int `json:"by_verdict"`
	// Failed lists every bundle that did not verify, and why.
	Failed []Failed `json:"failed"`
}

// Failed is one bundle of a batch that did not verify.
type Failed struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	Why    string `json:"why"`
}

// Summarise counts the items of a batch.
func Summarise(items []Item) Summary {
	var z Summariser
	for _, it := range items {
		z.Add(it)
	}
	return z.Summary()
}

// Summariser counts a batch one item at a time, keeping the counts and
// the failures only, so `verify DIR` need not keep the reports.
type Summariser struct {
	s Summary
}

// init makes the zero Summariser's summary: empty, never null, in JSON.
func (z *Summariser) init() {
	if z.s.ByVerdict == nil {
		z.s.ByVerdict, z.s.Failed = map[string]int{}, []Failed{}
	}
}

// Add counts one item.
func (z *Summariser) Add(it Item) {
	z.init()
	s := &z.s
	s.Bundles++
	switch {
	case it.Skipped:
		s.Failed = append(s.Failed, Failed{Path: it.Path, Status: "skipped", Why: it.Error})
	case it.Report == nil:
		s.Failed = append(s.Failed, Failed{Path: it.Path, Status: "unreadable", Why: it.Error})
	case !it.Report.OK():
		why := ""
		if len(it.Report.Findings) > 0 {
			why = it.Report.Findings[0].String()
			if n := len(it.Report.Findings); n > 1 {
				why += " (+" + strconv.Itoa(n-1) + " more)"
			}
		}
		s.Failed = append(s.Failed, Failed{Path: it.Path, Status: string(it.Report.Status), Why: why})
	default:
		s.Verified++
		s.ByVerdict[it.Report.SummaryVerdict()]++
	}
}

// Summary is the counts so far.
func (z *Summariser) Summary() Summary {
	z.init()
	return z.s
}
