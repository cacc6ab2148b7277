package image

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// DESIGN.md "Sandbox image", layer determinism rules.

// Epoch is the one time written into every layer entry and into the image
// config's created field, so nothing in the image depends on when or where
// it was built.
var Epoch = time.Unix(0, 0).UTC()

// Ownership says whose numeric uid/gid a directory's entries carry.
type Ownership int

const (
	// OwnerRoot writes uid 0 / gid 0 for every entry (Node, pnpm, dsh,
	// wrappers: files the build user happened to own must not matter).
	OwnerRoot Ownership = iota
	// OwnerPreserve keeps the numeric uid/gid found on disk (the base root
	// filesystem, where e.g. /etc/shadow is group shadow).
	OwnerPreserve
)

// DirOptions controls how Tree.AddDir reads a host directory.
type DirOptions struct {
	Owners Ownership
	// Exclude, when set, drops an entry by its image path (no leading
	// slash, directories without trailing slash). Excluding a directory
	// drops everything under it.
	Exclude func(imagePath string, mode fs.FileMode) bool
	// KeepDirOnly, when set, keeps a directory entry but none of its
	// contents (e.g. dev, proc, sys of a root filesystem).
	KeepDirOnly func(imagePath string) bool
}

// Tree is the set of entries one layer holds, keyed by image path. It is
// written as a tar in byte order of the path, so a tree built from the same
// content always gives the same bytes.
type Tree struct {
	entries map[string]*entry
}

type entry struct {
	hdr  tar.Header
	open func() (io.ReadCloser, error) // regular file content
	// linkGroup is non-empty for members of a hard-link group: the first
	// member in path order carries the content, the others are written as
	// hard links to it.
	linkGroup string
}

// NewTree returns an empty tree.
func NewTree() *Tree { return &Tree{entries: map[string]*entry{}} }

// Len returns the number of entries.
func (t *Tree) Len() int { return len(t.entries) }

// Paths returns the image paths in write order.
func (t *Tree) Paths() []string {
	ps := make([]string, 0, len(t.entries))
	for p := range t.entries {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

// cleanImagePath turns an image path into the canonical key: relative, no
// "." or ".." elements, no trailing slash. It rejects paths that escape.
func cleanImagePath(p string) (string, error) {
	p = strings.TrimPrefix(p, "./")
	p = strings.TrimLeft(p, "/")
	c := path.Clean(p)
	if c == "." || c == "" {
		return "", fmt.Errorf("image path %q: %w", p, ErrBadPath)
	}
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("image path %q escapes the root: %w", p, ErrBadPath)
	}
	return c, nil
}

func newHeader(name string, typ byte, mode int64) tar.Header {
	return tar.Header{Typeflag: typ, Name: name, Mode: mode, ModTime: Epoch}
}

// ensureParents adds root-owned 0755 directories for every missing parent.
func (t *Tree) ensureParents(p string) {
	for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
		if _, ok := t.entries[d]; ok {
			continue
		}
		t.entries[d] = &entry{hdr: newHeader(d, tar.TypeDir, 0o755)}
	}
}

// AddFile adds a regular file with the given content.
func (t *Tree) AddFile(imagePath string, mode int64, data []byte) error {
	p, err := cleanImagePath(imagePath)
	if err != nil {
		return err
	}
	h := newHeader(p, tar.TypeReg, mode)
	h.Size = int64(len(data))
	t.entries[p] = &entry{hdr: h, open: func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(string(data))), nil
	}}
	t.ensureParents(p)
	return nil
}

// AddSymlink adds a symbolic link.
func (t *Tree) AddSymlink(imagePath, target string) error {
	p, err := cleanImagePath(imagePath)
	if err != nil {
		return err
	}
	h := newHeader(p, tar.TypeSymlink, 0o777)
	h.Linkname = target
	t.entries[p] = &entry{hdr: h}
	t.ensureParents(p)
	return nil
}

// AddDirEntry adds one directory.
func (t *Tree) AddDirEntry(imagePath string, mode int64) error {
	p, err := cleanImagePath(imagePath)
	if err != nil {
		return err
	}
	t.entries[p] = &entry{hdr: newHeader(p, tar.TypeDir, mode)}
	t.ensureParents(p)
	return nil
}

// AddDir adds the host directory hostDir and everything below it under
// imageDir ("" or "/" for the image root). Symlinks are kept as links
// (never followed), hard links within hostDir become tar hard links,
// sockets are skipped, and modes keep their permission, setuid, setgid and
// sticky bits. Extended attributes are not carried.
func (t *Tree) AddDir(hostDir, imageDir string, opts DirOptions) error {
	base := strings.Trim(imageDir, "/")
	return filepath.WalkDir(hostDir, func(hp string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("read %q: %w", hp, err)
		}
		rel, err := filepath.Rel(hostDir, hp)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		var ip string
		switch {
		case rel == "." && base == "":
			return nil // the image root itself has no entry
		case rel == ".":
			ip = base
		case base == "":
			ip = rel
		default:
			ip = base + "/" + rel
		}
		fi, err := d.Info()
		if err != nil {
			return fmt.Errorf("stat %q: %w", hp, err)
		}
		if opts.Exclude != nil && opts.Exclude(ip, fi.Mode()) {
			if fi.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if fi.Mode()&fs.ModeSocket != 0 {
			return nil
		}
		e, err := entryFromFileInfo(hp, ip, fi, opts.Owners)
		if err != nil {
			return err
		}
		t.entries[ip] = e
		t.ensureParents(ip)
		if fi.IsDir() && rel != "." && opts.KeepDirOnly != nil && opts.KeepDirOnly(ip) {
			return filepath.SkipDir
		}
		return nil
	})
}

func entryFromFileInfo(hostPath, imagePath string, fi fs.FileInfo, owners Ownership) (*entry, error) {
	var link string
	if fi.Mode()&fs.ModeSymlink != 0 {
		l, err := os.Readlink(hostPath)
		if err != nil {
			return nil, fmt.Errorf("readlink %q: %w", hostPath, err)
		}
		link = l
	}
	fh, err := tar.FileInfoHeader(fi, link)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", hostPath, err)
	}
	h := newHeader(imagePath, fh.Typeflag, fh.Mode)
	h.Linkname = fh.Linkname
	h.Size = fh.Size
	h.Devmajor, h.Devminor = fh.Devmajor, fh.Devminor
	e := &entry{}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		if owners == OwnerPreserve {
			h.Uid, h.Gid = int(st.Uid), int(st.Gid)
		}
		if fh.Typeflag == tar.TypeReg && st.Nlink > 1 {
			e.linkGroup = fmt.Sprintf("ino:%d:%d", st.Dev, st.Ino)
		}
	}
	if h.Typeflag == tar.TypeReg {
		e.open = func() (io.ReadCloser, error) { return os.Open(hostPath) }
	}
	e.hdr = h
	return e, nil
}

// WriteTar writes the tree as an uncompressed tar stream: entries in byte
// order of their path, directories with a trailing slash, every time the
// Epoch, numeric owners only, and the first member of each hard-link group
// (in path order) carrying the content the others link to.
func (t *Tree) WriteTar(w io.Writer) error {
	tw := tar.NewWriter(w)
	primary := map[string]string{}
	for _, p := range t.Paths() {
		e := t.entries[p]
		h := e.hdr // copy
		h.Name = p
		if h.Typeflag == tar.TypeDir {
			h.Name += "/"
		}
		h.ModTime = Epoch
		h.Uname, h.Gname = "", ""
		h.AccessTime, h.ChangeTime = time.Time{}, time.Time{}
		h.PAXRecords = nil
		h.Format = tar.FormatUnknown
		if e.linkGroup != "" {
			if first, ok := primary[e.linkGroup]; ok {
				h.Typeflag = tar.TypeLink
				h.Linkname = first
				h.Size = 0
				if err := tw.WriteHeader(&h); err != nil {
					return fmt.Errorf("write %q: %w", p, err)
				}
				continue
			}
			primary[e.linkGroup] = p
		}
		if err := tw.WriteHeader(&h); err != nil {
			return fmt.Errorf("write %q: %w", p, err)
		}
		if h.Typeflag != tar.TypeReg || h.Size == 0 {
			continue
		}
		if e.open == nil {
			return fmt.Errorf("write %q: no content: %w", p, ErrBadPath)
		}
		rc, err := e.open()
		if err != nil {
			return fmt.Errorf("open %q: %w", p, err)
		}
		n, err := io.Copy(tw, io.LimitReader(rc, h.Size))
		rc.Close()
		if err != nil {
			return fmt.Errorf("copy %q: %w", p, err)
		}
		if n != h.Size {
			return fmt.Errorf("copy %q: %w: size changed while building (%d of %d bytes)", p, errShortFile, n, h.Size)
		}
	}
	return tw.Close()
}

var errShortFile = errors.New("file shorter than its header")
