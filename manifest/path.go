package manifest

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ValidPath reports whether p may name an evidence file or archive entry
// (SPEC.md "Reader limits and refusals"): a relative, slash-separated,
// UTF-8 path of at most maxLen bytes, with no empty, "." or ".."
// component, no backslash and no control character. It does not reject
// the reserved names; see CheckEvidencePath.
func ValidPath(p string, maxLen int) error {
	switch {
	case p == "":
		return fmt.Errorf("%w: empty name", ErrPathInvalid)
	case len(p) > maxLen:
		return fmt.Errorf("%w: %q is %d bytes, limit %d", ErrPathInvalid, p, len(p), maxLen)
	case !utf8.ValidString(p):
		return fmt.Errorf("%w: %q is not valid UTF-8", ErrPathInvalid, p)
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("%w: %q is absolute", ErrPathEscape, p)
	}
	for _, r := range p {
		if r == '\\' {
			return fmt.Errorf("%w: %q contains a backslash", ErrPathInvalid, p)
		}
		if unicode.IsControl(r) {
			return fmt.Errorf("%w: %q contains control character %U", ErrPathInvalid, p, r)
		}
	}
	for c := range strings.SplitSeq(p, "/") {
		switch c {
		case "..":
			return fmt.Errorf("%w: %q has a \"..\" component", ErrPathEscape, p)
		case ".":
			return fmt.Errorf("%w: %q has a \".\" component", ErrPathInvalid, p)
		case "":
			return fmt.Errorf("%w: %q has an empty component", ErrPathInvalid, p)
		}
	}
	return nil
}

// CheckEvidencePath is ValidPath plus the rule that an evidence file may
// not take the manifest's or the signature's name.
func CheckEvidencePath(p string, maxLen int) error {
	if err := ValidPath(p, maxLen); err != nil {
		return err
	}
	if p == Path || p == SignaturePath {
		return fmt.Errorf("%w: %q is reserved for the bundle itself", ErrReservedPath, p)
	}
	return nil
}

// PathSet tracks names already seen and the directories they imply, to
// refuse duplicates and file/directory conflicts.
type PathSet struct {
	files map[string]bool
	dirs  map[string]bool
}

func NewPathSet() *PathSet { return NewPathSetSize(0) }

// NewPathSetSize returns an empty set with room for about n paths.
func NewPathSetSize(n int) *PathSet {
	return &PathSet{files: make(map[string]bool, n), dirs: make(map[string]bool, n/2)}
}

// Add records p, which must already be a ValidPath.
func (s *PathSet) Add(p string) error {
	if s.files[p] {
		return fmt.Errorf("%w: %q", ErrDuplicate, p)
	}
	if s.dirs[p] {
		return fmt.Errorf("%w: %q is also a directory of another entry", ErrPathConflict, p)
	}
	for i := strings.LastIndexByte(p, '/'); i > 0; i = strings.LastIndexByte(p[:i], '/') {
		d := p[:i]
		if s.files[d] {
			return fmt.Errorf("%w: %q is inside file %q", ErrPathConflict, p, d)
		}
		if s.dirs[d] {
			break // its ancestors were recorded with it
		}
		s.dirs[d] = true
	}
	s.files[p] = true
	return nil
}
