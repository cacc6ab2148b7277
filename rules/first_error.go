package rules

import (
	"strings"
	"unicode/utf8"
)

// MaxFirstErrorBytes bounds the line FirstError returns. A longer line is
// cut at a rune boundary at or below this many bytes and "…" is appended.
// SPEC.md "first_error".
const MaxFirstErrorBytes = 512

// FirstError extracts the DSHIO/T 20 6.6 first error from a stage's merged
// output, in arrival order. It skips empty lines, pure JSON lines,
// box-drawing lines, Progress: lines and the documented informational
// lines of dsh and node; of the lines left it returns the first that looks
// like an error, or else the first line left. It returns "" when no line is
// left. The result is trimmed and bounded by MaxFirstErrorBytes.
// SPEC.md "first_error".
func FirstError(merged []byte) string {
	line, _ := scanFirstError(merged)
	return line
}

// scanFirstError is FirstError that also says whether the line returned
// looks like an error (true) or is only the first remaining line (false).
func scanFirstError(merged []byte) (string, bool) {
	first, found := "", false
	eachLine(merged, func(l string) bool {
		t := strings.TrimSpace(l)
		if skippedLine(t) {
			return true
		}
		if isErrorLikeTrimmed(t) {
			first, found = t, true
			return false
		}
		if first == "" {
			first = t
		}
		return true
	})
	return boundLine(first), found
}

// boundLine cuts s to MaxFirstErrorBytes at a rune boundary, in a string
// of its own: s may be a substring of a whole output (eachLine).
func boundLine(s string) string {
	if len(s) <= MaxFirstErrorBytes {
		return strings.Clone(s)
	}
	cut := MaxFirstErrorBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
