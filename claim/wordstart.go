package claim

import (
	"strings"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// wordStartRE is a pattern that can match only at the start of an ASCII
// word, at one of a few bytes: `\b(?:BODY)`, matched by looking for those
// bytes and trying BODY anchored at each (`^(?:BODY)`). Go's regexp tries
// every offset of a line for a pattern that starts with `\b` or `(?i)` (it
// finds no literal prefix to skip to), and those patterns were most of
// what Check cost. TestWordStartIsPattern checks each against its
// unanchored form.
type wordStartRE struct {
	// first are the bytes a match can start with.
	first string
	// body is the pattern after its leading \b.
	body     string
	anchored *lazyregexp.Regexp
}

// newWordStart returns `\b(?:body)` for a body whose every match starts
// with one of the bytes of first, each an ASCII word character, and is
// not empty.
func newWordStart(first, body string) *wordStartRE {
	return &wordStartRE{first: first, body: body, anchored: lazyregexp.New(`^(?:` + body + `)`)}
}

// pattern is the unanchored regular expression the wordStartRE matches.
func (w *wordStartRE) pattern() string { return `\b(?:` + w.body + `)` }

// next is the first offset from i on where a match can start: one of
// first that follows no ASCII word character (`\b`: Go's word characters
// are ASCII, and the byte before a multi-byte rune is not one), or -1.
func (w *wordStartRE) next(s string, i int) int {
	for i < len(s) {
		k := strings.IndexAny(s[i:], w.first)
		if k < 0 {
			return -1
		}
		i += k
		if i == 0 || !isWordByte(s[i-1]) {
			return i
		}
		i++
	}
	return -1
}

// MatchString reports whether the pattern matches somewhere in s.
func (w *wordStartRE) MatchString(s string) bool {
	for i := w.next(s, 0); i >= 0; i = w.next(s, i+1) {
		if w.anchored.MatchString(s[i:]) {
			return true
		}
	}
	return false
}

// FindAllStringIndex is regexp's FindAllStringIndex(s, -1) for the
// pattern: the leftmost match, then the next from where it ends (no
// match is empty, so none abuts another).
func (w *wordStartRE) FindAllStringIndex(s string) [][]int {
	var out [][]int
	for i := w.next(s, 0); i >= 0; {
		if m := w.anchored.Re().FindStringIndex(s[i:]); m != nil {
			out = append(out, []int{i, i + m[1]})
			i = w.next(s, i+m[1])
			continue
		}
		i = w.next(s, i+1)
	}
	return out
}

// isWordByte reports whether c is a word character of regexp's \b.
func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || isASCIILetter(c)
}
