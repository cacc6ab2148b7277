package bundle

import (
	"archive/tar"
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/dshaudit/dshaudit/manifest"
)

// This file holds the reader's second reading of each entry's name: from
// the raw header blocks, as a tar reader other than archive/tar reads them
// (GNU tar, bsdtar). An entry whose name could depend on which reader
// reads it is refused (SPEC.md "Consumers", "Reader limits and refusals"):
// archive/tar's Header is the merged result of the blocks, and hides how
// the name was written.

// rawHeaders keeps the bytes a tar.Reader reads while it reads one
// entry's headers (countReader.capture), so that they can be read again.
type rawHeaders struct {
	on  bool
	buf []byte
}

// Offsets and sizes of the ustar header fields used here.
const (
	ustarName     = 0
	ustarNameLen  = 100
	ustarSize     = 124
	ustarSizeLen  = 12
	ustarType     = 156
	ustarMagic    = 257
	ustarPrefix   = 345
	ustarPrefLen  = 155
	tarBlock      = 512
	maxPAXCapture = 64 << 10 // more header bytes than this for one entry is refused
)

// checkRawName reads the header blocks of one entry (raw, after pad bytes
// of the previous entry's padding) and refuses what readers could read
// differently: anything but one ustar header with typeflag '0', or a PAX
// 'x' header holding exactly one record, "path", and then that header; a
// name field with bytes after its terminating NUL; a size in base-256;
// and a ustar name (prefix/name) that is neither the PAX path nor what
// archive/tar writes beside it (the path's ASCII characters, first 100
// bytes). GNU tar, bsdtar and archive/tar read the PAX path; only a reader
// without PAX support reads the ustar name, and then this one. name is
// what archive/tar made of the blocks.
func checkRawName(raw []byte, pad int, name string) error {
	if pad < 0 || pad > len(raw) {
		return fmt.Errorf("%w: %q: header blocks not where the previous entry ended", ErrCorrupt, name)
	}
	raw = raw[pad:]
	if len(raw)%tarBlock != 0 || len(raw) == 0 {
		return fmt.Errorf("%w: %q: header of %d bytes, not whole blocks", ErrUnsupportedHeader, name, len(raw))
	}
	last := raw[len(raw)-tarBlock:]
	if err := checkUstarBlock(last, name); err != nil {
		return err
	}
	ustar := ustarPath(last)
	if len(raw) == tarBlock {
		if ustar != name {
			return fmt.Errorf("%w: %q: the ustar name reads %q", ErrNameAmbiguous, name, ustar)
		}
		return nil
	}
	// A PAX extended header, its records, then the entry's ustar block.
	x := raw[:tarBlock]
	if x[ustarType] != tar.TypeXHeader {
		return fmt.Errorf("%w: %q: a header block of type %q before the entry's own (only one PAX 'x' header is read the same by every reader)", ErrNameAmbiguous, name, x[ustarType])
	}
	if err := checkUstarBlock(x, name); err != nil && !strings.Contains(err.Error(), "typeflag") {
		return err
	}
	size, err := octalField(x[ustarSize : ustarSize+ustarSizeLen])
	if err != nil {
		return fmt.Errorf("%w: %q: PAX header size: %v", ErrUnsupportedHeader, name, err)
	}
	data := raw[tarBlock : len(raw)-tarBlock]
	if size > int64(len(data)) || roundBlock(size) != int64(len(data)) {
		return fmt.Errorf("%w: %q: PAX header of %d bytes in %d bytes of blocks (a second extended header follows?)", ErrNameAmbiguous, name, size, len(data))
	}
	recs, err := paxRecords(data[:size])
	if err != nil {
		return fmt.Errorf("%w: %q: %v", ErrNameAmbiguous, name, err)
	}
	if len(recs) != 1 || recs[0][0] != "path" {
		keys := make([]string, len(recs))
		for i, r := range recs {
			keys[i] = r[0]
		}
		return fmt.Errorf("%w: %q: PAX records %q; exactly one, path, is read the same by every reader", ErrNameAmbiguous, name, keys)
	}
	path := recs[0][1]
	if path != name {
		return fmt.Errorf("%w: the PAX path %q is read as %q", ErrNameAmbiguous, path, name)
	}
	if last[ustarPrefix] != 0 || ustar != path && ustar != paxFallbackName(path) {
		return fmt.Errorf("%w: %q: the PAX path and the ustar name %q differ; a reader without PAX support reads the ustar name", ErrNameAmbiguous, path, ustar)
	}
	return nil
}

// paxFallbackName is the ustar name archive/tar writes beside a PAX path:
// the path's ASCII characters, cut at 100 bytes.
func paxFallbackName(path string) string {
	b := make([]byte, 0, len(path))
	for i := 0; i < len(path); i++ {
		if path[i] < 0x80 {
			b = append(b, path[i])
		}
	}
	if len(b) > ustarNameLen {
		b = b[:ustarNameLen]
	}
	return string(b)
}

// checkUstarBlock refuses a header block that is not a POSIX ustar one
// with typeflag '0', an octal size and clean name fields.
func checkUstarBlock(b []byte, name string) error {
	if string(b[ustarMagic:ustarMagic+8]) != "ustar\x0000" {
		return fmt.Errorf("%w: %q: tar magic %q, want POSIX ustar", ErrUnsupportedHeader, name, b[ustarMagic:ustarMagic+8])
	}
	if b[ustarSize]&0x80 != 0 {
		return fmt.Errorf("%w: %q: a base-256 size", ErrUnsupportedHeader, name)
	}
	for _, f := range [][]byte{b[ustarName : ustarName+ustarNameLen], b[ustarPrefix : ustarPrefix+ustarPrefLen]} {
		if i := bytes.IndexByte(f, 0); i >= 0 && !allZero(f[i:]) {
			return fmt.Errorf("%w: %q: a name field holds bytes after its NUL terminator", ErrNameAmbiguous, name)
		}
	}
	if b[ustarType] != tar.TypeReg {
		return fmt.Errorf("%w: %q: typeflag %q, want '0'", ErrUnsupportedHeader, name, b[ustarType])
	}
	return nil
}

// allZero reports whether every byte of b is NUL.
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// ustarPath is the name a ustar reader makes of a block: prefix "/" name,
// or name alone when the prefix is empty.
func ustarPath(b []byte) string {
	name := cString(b[ustarName : ustarName+ustarNameLen])
	if prefix := cString(b[ustarPrefix : ustarPrefix+ustarPrefLen]); prefix != "" {
		return prefix + "/" + name
	}
	return name
}

func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// octalField reads a NUL- or space-terminated octal number.
func octalField(b []byte) (int64, error) {
	s := strings.TrimRight(cString(b), " ")
	s = strings.TrimLeft(s, " ")
	return strconv.ParseInt(s, 8, 64)
}

// paxRecords parses "<len> <key>=<value>\n" records, refusing anything
// not exactly in that form, and a key given twice (readers keep the first
// or the last).
func paxRecords(b []byte) ([][2]string, error) {
	var out [][2]string
	seen := map[string]bool{}
	for len(b) > 0 {
		sp := bytes.IndexByte(b, ' ')
		if sp <= 0 {
			return nil, fmt.Errorf("a PAX record without its length")
		}
		n, err := strconv.Atoi(string(b[:sp]))
		if err != nil || n <= sp+1 || n > len(b) || string(b[:sp]) != strconv.Itoa(n) {
			return nil, fmt.Errorf("a PAX record length %q that does not fit", b[:sp])
		}
		rec := b[sp+1 : n]
		b = b[n:]
		if rec[len(rec)-1] != '\n' {
			return nil, fmt.Errorf("a PAX record not ended by a newline")
		}
		kv := string(rec[:len(rec)-1])
		eq := strings.IndexByte(kv, '=')
		if eq <= 0 {
			return nil, fmt.Errorf("a PAX record without key=value")
		}
		k := kv[:eq]
		if seen[k] {
			return nil, fmt.Errorf("the PAX record %q twice (readers keep the first or the last)", k)
		}
		seen[k] = true
		out = append(out, [2]string{k, kv[eq+1:]})
	}
	return out, nil
}

// foldSet refuses a second name with the foldKey of one already added.
type foldSet map[string]string

func (f foldSet) add(p string) error {
	k := foldKey(p)
	if q, ok := f[k]; ok {
		return fmt.Errorf("%w: %q and %q are one name on a case-insensitive or normalising file system", ErrNameAmbiguous, q, p)
	}
	f[k] = p
	return nil
}

// foldKey is the form two names collide in on a case-insensitive or
// normalising file system: NFC, then Unicode case folding. Two entries
// with one foldKey are extracted to one file there, while tar readers
// list two.
func foldKey(p string) string {
	for i := 0; i < len(p); i++ {
		if p[i] >= 0x80 {
			return cases.Fold().String(norm.NFC.String(p))
		}
	}
	return strings.ToLower(p) // ASCII: NFC already, and folding is lowering
}

// printableName refuses a name with a character that is not printable:
// tar readers list such names in other forms (bsdtar escapes U+2028 and
// U+0085 as octal where GNU tar writes them raw) or they show as nothing
// (format characters such as U+200B); unassigned code points and private
// use are refused as well, and so is a name not in NFC.
func printableName(p string) error {
	if !norm.NFC.IsNormalString(p) {
		// Found by the differential test: bsdtar lists "e\u0301" as "é",
		// GNU tar and archive/tar keep the bytes.
		return fmt.Errorf("%w: %q is not in Unicode normalization form C: bsdtar lists it normalised, GNU tar and archive/tar as written", manifest.ErrPathInvalid, p)
	}
	for _, r := range p {
		if !unicode.IsPrint(r) || unicode.Is(unicode.Co, r) {
			return fmt.Errorf("%w: %q contains %U, which tar readers list differently", manifest.ErrPathInvalid, p, r)
		}
	}
	return nil
}
