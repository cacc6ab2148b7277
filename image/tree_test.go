package image

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// makeSyntheticDir creates a tree with files, executables, a setuid file,
// a private directory, relative and absolute symlinks, a hard link, a FIFO
// and an empty directory, in the given creation order, with the given
// mtime and owner.
func makeSyntheticDir(t *testing.T, dir string, reverse bool, mtime time.Time, uid int) {
	t.Helper()
	type f struct {
		path string
		mode os.FileMode
		data string
	}
	files := []f{
		{"a.txt", 0o644, "alpha\n"},
		{"bin/tool", 0o755, "#!/bin/sh\necho tool\n"},
		{"bin/suid", 0o755, "suid\n"},
		{"private/secret", 0o600, "s\n"},
		{"z/deep/er/file.js", 0o644, strings.Repeat("x", 10000)},
		{"a-b.txt", 0o644, "sorts before a/\n"},
	}
	if reverse {
		sort.Slice(files, func(i, j int) bool { return files[i].path > files[j].path })
	}
	for _, x := range files {
		p := filepath.Join(dir, x.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(x.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, x.mode); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.Chmod(filepath.Join(dir, "private"), 0o700))
	must(t, os.Symlink("../a.txt", filepath.Join(dir, "bin", "rel-link")))
	must(t, os.Symlink("/etc/hostname", filepath.Join(dir, "abs-link")))
	must(t, os.Link(filepath.Join(dir, "bin", "tool"), filepath.Join(dir, "bin", "tool-hardlink")))
	must(t, os.MkdirAll(filepath.Join(dir, "empty"), 0o755))
	must(t, syscallMkfifo(filepath.Join(dir, "fifo")))
	// owners and times differ between the copies; the layer must not.
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		os.Lchown(p, uid, uid)
		if fi.Mode()&os.ModeSymlink == 0 {
			os.Chtimes(p, mtime, mtime)
		}
		return nil
	})
	// after chown, which clears setuid
	must(t, os.Chmod(filepath.Join(dir, "bin", "suid"), os.ModeSetuid|0o755))
	must(t, os.Chtimes(filepath.Join(dir, "bin", "suid"), mtime, mtime))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func tarOf(t *testing.T, tr *Tree) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := tr.WriteTar(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func headers(t *testing.T, b []byte) []*tar.Header {
	t.Helper()
	var hs []*tar.Header
	r := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := r.Next()
		if errors.Is(err, io.EOF) {
			return hs
		}
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
}

func TestDirLayerIsDeterministic(t *testing.T) {
	if os.Getuid() != 0 {
		t.Fatal("this test chowns files and must run as root (the project's machines run as root)")
	}
	d1, d2 := t.TempDir(), t.TempDir()
	makeSyntheticDir(t, d1, false, time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC), 1000)
	makeSyntheticDir(t, d2, true, time.Date(2025, 6, 7, 8, 9, 10, 0, time.UTC), 0)

	build := func(dir string) []byte {
		tr := NewTree()
		must(t, tr.AddDir(dir, "/opt/x", DirOptions{}))
		return tarOf(t, tr)
	}
	b1, b2 := build(d1), build(d2)
	if !bytes.Equal(b1, b2) {
		t.Fatalf("same content, different creation order/times/owners gave different tars (%d vs %d bytes)", len(b1), len(b2))
	}
	if !bytes.Equal(b1, build(d1)) {
		t.Fatal("two writes of the same tree differ")
	}

	hs := headers(t, b1)
	var names []string
	byName := map[string]*tar.Header{}
	for _, h := range hs {
		names = append(names, h.Name)
		byName[h.Name] = h
		if !h.ModTime.Equal(Epoch) {
			t.Errorf("%s: mtime %v, want %v", h.Name, h.ModTime, Epoch)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: owner %d/%d %q/%q, want 0/0 and no names", h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
		}
	}
	if !sort.StringsAreSorted(names) {
		t.Errorf("entries not in byte order: %v", names)
	}
	want := map[string]struct {
		typ  byte
		mode int64
		link string
	}{
		"opt/":                    {tar.TypeDir, 0o755, ""},
		"opt/x/":                  {tar.TypeDir, 0o755, ""},
		"opt/x/a.txt":             {tar.TypeReg, 0o644, ""},
		"opt/x/bin/tool":          {tar.TypeReg, 0o755, ""},
		"opt/x/bin/tool-hardlink": {tar.TypeLink, 0o755, "opt/x/bin/tool"},
		"opt/x/bin/suid":          {tar.TypeReg, 0o4755, ""},
		"opt/x/bin/rel-link":      {tar.TypeSymlink, 0o777, "../a.txt"},
		"opt/x/abs-link":          {tar.TypeSymlink, 0o777, "/etc/hostname"},
		"opt/x/private/":          {tar.TypeDir, 0o700, ""},
		"opt/x/empty/":            {tar.TypeDir, 0o755, ""},
		"opt/x/fifo":              {tar.TypeFifo, 0o644, ""},
	}
	for n, w := range want {
		h, ok := byName[n]
		if !ok {
			t.Errorf("missing entry %q (have %v)", n, names)
			continue
		}
		if h.Typeflag != w.typ || h.Mode&0o7777 != w.mode || h.Linkname != w.link {
			t.Errorf("%s: type %c mode %o link %q, want %c %o %q", n, h.Typeflag, h.Mode, h.Linkname, w.typ, w.mode, w.link)
		}
	}
	// "a-b.txt" sorts before "a.txt" and "a/" prefixes sort before children.
	if i, j := indexOf(names, "opt/x/a-b.txt"), indexOf(names, "opt/x/a.txt"); i < 0 || i > j {
		t.Errorf("byte order wrong: %v", names)
	}
}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

func TestPreserveOwners(t *testing.T) {
	if os.Getuid() != 0 {
		t.Fatal("must run as root")
	}
	d := t.TempDir()
	makeSyntheticDir(t, d, false, time.Now(), 42)
	tr := NewTree()
	must(t, tr.AddDir(d, "", DirOptions{Owners: OwnerPreserve}))
	for _, h := range headers(t, tarOf(t, tr)) {
		if h.Uid != 42 || h.Gid != 42 {
			t.Errorf("%s: owner %d/%d, want 42/42 kept", h.Name, h.Uid, h.Gid)
		}
		if h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: user/group names written", h.Name)
		}
	}
}

// A tarball input is rewritten to the same bytes as the directory it
// came from, whatever its order, times and names.
func TestTarInputMatchesDir(t *testing.T) {
	d := t.TempDir()
	makeSyntheticDir(t, d, false, time.Now(), 0)
	fromDir := NewTree()
	must(t, fromDir.AddDir(d, "", RootfsOptions))

	// a tar in reverse order with real times and names, hard link after
	// its target as tar requires.
	var in bytes.Buffer
	tw := tar.NewWriter(&in)
	var paths []string
	filepath.Walk(d, func(p string, fi os.FileInfo, err error) error {
		if p != d {
			paths = append(paths, p)
		}
		return nil
	})
	sort.Sort(sort.Reverse(sort.StringSlice(paths)))
	// directories first so hard-link targets precede links: move tool before tool-hardlink
	seen := map[string]string{}
	for _, p := range paths {
		fi, err := os.Lstat(p)
		must(t, err)
		link := ""
		if fi.Mode()&os.ModeSymlink != 0 {
			link, _ = os.Readlink(p)
		}
		h, err := tar.FileInfoHeader(fi, link)
		must(t, err)
		rel, _ := filepath.Rel(d, p)
		h.Name = "./" + rel
		h.Uname, h.Gname = "someone", "somegroup"
		if fi.Mode().IsRegular() && strings.Contains(rel, "tool") {
			if first, ok := seen["tool"]; ok {
				h.Typeflag, h.Linkname, h.Size = tar.TypeLink, first, 0
				must(t, tw.WriteHeader(h))
				continue
			}
			seen["tool"] = "./" + rel
		}
		must(t, tw.WriteHeader(h))
		if h.Typeflag == tar.TypeReg {
			b, err := os.ReadFile(p)
			must(t, err)
			tw.Write(b)
		}
	}
	must(t, tw.Close())
	spool, err := os.CreateTemp(t.TempDir(), "spool")
	must(t, err)
	defer spool.Close()
	fromTar := NewTree()
	must(t, fromTar.AddTar(&in, spool, RootfsOptions))
	a, b := tarOf(t, fromDir), tarOf(t, fromTar)
	// The hard-link group's primary is the first in path order in both.
	if !bytes.Equal(a, b) {
		ha, hb := headers(t, a), headers(t, b)
		for i := 0; i < len(ha) && i < len(hb); i++ {
			if ha[i].Name != hb[i].Name || ha[i].Typeflag != hb[i].Typeflag || ha[i].Linkname != hb[i].Linkname || ha[i].Mode != hb[i].Mode {
				t.Errorf("entry %d: dir %q %c %q %o, tar %q %c %q %o", i, ha[i].Name, ha[i].Typeflag, ha[i].Linkname, ha[i].Mode, hb[i].Name, hb[i].Typeflag, hb[i].Linkname, hb[i].Mode)
			}
		}
		t.Fatalf("tar input and dir input differ (%d vs %d entries)", len(ha), len(hb))
	}
}

func TestRootfsRules(t *testing.T) {
	d := t.TempDir()
	for _, p := range []string{"usr/bin/sh", "var/log/dpkg.log", "var/log/apt/history.log", "var/cache/ldconfig/aux-cache", "dev/null-ish", "proc/1/x", "etc/passwd",
		"etc/resolv.conf", "etc/hostname", "etc/hosts", "etc/machine-id", "var/lib/dbus/machine-id", "etc/apt/sources.list", "etc/apt/apt.conf.d/99x",
		"var/lib/apt/lists/deb.debian.org_debian_dists_bookworm_InRelease", "var/cache/apt/pkgcache.bin", "var/lib/dpkg/status-old", "var/lib/dpkg/status",
		"var/cache/debconf/config.dat-old", "var/cache/debconf/config.dat", "tmp/x", "run/lock/y"} {
		must(t, os.MkdirAll(filepath.Join(d, filepath.Dir(p)), 0o755))
		must(t, os.WriteFile(filepath.Join(d, p), []byte(p), 0o644))
	}
	must(t, os.MkdirAll(filepath.Join(d, "sys"), 0o555))
	tr := NewTree()
	cleanup, err := tr.AddRootfs(d, t.TempDir())
	defer cleanup()
	must(t, err)
	got := strings.Join(tr.Paths(), " ")
	for _, keep := range []string{"usr/bin/sh", "etc/passwd", "var/log", "dev", "proc", "sys", "var/cache/ldconfig",
		"etc/apt/apt.conf.d/99x", "var/lib/apt/lists", "var/cache/apt", "var/lib/dpkg/status", "var/cache/debconf/config.dat", "tmp", "run"} {
		if indexOf(tr.Paths(), keep) < 0 {
			t.Errorf("dropped %q: %s", keep, got)
		}
	}
	for _, drop := range []string{"var/log/dpkg.log", "var/log/apt", "var/log/apt/history.log", "var/cache/ldconfig/aux-cache", "dev/null-ish", "proc/1", "proc/1/x",
		"etc/resolv.conf", "etc/hostname", "etc/hosts", "etc/machine-id", "var/lib/dbus/machine-id", "etc/apt/sources.list",
		"var/lib/apt/lists/deb.debian.org_debian_dists_bookworm_InRelease", "var/cache/apt/pkgcache.bin", "var/lib/dpkg/status-old",
		"var/cache/debconf/config.dat-old", "tmp/x", "run/lock"} {
		if indexOf(tr.Paths(), drop) >= 0 {
			t.Errorf("kept %q: %s", drop, got)
		}
	}
}

func TestBadPaths(t *testing.T) {
	tr := NewTree()
	for _, p := range []string{"", "/", "..", "../etc/passwd", "a/../../b"} {
		if err := tr.AddFile(p, 0o644, nil); !errors.Is(err, ErrBadPath) {
			t.Errorf("AddFile(%q) = %v, want ErrBadPath", p, err)
		}
	}
}

func TestLayerFileIsDeterministic(t *testing.T) {
	d := t.TempDir()
	makeSyntheticDir(t, d, false, time.Now(), 0)
	out := t.TempDir()
	var infos []LayerInfo
	for i := range 2 {
		tr := NewTree()
		must(t, tr.AddDir(d, "opt/y", DirOptions{}))
		li, err := WriteLayerFile(tr, filepath.Join(out, []string{"a.tar.gz", "b.tar.gz"}[i]))
		must(t, err)
		infos = append(infos, li)
	}
	if infos[0].Digest != infos[1].Digest || infos[0].DiffID != infos[1].DiffID {
		t.Fatalf("layer digests differ: %+v vs %+v", infos[0], infos[1])
	}
	tr := NewTree()
	must(t, tr.AddDir(d, "opt/y", DirOptions{}))
	diff, n, err := TreeDiffID(tr)
	must(t, err)
	if diff != infos[0].DiffID || n != infos[0].UncompressedSize {
		t.Fatalf("TreeDiffID %s/%d, layer file %s/%d", diff, n, infos[0].DiffID, infos[0].UncompressedSize)
	}
	l, err := infos[0].Layer()
	must(t, err)
	rc, err := l.Uncompressed()
	must(t, err)
	defer rc.Close()
	if hs := headers(t, mustRead(t, rc)); len(hs) != tr.Len() {
		t.Fatalf("layer has %d entries, tree %d", len(hs), tr.Len())
	}
	// a changed file on disk is refused
	must(t, os.WriteFile(infos[1].Path, []byte("garbage"), 0o644))
	if _, err := infos[1].Layer(); !errors.Is(err, ErrBadInput) {
		t.Fatalf("tampered layer file accepted: %v", err)
	}
}

func mustRead(t *testing.T, r io.Reader) []byte {
	t.Helper()
	b, err := io.ReadAll(r)
	must(t, err)
	return b
}
