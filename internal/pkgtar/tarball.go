// Package pkgtar reads an npm package tarball as pacote and node-tar
// extract it (SPEC.md "Consumers", T1–T4), as hostile input: the one
// reader of a package tarball for T0 (pkgsource), a claim
// (`verify --claim`) and the verifier, which reads the tarball a bundle
// holds (SPEC.md "The tested tarball"). It imports nothing of dshaudit's.
package pkgtar

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"sync"
)

// Limits bounds what Read accepts and allocates; a zero field takes its
// DefaultLimits value.
type Limits struct {
	// MaxUnpackedBytes bounds the decompressed tar stream (gzip bombs).
	MaxUnpackedBytes int64
	// MaxFileBytes bounds each file read: package.json, the patch file
	// and the README.
	MaxFileBytes int64
	// MaxEntries bounds the number of tar entries.
	MaxEntries int
}

// DefaultLimits are the limits for zero fields. DSHIO/T 10 5.3.3 calls
// 50 MB installed "large"; the defaults leave room above that without
// letting a hostile tarball exhaust memory. DESIGN.md "T0 inputs".
var DefaultLimits = Limits{
	MaxUnpackedBytes: 1 << 30,
	MaxFileBytes:     8 << 20,
	MaxEntries:       100_000,
}

// WithDefaults is l with each zero field set from DefaultLimits.
func (l Limits) WithDefaults() Limits {
	if l.MaxUnpackedBytes <= 0 {
		l.MaxUnpackedBytes = DefaultLimits.MaxUnpackedBytes
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultLimits.MaxFileBytes
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultLimits.MaxEntries
	}
	return l
}

// gzipReaders holds gzip readers between tarballs: each holds a 32 KiB
// window and its decoding tables, which a verification of many bundles
// otherwise allocates and clears once per bundle.
var gzipReaders sync.Pool

// newGzipReader returns a gzip reader of r, from gzipReaders when one is
// there; it returns the reader, to be put back, even when r's header is
// refused.
func newGzipReader(r *bytes.Reader) (*gzip.Reader, error) {
	if gz, ok := gzipReaders.Get().(*gzip.Reader); ok {
		return gz, gz.Reset(r)
	}
	return gzip.NewReader(r)
}

// Index is what one pass over a package tarball found.
type Index struct {
	// Files are the regular files' paths relative to the package root
	// (the first path component, normally "package/", stripped as npm
	// strips it), sorted.
	Files []string
	// Links are the symlink and hardlink entries, which T0 never follows.
	Links []string
	// Read holds the contents of the wanted files that exist.
	Read map[string][]byte
	// Sizes are the regular files' sizes in bytes, by path.
	Sizes map[string]int64
}

// Read makes one pass over a gzip tar package tarball, as hostile
// input: entry names must be relative with no ".." and no NUL, each
// regular file may appear once, the decompressed stream, the entry count
// and every wanted file are bounded. Nothing is written to disk. want
// selects the package-relative paths whose contents are returned.
func Read(tgz []byte, lim Limits, want func(rel string) bool) (*Index, error) {
	lim = lim.WithDefaults()
	// br is read by the gzip reader as an io.ByteReader, so no further
	// than the member's end: what it has left then follows the member.
	br := bytes.NewReader(tgz)
	gz, err := newGzipReader(br)
	if gz != nil {
		defer gzipReaders.Put(gz)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: not gzip: %v", ErrBadTarball, err)
	}
	gz.Multistream(false)
	counted := &limitedReader{r: gz, left: lim.MaxUnpackedBytes}
	tr := tar.NewReader(counted)
	idx := &Index{Read: map[string][]byte{}, Sizes: map[string]int64{}}
	seen := map[string]bool{}
	folded := map[string]string{} // case-folded rel → the entry name that has it
	var linked links              // the link entries' rels, case-folded
	top := ""                     // the first path component every entry shares
	entries := 0
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, tarErr(counted, fmt.Errorf("after %d entries: %v", entries, err))
		}
		entries++
		if entries > lim.MaxEntries {
			return nil, fmt.Errorf("%w: more than %d tar entries", ErrTooLarge, lim.MaxEntries)
		}
		rel, err := packageRelative(hdr.Name)
		if err != nil {
			return nil, err
		}
		if err := sameTop(&top, hdr.Name); err != nil {
			return nil, err
		}
		if rel == "" {
			continue // the root directory itself, or a file beside it that npm drops
		}
		// npm extracts with the first component stripped, a later entry
		// of a path replacing an earlier one, onto a file system that
		// may fold case: two entries of one path, in any case, are read
		// differently by readers that keep the first, the last, or both
		// (SPEC.md "Consumers", T2). A directory repeated is harmless.
		key := strings.ToLower(rel)
		if prev, ok := folded[key]; ok && !(hdr.Typeflag == tar.TypeDir && prev == "dir:"+rel) {
			return nil, fmt.Errorf("%w: entry %q and an earlier entry name one path (it appears twice, in some case); which copy counts is ambiguous", ErrBadTarball, hdr.Name)
		}
		if hdr.Typeflag == tar.TypeDir {
			folded[key] = "dir:" + rel
		} else {
			folded[key] = hdr.Name
		}
		if d, ok := linked.under(rel); ok {
			return nil, fmt.Errorf("%w: entry %q lies under the link %q: extracting it writes through the link (npm refuses, other readers follow it)", ErrBadTarball, hdr.Name, d)
		}
		switch hdr.Typeflag {
		case tar.TypeReg, tar.TypeRegA:
		case tar.TypeSymlink, tar.TypeLink:
			if _, readme := ReadmeRank(rel); readme || rel == "package.json" {
				return nil, fmt.Errorf("%w: entry %q is a link: a reader following it reads its target as the package's %s, T0 and npm's manifest reader do not", ErrBadTarball, hdr.Name, rel)
			}
			idx.Links = append(idx.Links, rel)
			linked.add(rel)
			continue
		default:
			continue // directories, devices, fifos: not files T0 reads
		}
		if seen[rel] {
			return nil, fmt.Errorf("%w: entry %q appears twice; which copy counts is ambiguous", ErrBadTarball, hdr.Name)
		}
		seen[rel] = true
		idx.Files = append(idx.Files, rel)
		idx.Sizes[rel] = hdr.Size
		if !want(rel) {
			continue
		}
		if hdr.Size > lim.MaxFileBytes {
			return nil, fmt.Errorf("%w: entry %q is %d bytes, the limit is %d", ErrTooLarge, hdr.Name, hdr.Size, lim.MaxFileBytes)
		}
		data, err := io.ReadAll(io.LimitReader(tr, lim.MaxFileBytes+1))
		if err != nil {
			return nil, tarErr(counted, fmt.Errorf("entry %q: %v", hdr.Name, err))
		}
		idx.Read[rel] = data
	}
	// What follows the tar end marker is read to the gzip member's end
	// (within the unpacked limit): a second gzip member, which Node's
	// zlib reads on and Go's reader without Multistream does not, or
	// other bytes after the member, are refused (SPEC.md "Consumers",
	// T1).
	if _, err := io.Copy(io.Discard, counted); err != nil {
		return nil, tarErr(counted, fmt.Errorf("after the tar stream: %v", err))
	}
	if rest := gz.Close(); rest != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadTarball, rest)
	}
	if entries == 0 {
		return nil, fmt.Errorf("%w: the tar stream holds no entry (npm refuses it as an unrecognised archive)", ErrBadTarball)
	}
	if n := br.Len(); n > 0 {
		return nil, fmt.Errorf("%w: %d bytes follow the gzip member (another member, or data readers treat differently)", ErrBadTarball, n)
	}
	sort.Strings(idx.Files)
	sort.Strings(idx.Links)
	return idx, nil
}

func tarErr(c *limitedReader, err error) error {
	if c.exceeded {
		return fmt.Errorf("%w: decompressed tarball is larger than the unpacked limit", ErrTooLarge)
	}
	return fmt.Errorf("%w: %v", ErrBadTarball, err)
}

// sameTop refuses an entry whose first path component differs from the
// earlier entries': npm strips whatever the first component is, a reader
// looking for package/ reads only those entries (SPEC.md "Consumers",
// T2).
func sameTop(top *string, name string) error {
	first, _, ok := strings.Cut(name, "/")
	switch {
	case !ok:
		return nil // a file beside the root, which stripping drops
	case *top == "":
		*top = first
	case first != *top:
		return fmt.Errorf("%w: entry %q is not under %q like the entries before it; npm strips any first component, so both would be the package", ErrBadTarball, name, *top+"/")
	}
	return nil
}

// packageRelative strips the first path component as npm does and
// refuses names that could escape the package root, or that readers
// split differently (a backslash, a separator on Windows).
func packageRelative(name string) (string, error) {
	switch {
	case name == "":
		return "", fmt.Errorf("%w: entry with an empty name", ErrBadTarball)
	case strings.ContainsRune(name, 0):
		return "", fmt.Errorf("%w: entry %q: NUL in name", ErrBadTarball, name)
	case strings.HasPrefix(name, "/"):
		return "", fmt.Errorf("%w: entry %q: absolute path", ErrBadTarball, name)
	case strings.ContainsRune(name, '\\'):
		return "", fmt.Errorf("%w: entry %q: a backslash, which npm on Windows reads as a separator", ErrBadTarball, name)
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." {
			return "", fmt.Errorf("%w: entry %q: path escapes the package root", ErrBadTarball, name)
		}
	}
	// node-tar strips the first component as written, "." included:
	// "./package/x" is package/x (TestTarballAsNodeTar found it).
	_, rest, ok := strings.Cut(name, "/")
	if !ok {
		return "", nil
	}
	rel := path.Clean("/" + rest)[1:]
	return rel, nil
}

// links are the link entries' paths, case-folded, as a tree of their
// components: an entry's directories are looked up in one walk down its
// path, not each on its own (one path.Dir and case-fold per directory
// was depth² bytes: a name 16,000 directories deep took 0.5 s, and a
// PAX name can be 1 MiB long, issue 48).
type links struct {
	child  map[linkStep]int // a node's child by component; node 0 is the root
	linked map[int]bool     // the nodes that are links
}

type linkStep struct {
	node int
	seg  string
}

// add records the link at rel.
func (l *links) add(rel string) {
	if l.child == nil {
		l.child, l.linked = map[linkStep]int{}, map[int]bool{}
	}
	n := 0
	for _, seg := range strings.Split(strings.ToLower(rel), "/") {
		c, ok := l.child[linkStep{n, seg}]
		if !ok {
			c = len(l.child) + 1
			l.child[linkStep{n, seg}] = c
		}
		n = c
	}
	l.linked[n] = true
}

// under returns the deepest directory of rel (a clean relative path)
// that, case-folded, is a link, as rel spells it. Case-folding maps
// each rune on its own and no rune to "/", so the folded path's
// components are rel's, folded.
func (l *links) under(rel string) (string, bool) {
	if len(l.linked) == 0 {
		return "", false
	}
	segs := strings.Split(strings.ToLower(rel), "/")
	n, deepest := 0, -1
	for k := 0; k < len(segs)-1; k++ {
		c, ok := l.child[linkStep{n, segs[k]}]
		if !ok {
			break
		}
		if n = c; l.linked[n] {
			deepest = k
		}
	}
	if deepest < 0 {
		return "", false
	}
	end := 0
	for k := 0; k <= deepest; k++ {
		end += strings.IndexByte(rel[end:], '/') + 1
	}
	return rel[:end-1], true
}

// limitedReader fails once more than left bytes were read.
type limitedReader struct {
	r        io.Reader
	left     int64
	exceeded bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		l.exceeded = true
		return 0, fmt.Errorf("%w: decompressed tarball is larger than the unpacked limit", ErrTooLarge)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// ReadmeRank orders README candidates at the package root: README.md,
// then README.markdown, then README, then any other README.*; false for a
// name that is no README.
func ReadmeRank(rel string) (int, bool) {
	if strings.Contains(rel, "/") {
		return 0, false
	}
	switch l := strings.ToLower(rel); {
	case l == "readme.md":
		return 0, true
	case l == "readme.markdown":
		return 1, true
	case l == "readme":
		return 2, true
	case strings.HasPrefix(l, "readme."):
		return 3, true
	}
	return 0, false
}

// PickReadme chooses the README among the tarball's root files.
func PickReadme(files []string) string {
	best, bestRank := "", 99
	for _, f := range files { // sorted, so ties go to the first name
		if r, ok := ReadmeRank(f); ok && r < bestRank {
			best, bestRank = f, r
		}
	}
	return best
}
