package verify

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// BundleSuffix is the file name ending `verify DIR` looks for.
const BundleSuffix = ".dshaudit.tar.zst"

// Item is one bundle of a batch: its report, or why it could not be read.
type Item struct {
	Path   string  `json:"path"`
	Report *Report `json:"report,omitempty"`
	Error  string  `json:"error,omitempty"`
}

// Expand turns files and directories into the sorted list of bundle
// paths: a file is taken as given, a directory is walked for files whose
// names end in BundleSuffix.
func Expand(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && strings.HasSuffix(d.Name(), BundleSuffix) {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// All verifies every bundle with up to workers at once (GOMAXPROCS when
// workers < 1). Items come back in the order of paths.
func All(ctx context.Context, paths []string, opts Options, workers int) []Item {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	items := make([]Item, len(paths))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				items[i] = one(ctx, paths[i], opts)
			}
		}()
	}
	for i := range paths {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for i := range items {
		if items[i].Path == "" {
			items[i] = Item{Path: paths[i], Error: "not verified: interrupted"}
		}
	}
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
	// ByVerdict counts verified bundles by re-derived verdict code
	// ("static_only" for bundles without the dynamic layer).
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
	s := Summary{Bundles: len(items), ByVerdict: map[string]int{}, Failed: []Failed{}}
	for _, it := range items {
		switch {
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
			v := it.Report.DerivedVerdict
			if !it.Report.Dynamic {
				v = "static_only"
			}
			s.ByVerdict[v]++
		}
	}
	return s
}
