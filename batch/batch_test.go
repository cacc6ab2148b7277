package batch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func testTasks(dir string, specs ...string) []Task {
	var ts []Task
	for _, s := range specs {
		ts = append(ts, Task{Spec: s, RunSpec: s, Package: s + "@1.0.0", Bundle: filepath.Join(dir, s+"-1.0.0.img-000000000000.dshaudit.tar.zst")})
	}
	return ts
}

func testOptions(t *testing.T, dir string, sched Scheduler, retries int) Options {
	return Options{
		Dir: dir, WorkDir: dir, Scheduler: sched, Retries: retries, Backoff: time.Millisecond, Poll: 5 * time.Millisecond,
		Dshaudit: "/nonexistent/dshaudit", EngineTool: "podman",
		TaskArgs: func(t Task) []string { return []string{t.RunSpec, "--out=" + t.Bundle} },
		Check:    fakeCheck,
		Progress: func(line string) { t.Log(line) },
	}
}

func states(outs []Outcome) []string {
	var s []string
	for _, o := range outs {
		s = append(s, o.Spec+":"+o.State+":"+o.Verdict)
	}
	return s
}

func TestRunAllDone(t *testing.T) {
	dir := t.TempDir()
	sched := newFake(t, func(_ int, spec, _ string) (int, string, bool) {
		if spec == "a" {
			return 0, "ok pass", false
		}
		return 1, "ok boot_failed", false
	})
	outs, err := Run(context.Background(), testTasks(dir, "a", "b", "c"), testOptions(t, dir, sched, 2))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a:done:pass", "b:done:boot_failed", "c:done:boot_failed"}
	if got := states(outs); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got := sched.jobSizes(); !slices.Equal(got, []int{3}) {
		t.Fatalf("jobs %v, want one of 3 tasks", got)
	}
}

func TestRunSkipsBundlesThatVerify(t *testing.T) {
	dir := t.TempDir()
	tasks := testTasks(dir, "a", "b", "c")
	os.WriteFile(tasks[0].Bundle, []byte("ok pass"), 0o644)
	os.WriteFile(tasks[1].Bundle, []byte("tampered"), 0o644) // does not verify: runs again
	sched := newFake(t, func(int, string, string) (int, string, bool) { return 0, "ok pass", false })
	outs, err := Run(context.Background(), tasks, testOptions(t, dir, sched, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a:done earlier:pass", "b:done:pass", "c:done:pass"}
	if got := states(outs); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got := sched.jobSizes(); !slices.Equal(got, []int{2}) {
		t.Fatalf("jobs %v, want one of 2 tasks", got)
	}
	// Everything verifies now: a third run submits nothing.
	outs, err = Run(context.Background(), tasks, testOptions(t, dir, sched, 0))
	if err != nil {
		t.Fatal(err)
	}
	if got := sched.jobSizes(); !slices.Equal(got, []int{2}) {
		t.Fatalf("jobs %v after a re-run, want no new job", got)
	}
	for _, o := range outs {
		if o.State != StateSkipped {
			t.Fatalf("%s: %s, want %s", o.Spec, o.State, StateSkipped)
		}
	}
}

func TestRunRetriesFailedTasks(t *testing.T) {
	dir := t.TempDir()
	sched := newFake(t, func(attempt int, spec, _ string) (int, string, bool) {
		switch {
		case spec == "flaky" && attempt == 1:
			return 3, "", false // could not run
		case spec == "lost" && attempt == 1:
			return 0, "", true // node gone: no exit code
		case spec == "corrupt" && attempt == 1:
			return 0, "garbage", false // a bundle that does not verify
		}
		return 0, "ok pass", false
	})
	outs, err := Run(context.Background(), testTasks(dir, "ok", "flaky", "lost", "corrupt"), testOptions(t, dir, sched, 1))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ok:done:pass", "flaky:done:pass", "lost:done:pass", "corrupt:done:pass"}
	if got := states(outs); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got := sched.jobSizes(); !slices.Equal(got, []int{4, 3}) {
		t.Fatalf("jobs %v, want 4 tasks then the 3 that failed", got)
	}
	for _, o := range outs[1:] {
		if o.Attempts != 2 {
			t.Errorf("%s: %d attempts, want 2", o.Spec, o.Attempts)
		}
	}
}

func TestRunGivesUpAfterRetries(t *testing.T) {
	dir := t.TempDir()
	sched := newFake(t, func(int, string, string) (int, string, bool) { return 3, "", false })
	outs, err := Run(context.Background(), testTasks(dir, "a"), testOptions(t, dir, sched, 2))
	if err != nil {
		t.Fatal(err)
	}
	o := outs[0]
	if o.State != StateFailed || o.Attempts != 3 || o.Exit != 3 || o.Finished() {
		t.Fatalf("got %+v, want failed after 3 attempts with exit 3", o)
	}
	if !strings.Contains(o.Why, "exit 3: dshaudit: exit 3 for a") {
		t.Fatalf("why %q does not carry the task log's last line", o.Why)
	}
}

func TestRunDoesNotRetryWhatCannotChange(t *testing.T) {
	dir := t.TempDir()
	sched := newFake(t, func(_ int, spec, _ string) (int, string, bool) {
		if spec == "unknown" {
			return 1, "", false // T0 unresolvable: exit 1, no bundle
		}
		return 2, "", false // usage error on the node
	})
	outs, err := Run(context.Background(), testTasks(dir, "unknown", "usage"), testOptions(t, dir, sched, 3))
	if err != nil {
		t.Fatal(err)
	}
	if outs[0].State != StateUnresolvable || !outs[0].Finished() || outs[1].State != StateFailed {
		t.Fatalf("got %v", states(outs))
	}
	if got := sched.jobSizes(); !slices.Equal(got, []int{2}) {
		t.Fatalf("jobs %v, want no retry", got)
	}
}

func TestRunInterruptCancelsJobAndRemovesTemps(t *testing.T) {
	dir := t.TempDir()
	tasks := testTasks(dir, "a", "b")
	sched := newFake(t, func(int, string, string) (int, string, bool) { return 0, "ok pass", false })
	sched.hold = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	o := testOptions(t, dir, sched, 2)
	// A writer killed mid-write leaves its temporary file beside the
	// bundle (bundle.WriteFileAtomicContext's name).
	temp := filepath.Join(dir, "."+filepath.Base(tasks[0].Bundle)+".tmp-12345")
	o.Progress = func(line string) {
		t.Log(line)
		if strings.Contains(line, "running 2") {
			os.WriteFile(temp, []byte("half"), 0o644)
			cancel()
		}
	}
	outs, err := Run(ctx, tasks, o)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if !slices.Equal(sched.cancelled, []string{"1_-1"}) {
		t.Fatalf("cancelled %v, want the whole job 1", sched.cancelled)
	}
	for _, o := range outs {
		if o.State != StateCancelled {
			t.Fatalf("%s: %s, want cancelled", o.Spec, o.State)
		}
	}
	if _, err := os.Stat(temp); !os.IsNotExist(err) {
		t.Fatalf("temporary file left: %v", err)
	}
	close(sched.hold)
	sched.wg.Wait()
}

func TestRunRefusesADirectoryInUse(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, StateDirName), 0o755)
	unlock, err := lockDir(filepath.Join(dir, StateDirName))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	sched := newFake(t, nil)
	if _, err := Run(context.Background(), testTasks(dir, "a"), testOptions(t, dir, sched, 0)); !errors.Is(err, ErrBusy) {
		t.Fatalf("err %v, want ErrBusy", err)
	}
}
