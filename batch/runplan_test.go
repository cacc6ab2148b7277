package batch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/verify"
)

// failingScheduler is a scheduler whose pre-check fails.
type failingScheduler struct{ fakeScheduler }

func (*failingScheduler) Check(context.Context) error {
	return errors.New("slurmctld unreachable")
}

func planOptions(t *testing.T, sched Scheduler, out string, entries []Entry) PlanOptions {
	return PlanOptions{
		Entries: entries, Image: "x@sha256:" + strings.Repeat("0", 64), Digest: "sha256:" + strings.Repeat("0", 64),
		Scheduler: sched, Out: out, SigningKey: "k.pem", Dshaudit: "/nonexistent/dshaudit", ContainerEngine: "podman",
		Poll: DefaultPoll, Progress: func(line string) { t.Log(line) },
	}
}

// TestRunPlanErrorClasses checks that each failure before the tasks is
// classed for the exit code, with its own message unchanged.
func TestRunPlanErrorClasses(t *testing.T) {
	dir := t.TempDir()
	_, err := RunPlan(context.Background(), planOptions(t, &failingScheduler{}, filepath.Join(dir, "out"), nil))
	if !errors.Is(err, ErrEnvironment) || errors.Is(err, ErrOption) || err.Error() != "slurmctld unreachable" {
		t.Errorf("scheduler check: %v, want ErrEnvironment with the scheduler's message", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the output directory was made before the scheduler check failed: %v", err)
	}

	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = RunPlan(context.Background(), planOptions(t, newFake(t, nil), filepath.Join(file, "out"), nil))
	if !errors.Is(err, ErrOption) || !strings.HasPrefix(err.Error(), "--out \""+filepath.Join(file, "out")+"\": ") {
		t.Errorf("output directory under a file: %v, want ErrOption naming --out", err)
	}

	probeErr := errors.New("probe says no")
	o := planOptions(t, newFake(t, nil), filepath.Join(dir, "out"), nil)
	o.Probe = func(string) error { return probeErr }
	if _, err := RunPlan(context.Background(), o); err != probeErr {
		t.Errorf("probe: %v, want the probe's own error", err)
	}
}

// TestRunPlanUnresolvedSpec runs a plan whose one spec cannot be
// resolved: no task runs, the spec is reported unresolvable, and the
// empty output directory is verified.
func TestRunPlanUnresolvedSpec(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "not-a-plugin")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := ParseArgs([]string{empty})
	if err != nil {
		t.Fatal(err)
	}
	sched := newFake(t, nil)
	o := planOptions(t, sched, filepath.Join(dir, "out"), entries)
	o.Verify = verify.Options{}
	res, err := RunPlan(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Scheduler != "fake" || res.Dir != filepath.Join(dir, "out") {
		t.Errorf("scheduler %q, dir %q", res.Scheduler, res.Dir)
	}
	if len(res.Tasks) != 1 || res.Tasks[0].State != StateUnresolvable || res.Tasks[0].Spec != empty {
		t.Fatalf("tasks %+v, want the one spec unresolvable", res.Tasks)
	}
	if len(sched.jobs) != 0 || len(res.Bundles) != 0 || res.Summary.Bundles != 0 {
		t.Errorf("jobs %d, bundles %d, summary %+v: want none", len(sched.jobs), len(res.Bundles), res.Summary)
	}
}
