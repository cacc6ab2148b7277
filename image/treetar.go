package image

import (
	"archive/tar"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// DESIGN.md "Sandbox image": a base root filesystem given as a tarball is
// read entry by entry and rewritten by the same rules as a directory.

// maxTarEntries bounds the number of entries read from an input tarball.
const maxTarEntries = 2_000_000

// AddTar adds every entry of the tar stream r (plain, gzip or zstd) under
// the image root. File contents are spooled to spool so the entries can be
// re-ordered; the spool must stay open until WriteTar has run. Owners keep
// their numeric ids when opts.Owners is OwnerPreserve.
func (t *Tree) AddTar(r io.Reader, spool *os.File, opts DirOptions) error {
	br := bufio.NewReaderSize(r, 1<<16)
	magic, _ := br.Peek(4)
	var src io.Reader = br
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("gzip: %w", err)
		}
		defer zr.Close()
		src = zr
	case bytes.HasPrefix(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(br)
		if err != nil {
			return fmt.Errorf("zstd: %w", err)
		}
		defer zr.Close()
		src = zr
	}
	tr := tar.NewReader(src)
	var off int64
	skipUnder := []string{}
	for n := 0; ; n++ {
		if n > maxTarEntries {
			return fmt.Errorf("tar has more than %d entries: %w", maxTarEntries, ErrBadInput)
		}
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("read tar entry %d: %w", n, err)
		}
		p, err := cleanImagePath(h.Name)
		if err != nil {
			if h.Typeflag == tar.TypeDir && (h.Name == "./" || h.Name == "/" || h.Name == ".") {
				continue // the root itself
			}
			return fmt.Errorf("tar entry %q: %w", h.Name, err)
		}
		if under(p, skipUnder) {
			continue
		}
		mode := fs.FileMode(h.Mode).Perm()
		if h.Typeflag == tar.TypeDir {
			mode |= fs.ModeDir
		}
		if opts.Exclude != nil && opts.Exclude(p, mode) {
			if h.Typeflag == tar.TypeDir {
				skipUnder = append(skipUnder, p)
			}
			continue
		}
		nh := newHeader(p, h.Typeflag, h.Mode)
		if opts.Owners == OwnerPreserve {
			nh.Uid, nh.Gid = h.Uid, h.Gid
		}
		e := &entry{}
		switch h.Typeflag {
		case tar.TypeReg, tar.TypeRegA:
			nh.Typeflag = tar.TypeReg
			nh.Size = h.Size
			start := off
			w, err := io.Copy(spool, tr)
			if err != nil {
				return fmt.Errorf("spool %q: %w", h.Name, err)
			}
			off += w
			size := w
			e.open = func() (io.ReadCloser, error) {
				return io.NopCloser(io.NewSectionReader(spool, start, size)), nil
			}
		case tar.TypeLink:
			target, err := cleanImagePath(h.Linkname)
			if err != nil {
				return fmt.Errorf("tar entry %q: hard link target: %w", h.Name, err)
			}
			te, ok := t.entries[target]
			if !ok || te.hdr.Typeflag != tar.TypeReg {
				return fmt.Errorf("tar entry %q: hard link to %q, which is not an earlier regular file: %w", h.Name, h.Linkname, ErrBadInput)
			}
			if te.linkGroup == "" {
				te.linkGroup = "tar:" + target
			}
			cp := *te
			cp.hdr.Name = p
			nh = cp.hdr
			e = &cp
		case tar.TypeSymlink:
			nh.Linkname = h.Linkname
		case tar.TypeDir, tar.TypeFifo:
		case tar.TypeChar, tar.TypeBlock:
			nh.Devmajor, nh.Devminor = h.Devmajor, h.Devminor
		default:
			continue // pax/gnu metadata entries are consumed by the reader; others are dropped
		}
		e.hdr = nh
		t.entries[p] = e
		t.ensureParents(p)
		if h.Typeflag == tar.TypeDir && opts.KeepDirOnly != nil && opts.KeepDirOnly(p) {
			skipUnder = append(skipUnder, p)
		}
	}
	return nil
}

func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if len(p) > len(d) && p[:len(d)] == d && p[len(d)] == '/' {
			return true
		}
	}
	return false
}
