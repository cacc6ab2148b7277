package faulttest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
)

// TestFaultImageCacheDiskFull puts the image cache on a tmpfs holding
// the cached layers and downloads but too small for the image's OCI
// layout: image build stops with exit 3 naming the cause and leaves no
// half layout; after the disk is grown the next build uses the same
// cached layers (not one rewritten) and gives the same digest.
func TestFaultImageCacheDiskFull(t *testing.T) {
	s := setup(t)
	src := e2etest.CacheDir()
	cache := filepath.Join(t.TempDir(), "cache")
	if err := os.Mkdir(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	var need int64
	for _, d := range []string{"layers", "npm"} {
		need += duBytes(t, filepath.Join(src, d))
	}
	size := need + 24<<20 // the layers fit, the layout (about their size again) does not
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+itoa64(size), "tmpfs", cache).CombinedOutput(); err != nil {
		t.Fatalf("mount -t tmpfs (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", cache).Run() })
	for _, d := range []string{"layers", "npm"} {
		if out, err := exec.Command("cp", "-a", filepath.Join(src, d), cache+"/").CombinedOutput(); err != nil {
			t.Fatalf("copy the cache's %s: %v %s", d, err, out)
		}
	}
	layersBefore := snapshot(t, filepath.Join(cache, "layers"))

	start := time.Now()
	code, out, errs := s.run(t, "image", "build", "--cache-dir", cache, "--json")
	lines := nonProgress(errs)
	t.Logf("full cache: exit %d after %.1fs: %q", code, time.Since(start).Seconds(), lines)
	if code != 3 || out != "" || len(lines) != 1 || !strings.Contains(lines[0], "no space left on device") || !strings.Contains(lines[0], cache) || !strings.Contains(lines[0], "the cache is intact") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 3 and one line naming %s and no space left", code, out, lines, cache)
	}
	if m, _ := filepath.Glob(filepath.Join(cache, "images", "*")); len(m) != 0 {
		t.Errorf("left in the cache's images/: %v (no half layout)", m)
	}

	if out, err := exec.Command("mount", "-o", "remount,size="+itoa64(3*size), cache).CombinedOutput(); err != nil {
		t.Fatalf("grow the tmpfs: %v %s", err, out)
	}
	code, out, errs = s.run(t, "image", "build", "--cache-dir", cache, "--json")
	var res struct {
		Ref string `json:"ref"`
	}
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil {
		t.Fatalf("the next build: exit %d, %v\n%s%s", code, err, out, errs)
	}
	if want := strings.TrimSpace(readFile(t, filepath.Join(src, "sandbox-image.ref"))); !strings.HasSuffix(want, "@"+strings.SplitN(res.Ref, "@", 2)[1]) {
		t.Errorf("the next build gave %s, the cache's image is %s", res.Ref, want)
	}
	if after := snapshot(t, filepath.Join(cache, "layers")); !equalMaps(layersBefore, after) {
		t.Errorf("the cached layers changed: the full disk spoiled the cache")
	}
}

func duBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += (fi.Size() + 4095) &^ 4095
		}
		return nil
	})
	return n
}

// snapshot maps each file to its size and modification time.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			m[p] = itoa64(fi.Size()) + " " + fi.ModTime().String()
		}
		return nil
	})
	return m
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func itoa64(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// nonProgress drops image build's progress lines (they start with a
// bracketed time or "image:").
func nonProgress(stderr string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if strings.HasPrefix(l, "dshaudit:") {
			out = append(out, l)
		}
	}
	return out
}
