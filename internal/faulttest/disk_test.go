package faulttest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/manifest"
)

// fullTmpfs mounts a small tmpfs and fills it: not one more byte fits.
func fullTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "full")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount -t tmpfs (the disk-full fault needs root): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	for {
		if _, err = f.Write(buf); err != nil {
			break
		}
	}
	f.Close()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling %s: %v, want ENOSPC", dir, err)
	}
	return dir
}

// TestFaultDiskFull runs with --out on a full tmpfs: the run happens,
// the bundle cannot be written, exit 3 names the path and the cause, and
// nothing but the filler is left there (no partial bundle, no temporary
// file, no lock).
func TestFaultDiskFull(t *testing.T) {
	s := setup(t)
	dir := fullTmpfs(t, "256k")
	out := filepath.Join(dir, "b"+manifest.BundleSuffix)
	p := s.start(t, s.runArgs("install-failed", out)...)
	code := p.wait(t, 5*time.Minute)
	errs := p.errorLines()
	t.Logf("exit %d: %q", code, errs)
	if code != 3 || len(errs) != 1 || !strings.Contains(errs[0], "could not run") || !strings.Contains(errs[0], out) ||
		!strings.Contains(errs[0], "no space left on device") || !strings.Contains(errs[0], "no bundle written: free space in "+dir+" and run again") {
		t.Errorf("exit %d, stderr lines %q; want exit 3 and one line naming %s, no space left and no bundle written", code, errs, out)
	}
	if got := dirEntries(t, dir); len(got) != 1 || got[0] != "filler" {
		t.Errorf("left on the full disk: %v, want the filler alone", got)
	}
	if c := containersOf(t, p.pid()); len(c) != 0 {
		t.Errorf("containers left: %v", c)
	}
	if d := s.tempOfPid(t, p.pid()); len(d) != 0 {
		t.Errorf("temporary directories left: %v", d)
	}
}
