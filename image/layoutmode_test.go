package image

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
)

// modesOf lists every file and directory under dir whose permission
// bits are not 0644 (files) or 0755 (directories).
func modesOf(t *testing.T, dir string) []string {
	t.Helper()
	var bad []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o644)
		if d.IsDir() {
			want = 0o755
		}
		if fi.Mode().Perm() != want {
			rel, _ := filepath.Rel(dir, p)
			bad = append(bad, rel+" "+fi.Mode().Perm().String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

// TestLayoutsReadableByOthers: an OCI layout written by image build
// --oci-layout, the build cache's layout and its cached layer files are
// 0644 files in 0755 directories, whatever the umask (blobs were 0600).
func TestLayoutsReadableByOthers(t *testing.T) {
	r := smallImage(t, t.TempDir())
	lay := filepath.Join(t.TempDir(), "layout")
	must(t, WriteLayout(lay, r.Image, "localhost/x:1"))
	if bad := modesOf(t, lay); len(bad) > 0 {
		t.Errorf("--oci-layout: %v", bad)
	}
	cache := filepath.Join(t.TempDir(), "images", r.Digest.Hex)
	must(t, writeCachedImage(cache, r))
	if bad := modesOf(t, cache); len(bad) > 0 {
		t.Errorf("cache: %v", bad)
	}
	for _, li := range r.Layers {
		if fi, err := os.Stat(li.Path); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("layer file %s: %v %v", li.Path, fi.Mode(), err)
		}
	}
}

// TestSkopeoCopiesLayoutAsAnotherUser writes an OCI layout as this user
// (root) and has skopeo, run as nobody, copy it to another layout: it
// reads every blob, and the copy keeps the manifest digest.
func TestSkopeoCopiesLayoutAsAnotherUser(t *testing.T) {
	e2etest.Require(t, "skopeo", "setpriv")
	if os.Geteuid() != 0 {
		t.Fatal("this test runs skopeo as another user (nobody) and needs root to switch to it")
	}
	// A directory every user can enter (t.TempDir's are 0700).
	base, err := os.MkdirTemp("", "dshaudit-skopeo-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(base) })
	must(t, os.Chmod(base, 0o755))
	r := smallImage(t, t.TempDir())
	src := filepath.Join(base, "src")
	must(t, WriteLayout(src, r.Image, "localhost/x:1"))
	// Where nobody may write: the destination and a home.
	out := filepath.Join(base, "out")
	home := filepath.Join(base, "home")
	for _, d := range []string{out, home} {
		must(t, os.Mkdir(d, 0o755))
		must(t, os.Chown(d, 65534, 65534))
	}
	policy := filepath.Join(base, "policy.json")
	must(t, os.WriteFile(policy, []byte(`{"default":[{"type":"insecureAcceptAnything"}]}`), 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--",
		"skopeo", "--policy", policy, "copy", "oci:"+src+":localhost/x:1", "oci:"+filepath.Join(out, "copy")+":copy")
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + home}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("skopeo copy as nobody: %v\n%s", err, b)
	}
	var idx struct {
		Manifests []struct {
			Digest string `json:"digest"`
		} `json:"manifests"`
	}
	b, err := os.ReadFile(filepath.Join(out, "copy", "index.json"))
	must(t, err)
	must(t, json.Unmarshal(b, &idx))
	if len(idx.Manifests) != 1 || idx.Manifests[0].Digest != r.Digest.String() {
		t.Errorf("the copy's index names %s, want %s", strings.TrimSpace(string(b)), r.Digest)
	}

	// Control: with one blob 0600 again, nobody cannot copy it.
	blobs, err := filepath.Glob(filepath.Join(src, "blobs", "sha256", "*"))
	must(t, err)
	must(t, os.Chmod(blobs[0], 0o600))
	cmd = exec.CommandContext(ctx, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--",
		"skopeo", "--policy", policy, "copy", "oci:"+src+":localhost/x:1", "oci:"+filepath.Join(out, "control")+":copy")
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + home}
	if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "permission denied") {
		t.Errorf("control: skopeo as nobody copied a layout with a 0600 blob (err %v)\n%s", err, b)
	}
}
