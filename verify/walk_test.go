package verify

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/dshaudit/dshaudit/manifest"
)

// Walk verifies regular bundle files, passes over other regular files,
// follows a link given by name, and reports every symbolic link, special
// file and unreadable entry under a directory, never skipping one
// silently. SPEC.md "Many bundles".
func TestWalkReportsWhatItSkips(t *testing.T) {
	dir := t.TempDir()
	write := func(p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "a"+manifest.BundleSuffix))
	write(filepath.Join(dir, "sub", "b"+manifest.BundleSuffix))
	write(filepath.Join(dir, "notes.txt"))
	outside := t.TempDir()
	write(filepath.Join(outside, "c"+manifest.BundleSuffix))
	if err := os.Symlink(filepath.Join(outside, "c"+manifest.BundleSuffix), filepath.Join(dir, "link"+manifest.BundleSuffix)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nowhere", filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"+manifest.BundleSuffix), 0o644); err != nil {
		t.Fatal(err)
	}
	bundles, skipped, err := Walk([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a"+manifest.BundleSuffix), filepath.Join(dir, "sub", "b"+manifest.BundleSuffix)}
	if !slices.Equal(bundles, want) {
		t.Errorf("bundles %q, want %q", bundles, want)
	}
	got := map[string]string{}
	for _, it := range skipped {
		if !it.Skipped || !strings.HasPrefix(it.Error, "not verified: ") {
			t.Errorf("skipped item %+v", it)
		}
		got[filepath.Base(it.Path)] = it.Error
	}
	for name, why := range map[string]string{
		"link" + manifest.BundleSuffix: "a symbolic link to", "linkdir": "not followed", "dangling": `"nowhere"`,
		"fifo" + manifest.BundleSuffix: "a named pipe, not a regular file",
	} {
		if !strings.Contains(got[name], why) {
			t.Errorf("%s: %q, want it to say %q", name, got[name], why)
		}
	}
	if len(skipped) != 4 {
		t.Errorf("%d skipped, want 4: %+v", len(skipped), skipped)
	}
	// Skipped entries are failures of the batch.
	if sum := Summarise(skipped); len(sum.Failed) != 4 || sum.Failed[0].Status != "skipped" || sum.Verified != 0 {
		t.Errorf("summary %+v", sum)
	}
	// Links given by name are followed: a file, and a directory.
	b, s, err := Walk([]string{filepath.Join(dir, "link"+manifest.BundleSuffix), filepath.Join(dir, "linkdir")})
	if err != nil || len(s) != 0 || len(b) != 2 {
		t.Errorf("links given: %q %+v %v", b, s, err)
	}
	// Expand refuses what Walk would skip, naming it.
	if _, err := Expand([]string{dir}); !errors.Is(err, ErrSkipped) || !strings.Contains(err.Error(), "fifo") {
		t.Errorf("Expand: %v", err)
	}
}

// A directory that cannot be read is reported and its siblings walked on
// (as root, permissions do not stop a read, so the error is given).
func TestWalkEntryUnreadable(t *testing.T) {
	var bundles []string
	var skipped []Item
	d := fs.FileInfoToDirEntry(dirInfo{})
	if r := walkEntry("/x/locked", d, fs.ErrPermission, &bundles, &skipped); r != fs.SkipDir {
		t.Errorf("returned %v, want SkipDir", r)
	}
	if r := walkEntry("/x/gone", nil, fs.ErrNotExist, &bundles, &skipped); r != nil {
		t.Errorf("returned %v, want nil", r)
	}
	if len(skipped) != 2 || !strings.Contains(skipped[0].Error, "cannot be read: permission denied") {
		t.Errorf("%+v", skipped)
	}
}

type dirInfo struct{ fs.FileInfo }

func (dirInfo) IsDir() bool       { return true }
func (dirInfo) Mode() fs.FileMode { return fs.ModeDir }
func (dirInfo) Name() string      { return "locked" }
