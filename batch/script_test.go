package batch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeDshaudit writes a stand-in dshaudit that records its arguments and
// exits with code.
func fakeDshaudit(t *testing.T, dir, body string) string {
	p := filepath.Join(dir, "dshaudit")
	if err := os.WriteFile(p, []byte("#!/bin/bash\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// runLocal runs one job on the local scheduler until its tasks end.
func runLocal(t *testing.T, l *LocalScheduler, j Job) string {
	id, err := l.Submit(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		st, _ := l.States(context.Background(), id)
		if len(st) == 0 {
			return id
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("tasks did not end")
	return id
}

func TestTaskScriptRunsDshauditWithExactArguments(t *testing.T) {
	dir := t.TempDir()
	dsh := fakeDshaudit(t, dir, `printf '%s\n' "$@" > "$(dirname "$0")/got-$DSHAUDIT_BATCH_TASK"; exit 1`)
	args := [][]string{{"./it's a dir", "--out=/x y/b.tar.zst", "--repeat=1"}, {"name@1.0.0"}}
	state := filepath.Join(dir, "state")
	script, err := writeJob(state, dsh, "bash", args)
	if err != nil {
		t.Fatal(err)
	}
	runLocal(t, &LocalScheduler{}, Job{Dir: state, Script: script, Tasks: 2, Parallel: 2, WorkDir: dir})
	for k, want := range args {
		got, _ := os.ReadFile(filepath.Join(dir, "got-"+string(rune('0'+k))))
		if string(got) != "run\n"+strings.Join(want, "\n")+"\n" {
			t.Errorf("task %d: dshaudit got %q, want run %q", k, got, want)
		}
		if code, ok := readExit(state, k); !ok || code != 1 {
			t.Errorf("task %d: exit %d %v, want 1 written", k, code, ok)
		}
		if b, err := os.ReadFile(filepath.Join(state, "logs", string(rune('0'+k))+".start")); err != nil || !strings.Contains(string(b), "started ") {
			t.Errorf("task %d: start time not recorded: %q %v", k, b, err)
		}
	}
}

func TestTaskScriptPreflightFailsWithExit3(t *testing.T) {
	dir := t.TempDir()
	dsh := fakeDshaudit(t, dir, "exit 0")
	for _, c := range []struct{ name, dshaudit, engine, want string }{
		{"engine", dsh, "no-such-engine-dshaudit", "pre-flight failed: container engine no-such-engine-dshaudit not found"},
		{"dshaudit", filepath.Join(dir, "missing"), "bash", "pre-flight failed: dshaudit not found at " + filepath.Join(dir, "missing")},
	} {
		t.Run(c.name, func(t *testing.T) {
			state := filepath.Join(dir, "state-"+c.name)
			script, err := writeJob(state, c.dshaudit, c.engine, [][]string{{"x@1.0.0"}})
			if err != nil {
				t.Fatal(err)
			}
			runLocal(t, &LocalScheduler{}, Job{Dir: state, Script: script, Tasks: 1, WorkDir: dir})
			if code, ok := readExit(state, 0); !ok || code != ExitCouldNotRun {
				t.Fatalf("exit %d %v, want 3", code, ok)
			}
			if got := logTail(state, 0); !strings.Contains(got, c.want) {
				t.Fatalf("log says %q, want %q", got, c.want)
			}
		})
	}
}

func TestLocalCancelStopsTheTaskProcessGroup(t *testing.T) {
	dir := t.TempDir()
	// The stand-in run traps SIGTERM as dshaudit does and records it.
	dsh := fakeDshaudit(t, dir, fmt.Sprintf(`trap 'echo term > %s; exit 130' TERM; touch %s; sleep 30 & wait`, shellQuote(filepath.Join(dir, "term")), shellQuote(filepath.Join(dir, "started"))))
	state := filepath.Join(dir, "state")
	script, err := writeJob(state, dsh, "bash", [][]string{{"x@1.0.0"}})
	if err != nil {
		t.Fatal(err)
	}
	l := &LocalScheduler{}
	id, err := l.Submit(context.Background(), Job{Dir: state, Script: script, Tasks: 1, WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 500; i++ {
		if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := l.Cancel(context.Background(), id, -1); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 500; i++ {
		if st, _ := l.States(context.Background(), id); len(st) == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st, _ := l.States(context.Background(), id); len(st) != 0 {
		t.Fatalf("task still there after cancel: %v", st)
	}
	// The task is gone once its script has exited; the run's trap may
	// still be writing (seen in CI: the file was not there yet). Wait
	// for it, within a bound.
	var b []byte
	for i := 0; i < 500; i++ {
		if b, err = os.ReadFile(filepath.Join(dir, "term")); err == nil && string(b) == "term\n" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil || string(b) != "term\n" {
		t.Fatalf("the run did not get SIGTERM within 5 s: %q %v", b, err)
	}
}

func TestTaskScriptPreflightAutoEngine(t *testing.T) {
	dir := t.TempDir()
	dsh := fakeDshaudit(t, dir, "exit 0")
	// A PATH with only what the script needs besides an engine.
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	for _, tool := range []string{"mv", "date", "hostname"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		os.Symlink(p, filepath.Join(bin, tool))
	}
	run := func(name string) (int, bool, string) {
		state := filepath.Join(dir, name)
		script, err := writeJob(state, dsh, "auto", [][]string{{"x@1.0.0"}})
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", script)
		cmd.Env = []string{"PATH=" + bin, "DSHAUDIT_BATCH_TASK=0"}
		out, _ := cmd.CombinedOutput()
		code, ok := readExit(state, 0)
		return code, ok, string(out)
	}
	if code, ok, out := run("none"); !ok || code != ExitCouldNotRun || !strings.Contains(out, "no container engine (podman or docker)") {
		t.Fatalf("no engine: exit %d %v, output %q", code, ok, out)
	}
	os.WriteFile(filepath.Join(bin, "docker"), []byte("#!/bin/sh\n"), 0o755)
	if code, ok, out := run("docker"); !ok || code != 0 {
		t.Fatalf("docker on PATH: exit %d %v, output %q", code, ok, out)
	}
}
