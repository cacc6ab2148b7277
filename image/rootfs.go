package image

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// DESIGN.md "Sandbox image", base root filesystem.

// Defaults of the Debian base (the lock records its own suite and mirror).
const (
	DefaultSuite  = "bookworm"
	DefaultMirror = "http://deb.debian.org/debian"
)

// RootfsRules says in the image record what rootfsExclude and
// rootfsKeepDirOnly drop.
const RootfsRules = "dev, proc, sys, run, tmp emptied; etc/resolv.conf, etc/hostname, etc/hosts, etc/machine-id, var/lib/dbus/machine-id, etc/apt/sources.list dropped; var/lib/apt/lists, var/cache/apt, var/cache/debconf *-old, var/lib/dpkg *-old dropped; var/log files and var/cache/ldconfig/aux-cache dropped; numeric owners kept"

// builderFiles are files of a root filesystem that describe the machine
// that made it, not the packages: the engine supplies resolv.conf, hosts
// and hostname at run time; machine-id is per machine; sources.list names
// the mirror the builder used (for the locked build, a local directory).
var builderFiles = map[string]bool{
	"etc/resolv.conf":              true,
	"etc/hostname":                 true,
	"etc/hosts":                    true,
	"etc/machine-id":               true,
	"var/lib/dbus/machine-id":      true,
	"etc/apt/sources.list":         true,
	"var/cache/ldconfig/aux-cache": true,
}

// builderDirs are directories whose contents depend on the day or the
// builder (apt's mirror index and download cache, logs); the directory
// itself stays.
var builderDirs = []string{"var/lib/apt/lists/", "var/cache/apt/", "var/log/"}

// rootfsExclude drops what a root filesystem must not carry into the
// image: builderFiles, the contents of builderDirs, and the "-old" backups
// dpkg and debconf keep of their own databases.
func rootfsExclude(p string, mode fs.FileMode) bool {
	if builderFiles[p] {
		return true
	}
	for _, d := range builderDirs {
		if strings.HasPrefix(p, d) && len(p) > len(d) {
			return true
		}
	}
	if (strings.HasPrefix(p, "var/cache/debconf/") || strings.HasPrefix(p, "var/lib/dpkg/")) && strings.HasSuffix(p, "-old") {
		return true
	}
	return false
}

func rootfsKeepDirOnly(p string) bool {
	return p == "dev" || p == "proc" || p == "sys" || p == "run" || p == "tmp"
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

// buildBase returns the base root filesystem layer: from o.Rootfs when
// given, else made by mmdebstrap from the Debian lock. The layer cache key
// is the rootfs diffID or the lock digest.
func buildBase(ctx context.Context, o Options, work string, lc layerCache, start time.Time) (LayerInfo, *DebianRec, bool, error) {
	if o.Rootfs != "" {
		t := NewTree()
		cleanup, err := t.AddRootfs(o.Rootfs, work)
		defer cleanup()
		if err != nil {
			return LayerInfo{}, nil, false, err
		}
		diff, _, err := TreeDiffID(t)
		if err != nil {
			return LayerInfo{}, nil, false, fmt.Errorf("base rootfs %q: %w", o.Rootfs, err)
		}
		stamp(o.Log, start, "base rootfs %s: %d entries, layer diffID %s", o.Rootfs, t.Len(), diff)
		key := keyOf(BuilderVersion, "rootfs", diff.String())
		if li, ok := lc.get(key, nil); ok {
			return li, nil, true, nil
		}
		li, err := lc.put(key, work, t, struct{}{})
		if err != nil {
			return LayerInfo{}, nil, false, fmt.Errorf("write base rootfs layer: %w", err)
		}
		return li, nil, false, nil
	}
	lock := o.Lock
	if lock == nil {
		var err error
		if lock, err = DefaultLock(); err != nil {
			return LayerInfo{}, nil, false, err
		}
	}
	digest, err := lock.Digest()
	if err != nil {
		return LayerInfo{}, nil, false, err
	}
	rec := &DebianRec{LockDigest: digest, Lock: *lock, PathFilters: dpkgPathExcludes, Bootstrapper: mmdebstrapCommand}
	key := keyOf(BuilderVersion, "debian-rootfs", digest, strings.Join(dpkgPathExcludes, "\n"))
	if li, ok := lc.get(key, nil); ok {
		return li, rec, true, nil
	}
	debCache := ""
	if o.CacheDir != "" {
		debCache = filepath.Join(o.CacheDir, "debs")
	}
	bwork := filepath.Join(work, "debian")
	defer RemoveTree(bwork)
	db := &DebianBase{Lock: lock, Mirror: o.DebianMirror, DebCache: debCache, Work: bwork, Log: o.Log, Client: o.Client}
	dir, err := db.Build(ctx)
	if err != nil {
		return LayerInfo{}, nil, false, err
	}
	t := NewTree()
	if err := t.AddDir(dir, "", RootfsOptions); err != nil {
		return LayerInfo{}, nil, false, err
	}
	stamp(o.Log, start, "debian base from lock %s: %d packages, %d entries", digest, len(lock.Packages), t.Len())
	li, err := lc.put(key, work, t, struct{}{})
	if err != nil {
		return LayerInfo{}, nil, false, fmt.Errorf("write base rootfs layer: %w", err)
	}
	return li, rec, false, nil
}

// RemoveTree removes dir after lazily unmounting anything still mounted
// below it (an interrupted mmdebstrap can leave /dev, /proc or a bind
// mount of the local repository behind; removing through them would reach
// the host).
func RemoveTree(dir string) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return
	}
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return // cannot tell what is mounted: leave the directory
	}
	var under []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && (f[4] == abs || strings.HasPrefix(f[4], abs+"/")) {
			under = append(under, f[4])
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(under)))
	for _, m := range under {
		if err := syscall.Unmount(m, syscall.MNT_DETACH); err != nil {
			return // still mounted: leave the directory
		}
	}
	os.RemoveAll(abs)
}
