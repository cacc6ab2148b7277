package verify

import (
	"context"
	"maps"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/dshaudit/dshaudit/manifest"
)

// TestInOrderHoldsAtMostTheWindow blocks the first index until every
// other slot of the window has started: the results come out in order,
// and no more than aheadPerWorker × workers indices are ever started and
// not yet emitted, however many there are.
func TestInOrderHoldsAtMostTheWindow(t *testing.T) {
	const n, workers = 500, 3
	window := aheadPerWorker * workers
	var (
		mu        sync.Mutex
		pending   int // started, not yet emitted
		most      int
		others    int
		releaseAt = window - 1
		release   = make(chan struct{})
	)
	work := func(i int) int {
		mu.Lock()
		pending++
		most = max(most, pending)
		if i != 0 {
			others++
			if others == releaseAt {
				close(release)
			}
		}
		mu.Unlock()
		if i == 0 {
			<-release
		}
		return i * 7
	}
	var got []int
	inOrder(context.Background(), n, workers, work, func(i, v int) {
		if v != i*7 {
			t.Fatalf("index %d emitted with %d", i, v)
		}
		got = append(got, i)
		mu.Lock()
		pending--
		mu.Unlock()
	})
	if len(got) != n {
		t.Fatalf("%d emitted, want %d", len(got), n)
	}
	for i, g := range got {
		if g != i {
			t.Fatalf("emitted out of order at %d: %d", i, g)
		}
	}
	if most != window {
		t.Fatalf("at most %d started and not emitted; the window is %d", most, window)
	}
}

// TestInOrderInterrupted cancels part-way: every index is still emitted,
// in order; those started before the cancellation carry their result and
// none is started after it.
func TestInOrderInterrupted(t *testing.T) {
	const n, workers = 300, 2
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var started, startedAfter atomic.Int64
	var cancelled atomic.Bool
	k := 0
	inOrder(ctx, n, workers, func(i int) string {
		started.Add(1)
		if cancelled.Load() {
			startedAfter.Add(1)
		}
		return strconv.Itoa(i)
	}, func(i int, v string) {
		if i != k {
			t.Fatalf("emitted %d, want %d", i, k)
		}
		k++
		if i == 20 {
			cancelled.Store(true)
			cancel()
		}
		if v != "" && v != strconv.Itoa(i) {
			t.Fatalf("index %d emitted with %q", i, v)
		}
	})
	if k != n {
		t.Fatalf("%d emitted, want %d", k, n)
	}
	// Indices already handed to a worker when cancel ran may still start;
	// at most the window's worth.
	if s := started.Load(); s > 21+int64(aheadPerWorker*workers) {
		t.Fatalf("%d started after cancelling at 20", s)
	}
	if a := startedAfter.Load(); a > int64(aheadPerWorker*workers) {
		t.Fatalf("%d started after the cancellation", a)
	}
}

// TestEachUnreadable emits every path, in order, with why it could not
// be read, and an interrupted run names the bundles it did not verify.
func TestEachUnreadable(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range 40 {
		paths = append(paths, filepath.Join(dir, strconv.Itoa(100+i)+manifest.BundleSuffix))
	}
	var items []Item
	Each(context.Background(), paths, Options{}, 4, func(it Item) { items = append(items, it) })
	if len(items) != len(paths) {
		t.Fatalf("%d items", len(items))
	}
	for i, it := range items {
		if it.Path != paths[i] || it.Report != nil || it.Error == "" {
			t.Fatalf("item %d: %+v", i, it)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	items = All(ctx, paths, Options{}, 4)
	if len(items) != len(paths) {
		t.Fatalf("%d items after cancelling", len(items))
	}
	for i, it := range items {
		if it.Path != paths[i] || it.Error != "not verified: interrupted" {
			t.Fatalf("item %d after cancelling: %+v", i, it)
		}
	}
}

// TestStatusesListsEvery: Statuses holds verified and the status of
// every finding class, and nothing else.
func TestStatusesListsEvery(t *testing.T) {
	want := map[Status]bool{StatusVerified: true}
	for _, c := range classOrder {
		want[statusOf(c)] = true
	}
	got := map[Status]bool{}
	for _, s := range Statuses {
		got[s] = true
	}
	if len(got) != len(Statuses) || !maps.Equal(got, want) {
		t.Fatalf("Statuses %v, want the set %v", Statuses, want)
	}
}
