package claim

import (
	"strings"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// wordStartRE is a pattern that can match only at the start of an ASCII
// word that starts with a literal: `\b(?:BODY)`, matched by looking for
// the literal where a word starts and trying BODY anchored there
// (`^(?:BODY)`). Go's regexp tries every offset of a line for a pattern
// that starts with `\b` or `(?i)` (it finds no literal prefix to skip
// to), and those patterns were most of what Check cost.
// TestWordStartIsPattern checks each against its unanchored form.
type wordStartRE struct {
	// lit is what every match starts with, in lower-case ASCII, compared
	// as (?i) compares it (foldPrefixLen); first are the bytes it can
	// start with.
	lit, first string
	// follow, when not empty, are the bytes of which one comes after lit
	// and any \s in every match.
	follow string
	// body is the pattern after its leading \b.
	body     string
	anchored *lazyregexp.Regexp
}

// newWordStart returns `\b(?:body)` for a body whose every match starts
// with lit, an ASCII word of lower-case letters and digits whose first
// letter is neither s nor k (whose case folds reach outside ASCII), or
// with lit in another case where body is case-insensitive.
//
// An attempt at one start must not read on past the next (no run such
// as [^.]* that passes over another lit): the attempts at all the starts
// of a line then read it about once, as the unanchored pattern does;
// otherwise a hostile line of starts costs the square of its length
// (BenchmarkCheckHostile).
func newWordStart(lit, body string) *wordStartRE {
	c := lit[0]
	first := string(c)
	switch {
	case c == 's' || c == 'k' || !isWordByte(c) || c != c|0x20 && isASCIILetter(c):
		panic("claim: newWordStart: literal " + lit + " cannot start a word in lower case")
	case isASCIILetter(c):
		first += string(c - 'a' + 'A')
	}
	return &wordStartRE{lit: lit, first: first, body: body, anchored: lazyregexp.New(`^(?:` + body + `)`)}
}

// followedBy sets follow: one of its bytes comes after lit and any \s in
// every match.
func (w *wordStartRE) followedBy(follow string) *wordStartRE {
	w.follow = follow
	return w
}

// pattern is the unanchored regular expression the wordStartRE matches.
func (w *wordStartRE) pattern() string { return `\b(?:` + w.body + `)` }

// next is the first offset from i on where a match can start: lit, where
// no ASCII word character comes before it (`\b`: Go's word characters
// are ASCII, and the byte before a multi-byte rune is not one), and
// followed by a byte of follow after any \s, or -1.
func (w *wordStartRE) next(s string, i int) int {
	for i < len(s) {
		k := strings.IndexAny(s[i:], w.first)
		if k < 0 {
			return -1
		}
		i += k
		if i == 0 || !isWordByte(s[i-1]) {
			if n, ok := foldPrefixLen(s[i:], w.lit); ok && w.followed(s[i+n:]) {
				return i
			}
		}
		i++
	}
	return -1
}

// followed reports whether rest, after any \s, starts with a byte of
// follow (always, when follow is empty).
func (w *wordStartRE) followed(rest string) bool {
	if w.follow == "" {
		return true
	}
	rest = strings.TrimLeft(rest, "\t\n\f\r ")
	return rest != "" && strings.IndexByte(w.follow, rest[0]) >= 0
}

// foldPrefixLen reports whether s starts with lit (lower-case ASCII
// letters and digits) as a (?i) pattern compares it, and how many bytes
// of s that is: a letter in either case, and s also as U+017F ſ and k as
// U+212A KELVIN SIGN, the two letters outside ASCII whose simple case
// folding reaches an ASCII one.
func foldPrefixLen(s, lit string) (int, bool) {
	n := 0
	for k := 0; k < len(lit); k++ {
		c := lit[k]
		switch {
		case n >= len(s):
			return 0, false
		case s[n] == c || isASCIILetter(c) && s[n]|0x20 == c:
			n++
		case c == 's' && strings.HasPrefix(s[n:], "\u017f"):
			n += len("\u017f")
		case c == 'k' && strings.HasPrefix(s[n:], "\u212a"):
			n += len("\u212a")
		default:
			return 0, false
		}
	}
	return n, true
}

// isWordByte reports whether c is a word character of regexp's \b.
func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || isASCIILetter(c)
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
