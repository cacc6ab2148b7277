package faulttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/internal/owner"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/runner"
)

// TestFaultKilledRun kills `dshaudit run` with SIGKILL during T4, which
// no handler sees, and checks that its container and temporary
// directories, still there, are removed by the next run and by nothing
// else's: the next run's own containers survive a concurrent `dshaudit
// cleanup`, and containers and directories of a live owner, of another
// host or without the label stay. While that next run is going, a second
// run with the same --out gets a clear error at once and leaves nothing
// (two writers), and the first writes its bundle whole.
func TestFaultKilledRun(t *testing.T) {
	s := setup(t)
	me, err := owner.Self()
	if err != nil {
		t.Fatal(err)
	}
	sfx := fmt.Sprintf("%d", time.Now().UnixNano()%1e9)
	// What no sweep may touch: a container of a live owner (this test),
	// one of another host, one with the prefix but no label; a live
	// owner's directory and an unmarked one.
	live := s.bystander(t, "dshaudit-fault-live-"+sfx, "--label", owner.Label+"="+me.String())
	otherHost := s.bystander(t, "dshaudit-fault-otherhost-"+sfx, "--label", owner.Label+"=elsewhere.example/"+me.Boot+"/1/1")
	unlabelled := s.bystander(t, "dshaudit-fault-nolabel-"+sfx)
	liveDir, err := owner.MkdirTemp(s.tmp, runner.TempPrefixProfile)
	if err != nil {
		t.Fatal(err)
	}
	oldDir := filepath.Join(s.tmp, runner.TempPrefixProfile+"123456")
	if err := os.Mkdir(oldDir, 0o755); err != nil {
		t.Fatal(err)
	}

	// A: killed with SIGKILL once its T4 container runs.
	outA := t.TempDir()
	a := s.start(t, s.runArgs("pass", filepath.Join(outA, "a"+manifest.BundleSuffix))...)
	a.waitLine(t, "repetition 1 T4 …", 3*time.Minute)
	victim := runningContainerOf(t, a.pid(), time.Minute)
	kill9(t, a.pid())
	a.wait(t, time.Minute)
	leftC, leftD := containersOf(t, a.pid()), s.tempOfPid(t, a.pid())
	t.Logf("after SIGKILL of pid %d: containers %v, temporary directories %v, beside --out %v", a.pid(), leftC, leftD, dirEntries(t, outA))
	if _, ok := leftC[victim]; !ok || len(leftD) < 2 {
		t.Fatalf("the fault was not injected: the killed run left containers %v and directories %v (want its T4 container %s and its profile directories)", leftC, leftD, victim)
	}

	// B: the next run sweeps A's leftovers before it starts.
	outB := t.TempDir()
	bundleB := filepath.Join(outB, "b"+manifest.BundleSuffix)
	b := s.start(t, s.runArgs("install-failed", bundleB)...)
	b.waitLine(t, "repetition 1 T1 …", 3*time.Minute)

	// While B runs: a second writer of B's --out stops at once ...
	code, stdout, stderr := s.run(t, s.runArgs("install-failed", bundleB)...)
	wantBusy := fmt.Sprintf("is held by another dshaudit run (pid %d on %s); wait for it to end or give another --out", b.pid(), me.Host)
	if code != 3 || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, wantBusy) {
		t.Errorf("second writer of %s: exit %d, stdout %q, stderr %q; want exit 3 and one line %q", bundleB, code, stdout, stderr, wantBusy)
	}
	t.Logf("second writer: %s", strings.TrimSpace(stderr))
	// ... and a cleanup leaves B's containers alone.
	code, stdout, stderr = s.run(t, "cleanup", "--json")
	var cr struct {
		Containers []struct {
			Name     string `json:"name"`
			OwnerPID int    `json:"owner_pid"`
		} `json:"containers"`
		Directories []struct {
			Path string `json:"path"`
		} `json:"directories"`
	}
	if err := json.Unmarshal([]byte(stdout), &cr); code != 0 || err != nil {
		t.Fatalf("cleanup during B: exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	for _, c := range cr.Containers {
		if c.OwnerPID == b.pid() {
			t.Errorf("cleanup removed container %s of the running pid %d", c.Name, b.pid())
		}
	}
	for _, d := range cr.Directories {
		if strings.Contains(d.Path, fmt.Sprintf(".%d.", b.pid())) {
			t.Errorf("cleanup removed directory %s of the running pid %d", d.Path, b.pid())
		}
	}

	if code := b.wait(t, 5*time.Minute); code != 1 {
		t.Fatalf("B: exit %d, want 1 (install_failed, bundle written):\n%s", code, b.stderr())
	}
	if want := "dshaudit: removed what killed dshaudit runs left: container " + victim; !strings.Contains(b.stderr(), want) {
		t.Errorf("B's stderr does not say %q:\n%s", want, b.stderr())
	}
	if code, out, errs := s.run(t, "verify", bundleB, "--key", s.pub); code != 0 {
		t.Errorf("B's bundle does not verify: exit %d\n%s%s", code, out, errs)
	}
	if got := dirEntries(t, outB); len(got) != 1 || got[0] != filepath.Base(bundleB) {
		t.Errorf("beside B's --out: %v, want the bundle alone (no lock, no temporary file)", got)
	}

	// Nothing of A or B is left; everything not theirs is.
	if c := containersOf(t, a.pid()); len(c) != 0 {
		t.Errorf("containers of the killed run left after the next run: %v", c)
	}
	if c := containersOf(t, b.pid()); len(c) != 0 {
		t.Errorf("containers of the next run left: %v", c)
	}
	if d := append(s.tempOfPid(t, a.pid()), s.tempOfPid(t, b.pid())...); len(d) != 0 {
		t.Errorf("temporary directories left: %v", d)
	}
	for _, n := range []string{live, otherHost, unlabelled} {
		if !exists(t, n) {
			t.Errorf("container %s, not a dead dshaudit's, was removed", n)
		}
	}
	for _, d := range []string{liveDir, oldDir} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("directory %s, not a dead dshaudit's, was removed: %v", d, err)
		}
	}
	// A's stale lock file (empty, unlocked) is all that is left beside
	// its --out; no bundle, no temporary file.
	for _, n := range dirEntries(t, outA) {
		if n != ".a"+manifest.BundleSuffix+".lock" {
			t.Errorf("beside the killed run's --out: %s", n)
		}
	}
}
