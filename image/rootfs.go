package image

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// DESIGN.md "Sandbox image", base root filesystem.

// Debootstrap defaults: the base root filesystem is Debian bookworm,
// minbase variant, from the Debian mirror.
const (
	DefaultSuite  = "bookworm"
	DefaultMirror = "http://deb.debian.org/debian"
)

// rootfsExclude drops what a root filesystem must not carry into the
// image, and what debootstrap writes differently on every run (measured by
// diffing two debootstraps of the same day: only these differ):
//   - var/log/* files: timestamps of the install (dpkg.log, bootstrap.log,
//     alternatives.log, apt logs);
//   - var/cache/ldconfig/aux-cache: ldconfig's cache of file times, rebuilt
//     on demand.
//
// dev, proc and sys keep their directory but not their contents: the
// runtime mounts them.
func rootfsExclude(p string, mode fs.FileMode) bool {
	if p == "var/cache/ldconfig/aux-cache" {
		return true
	}
	if strings.HasPrefix(p, "var/log/") && !mode.IsDir() {
		return true
	}
	return false
}

func rootfsKeepDirOnly(p string) bool {
	return p == "dev" || p == "proc" || p == "sys"
}

// RootfsOptions is how a base root filesystem is read into a layer.
var RootfsOptions = DirOptions{Owners: OwnerPreserve, Exclude: rootfsExclude, KeepDirOnly: rootfsKeepDirOnly}

// AddRootfs adds a base root filesystem from a directory or a tarball
// (plain, gzip or zstd). spoolDir receives a temporary spool for tarball
// contents; the returned cleanup removes it after the layer is written.
func (t *Tree) AddRootfs(src, spoolDir string) (cleanup func(), err error) {
	fi, err := os.Stat(src)
	if err != nil {
		return func() {}, fmt.Errorf("base rootfs %q: %w", src, err)
	}
	if fi.IsDir() {
		if _, err := os.Stat(filepath.Join(src, "bin")); err != nil {
			if _, err2 := os.Stat(filepath.Join(src, "usr", "bin")); err2 != nil {
				return func() {}, fmt.Errorf("base rootfs %q has neither bin nor usr/bin: %w", src, ErrBadInput)
			}
		}
		return func() {}, t.AddDir(src, "", RootfsOptions)
	}
	f, err := os.Open(src)
	if err != nil {
		return func() {}, fmt.Errorf("base rootfs %q: %w", src, err)
	}
	defer f.Close()
	spool, err := os.CreateTemp(spoolDir, "rootfs-spool-*")
	if err != nil {
		return func() {}, err
	}
	cleanup = func() { spool.Close(); os.Remove(spool.Name()) }
	if err := t.AddTar(f, spool, RootfsOptions); err != nil {
		cleanup()
		return func() {}, fmt.Errorf("base rootfs %q: %w", src, err)
	}
	return cleanup, nil
}

// Debootstrap creates a Debian minbase root filesystem at dir (which must
// not exist) with debootstrap, writing into dir+".partial" first so an
// interrupted run leaves no half-made root filesystem behind.
func Debootstrap(ctx context.Context, dir, suite, mirror string, log io.Writer) error {
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("debootstrap target %q already exists: %w", dir, ErrBadInput)
	}
	bin, err := exec.LookPath("debootstrap")
	if err != nil {
		return fmt.Errorf("debootstrap not found on PATH (apt-get install -y debootstrap, or run scripts/setup.sh): %w", ErrBadInput)
	}
	partial := dir + ".partial"
	if err := os.RemoveAll(partial); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	fmt.Fprintf(log, "image: debootstrap --variant=minbase %s %s %s\n", suite, partial, mirror)
	cmd := exec.CommandContext(ctx, bin, "--variant=minbase", suite, partial, mirror)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("debootstrap %s: %w", suite, err)
	}
	return os.Rename(partial, dir)
}
