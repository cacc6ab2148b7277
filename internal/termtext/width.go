package termtext

import (
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/term"
	"golang.org/x/text/width"
)

// DefaultWidth is the width tables are laid out in when the output is not
// a terminal and COLUMNS is not set (SPEC.md "Output safety").
const DefaultWidth = 100

// MinWidth is the narrowest width tables are laid out in.
const MinWidth = 40

// TerminalWidth decides the width to lay tables out in: flag when
// positive; else the COLUMNS environment variable when it is a positive
// integer; else the width of out when it is a terminal; else
// DefaultWidth. The result is at least MinWidth.
func TerminalWidth(flag int, out io.Writer, getenv func(string) string) int {
	w := flag
	if w <= 0 {
		if n, err := strconv.Atoi(strings.TrimSpace(getenv("COLUMNS"))); err == nil && n > 0 {
			w = n
		}
	}
	if w <= 0 {
		if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
				w = cols
			}
		}
	}
	if w <= 0 {
		w = DefaultWidth
	}
	return max(w, MinWidth)
}

// RuneWidth is the number of columns r takes on a terminal: 2 for East
// Asian wide and fullwidth characters, 0 for combining marks, else 1.
func RuneWidth(r rune) int {
	if unicode.In(r, unicode.Mn, unicode.Me) {
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// Width is the number of columns s takes (s already escaped).
func Width(s string) int {
	n := 0
	for _, r := range s {
		n += RuneWidth(r)
	}
	return n
}

// Cut returns s (already escaped) cut to at most w columns, ending in "…"
// when anything was left out.
func Cut(s string, w int) string {
	if Width(s) <= w {
		return s
	}
	if w < 1 {
		return ""
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		rw := RuneWidth(r)
		if n+rw > w-1 {
			break
		}
		b.WriteRune(r)
		n += rw
	}
	return b.String() + ellipsis
}
