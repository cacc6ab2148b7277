package termtext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultMaxText is how many characters of one writer-controlled value
// are printed by default before it is cut (SPEC.md "Output safety").
const DefaultMaxText = 400

// Escape returns s with every character a terminal would act on or not
// show written as a visible escape sequence:
//
//   - newline, carriage return and tab as \n, \r, \t;
//   - other C0 controls (NUL, ESC, …), DEL and invalid UTF-8 bytes as \xHH;
//   - C1 controls, Unicode format characters (bidi embeddings, overrides
//     and isolates U+202A–U+202E, U+2066–U+2069, marks U+200E/U+200F,
//     zero-width characters, U+FEFF), line and paragraph separators,
//     private-use and unassigned code points as \uHHHH or \UHHHHHHHH.
//
// Every other character (letters, marks, digits, punctuation, symbols,
// spaces) is kept, so ordinary non-ASCII text stays readable. The result
// holds only graphic characters and ASCII space.
func Escape(s string) string {
	if isSafe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	writeEscaped(&b, s, false)
	return b.String()
}

// Block is Escape for multi-line text shown as a block (evidence a person
// asked to see): newlines and tabs are kept, everything else is escaped
// as by Escape. A carriage return is escaped, so a line cannot overwrite
// itself.
func Block(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	writeEscaped(&b, s, true)
	return b.String()
}

// Field escapes s and cuts it to at most max characters (display
// columns), marking a cut with "…[+N]" where N is the number of
// characters of the escaped text left out. max < 1 means no bound.
func Field(s string, max int) string {
	e := Escape(s)
	if max < 1 || Width(e) <= max {
		return e
	}
	kept := strings.TrimSuffix(Cut(e, max), ellipsis)
	left := utf8.RuneCountInString(e) - utf8.RuneCountInString(kept)
	return fmt.Sprintf("%s%s[+%d]", kept, ellipsis, left)
}

const ellipsis = "…"

func isSafe(s string) bool {
	for _, r := range s {
		if !graphic(r) {
			return false
		}
	}
	return true
}

// graphic reports whether r is printed as itself. utf8.RuneError decoded
// from an invalid byte is handled by the caller.
func graphic(r rune) bool {
	return r == ' ' || (r != utf8.RuneError && unicode.IsGraphic(r))
}

func writeEscaped(b *strings.Builder, s string, block bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(b, `\x%02x`, s[i])
		case block && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(b, `\x%02x`, r)
		case graphic(r) || (r == utf8.RuneError && size > 1):
			b.WriteRune(r)
		case r > 0xffff:
			fmt.Fprintf(b, `\U%08x`, r)
		default:
			fmt.Fprintf(b, `\u%04x`, r)
		}
		i += size
	}
}

// Unsafe returns a description of the first character of s a terminal
// would act on or not show (what Escape escapes), or "" when there is
// none. With lines, newlines and tabs are allowed. Tests use it to check
// printed output.
func Unsafe(s string, lines bool) string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return fmt.Sprintf("invalid byte %#02x at %d", s[i], i)
		case lines && (r == '\n' || r == '\t'):
		case !graphic(r) && !(r == utf8.RuneError && size > 1):
			return fmt.Sprintf("character %U at %d", r, i)
		}
		i += size
	}
	return ""
}

// Style is how one output is printed: tables in Width columns, each value
// cut after MaxText characters (0: no bound).
type Style struct {
	Width   int
	MaxText int
}

// Field escapes v and bounds it to s.MaxText characters.
func (s Style) Field(v string) string { return Field(v, s.MaxText) }
