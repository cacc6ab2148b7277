package faulttest

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/manifest"
)

// TestFaultEngineDies kills the container's monitor (podman's conmon)
// while T1 and while T4 run. What the client then reports is the
// engine's failure, not the plugin's: exit 3 "could not run", no bundle,
// and nothing left once the next command (cleanup) has run. T1 is the
// install-failed fixture's (its pnpm asks the registry, so the stage
// lasts long enough to be hit); without the engine's record check the
// client's 127 became the stage's install_failed (a bundle, exit 1).
func TestFaultEngineDies(t *testing.T) {
	s := setup(t)
	for _, c := range []struct{ stage, fixture string }{{"T1", "install-failed"}, {"T4", "pass"}} {
		t.Run(c.stage, func(t *testing.T) {
			out := t.TempDir()
			p := s.start(t, s.runArgs(c.fixture, filepath.Join(out, "b"+manifest.BundleSuffix))...)
			p.waitLine(t, "repetition 1 "+c.stage+" …", 3*time.Minute)
			name := runningContainerOf(t, p.pid(), time.Minute)
			pidOut, err := exec.Command("podman", "inspect", "--format", "{{.State.ConmonPid}}", name).Output()
			conmon, _ := strconv.Atoi(strings.TrimSpace(string(pidOut)))
			if err != nil || conmon <= 1 {
				t.Fatalf("conmon of %s: %q %v", name, pidOut, err)
			}
			if err := syscall.Kill(conmon, syscall.SIGKILL); err != nil {
				t.Fatalf("the fault was not injected: kill conmon %d of %s: %v", conmon, name, err)
			}
			start := time.Now()
			code := p.wait(t, 3*time.Minute)
			t.Logf("conmon %d of %s killed; dshaudit exit %d after %.1fs: %s", conmon, name, code, time.Since(start).Seconds(), p.lastLine())
			errs := p.errorLines()
			if code != 3 || len(errs) != 1 || !strings.Contains(errs[0], "could not run") || !strings.Contains(errs[0], "lost container "+name) ||
				!strings.Contains(errs[0], "not the plugin's result") || strings.Contains(p.stdout.String(), "install_failed") {
				t.Errorf("exit %d, stderr lines %q; want exit 3 and one line saying the engine lost the container, not the plugin's result\n%s", code, errs, p.stderr())
			}
			if got := dirEntries(t, out); len(got) != 0 {
				t.Errorf("beside --out: %v, want nothing", got)
			}
			// The next command removes whatever the run could not.
			if code, o, e := s.run(t, "cleanup"); code != 0 {
				t.Errorf("cleanup: exit %d\n%s%s", code, o, e)
			}
			if c := containersOf(t, p.pid()); len(c) != 0 {
				t.Errorf("containers left: %v", c)
			}
			if d := s.tempOfPid(t, p.pid()); len(d) != 0 {
				t.Errorf("temporary directories left: %v", d)
			}
		})
	}
}
