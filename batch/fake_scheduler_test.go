package batch

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeScheduler is a scheduler for unit tests: a submitted task "runs" by
// calling behave with the task's attempt and arguments; what behave
// returns decides what the task leaves behind, as a real task would: a
// bundle at --out, an exit code in exit/<k>, or nothing (lost).
type fakeScheduler struct {
	t      *testing.T
	mu     sync.Mutex
	wg     sync.WaitGroup
	jobs   []Job
	states map[string]map[int]TaskState
	// hold keeps tasks RUNNING until released (nil: they end at once).
	hold      chan struct{}
	cancelled []string
	behave    func(attempt int, spec string, out string) (exit int, bundle string, lost bool)
	// perSpec counts attempts by spec.
	perSpec map[string]int
}

func newFake(t *testing.T, behave func(attempt int, spec, out string) (int, string, bool)) *fakeScheduler {
	return &fakeScheduler{t: t, states: map[string]map[int]TaskState{}, behave: behave, perSpec: map[string]int{}}
}

func (f *fakeScheduler) Name() string                    { return "fake" }
func (f *fakeScheduler) Check(ctx context.Context) error { return nil }

func (f *fakeScheduler) Submit(_ context.Context, j Job) (string, error) {
	f.mu.Lock()
	f.jobs = append(f.jobs, j)
	id := strconv.Itoa(len(f.jobs))
	st := map[int]TaskState{}
	for k := 0; k < j.Tasks; k++ {
		st[k] = TaskState{State: "RUNNING", Reason: "node1"}
	}
	f.states[id] = st
	f.mu.Unlock()
	for k := 0; k < j.Tasks; k++ {
		f.wg.Add(1)
		go func() { defer f.wg.Done(); f.run(id, j, k) }()
	}
	return id, nil
}

func (f *fakeScheduler) run(id string, j Job, k int) {
	raw, err := os.ReadFile(filepath.Join(j.Dir, "args", strconv.Itoa(k)))
	if err != nil {
		f.t.Error(err)
		return
	}
	args := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
	spec, out := args[0], ""
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--out="); ok {
			out = v
		}
	}
	if f.hold != nil {
		<-f.hold
	}
	f.mu.Lock()
	if _, alive := f.states[id][k]; !alive {
		f.mu.Unlock()
		return // cancelled: a killed task leaves nothing
	}
	f.perSpec[spec]++
	n := f.perSpec[spec]
	f.mu.Unlock()
	exit, content, lost := f.behave(n, spec, out)
	if content != "" {
		if err := os.WriteFile(out, []byte(content), 0o644); err != nil {
			f.t.Error(err)
		}
	}
	if !lost {
		_ = os.WriteFile(logPath(j.Dir, k), []byte("dshaudit: exit "+strconv.Itoa(exit)+" for "+spec+"\n"), 0o644)
		_ = os.WriteFile(filepath.Join(j.Dir, "exit", strconv.Itoa(k)), []byte(strconv.Itoa(exit)+"\n"), 0o644)
	}
	f.mu.Lock()
	delete(f.states[id], k)
	f.mu.Unlock()
}

func (f *fakeScheduler) States(_ context.Context, id string) (map[int]TaskState, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[int]TaskState{}
	for k, v := range f.states[id] {
		out[k] = v
	}
	return out, nil
}

func (f *fakeScheduler) Cancel(_ context.Context, id string, index int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancelled = append(f.cancelled, id+"_"+strconv.Itoa(index))
	if index < 0 {
		f.states[id] = map[int]TaskState{}
	} else {
		delete(f.states[id], index)
	}
	return nil
}

func (f *fakeScheduler) jobSizes() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	var n []int
	for _, j := range f.jobs {
		n = append(n, j.Tasks)
	}
	return n
}

// fakeCheck accepts a bundle whose content is "ok <verdict>".
func fakeCheck(_ context.Context, t Task) (string, error) {
	b, err := os.ReadFile(t.Bundle)
	if err != nil {
		return "", err
	}
	v, ok := strings.CutPrefix(string(b), "ok ")
	if !ok {
		return "", os.ErrInvalid
	}
	return v, nil
}
