package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

// fatalLowered is the fatal-pattern test of isFatalTrimmed as the lowered
// line reads it, the oracle of fatalAt and its search for ": ".
func fatalLowered(t string) bool {
	lower := strings.ToLower(t)
	return strings.HasPrefix(lower, "fatal:") || strings.HasPrefix(lower, "fatal error:") ||
		strings.Contains(lower, ": fatal:") || strings.Contains(lower, ": fatal error:")
}

// The in-place ASCII comparison is exact only because no rune outside
// ASCII lowers or folds to a letter of "fatal error": pin the runes that
// reach ASCII at all, so that a new Unicode version that adds one fails
// here rather than changing a verdict unseen.
func TestFatalFoldIsExact(t *testing.T) {
	want := map[rune]rune{0x130: 'i', 0x17f: 's', 0x212a: 'k'}
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		to := unicode.ToLower(r)
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < 0x80 {
				to = unicode.ToLower(f)
			}
		}
		if to >= 0x80 {
			continue
		}
		if w, ok := want[r]; !ok || w != to {
			t.Errorf("U+%04X lowers or folds to %q", r, to)
		}
		if strings.ContainsRune("fatal error:", to) {
			t.Errorf("U+%04X reaches %q, a letter of the fatal patterns", r, to)
		}
	}
}

func TestFatalPatternsAsLowered(t *testing.T) {
	lines := []string{"fatal: x", "FATAL ERROR: y", "Fatal Error:", "dsh: fatal: giving up", "a: FaTaL:",
		"a:fatal:", "a: fatal", "a: fatal error", "::: fatal error:", "fatal", "fatal error", "x fatal: y",
		"\u0130: fatal:", "\u212a: \u212aatal:", "a: fatal\u0130error:", "", ":", ": ", ": fatal:"}
	pieces := []string{"fatal", "FATAL", "Fatal", "error", "ERROR", ":", " ", ": ", "a", "\u0130", "\u212a", "\u017f", "é", "É"}
	rng := rand.New(rand.NewPCG(11, 20))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		lines = append(lines, b.String())
	}
	for _, l := range lines {
		got := isFatalTrimmed(l) && !strings.Contains(l, "skipping profile bundle")
		// isFatalTrimmed also matches JS errors and Uncaught: only the
		// lines that match neither compare.
		if mayBeJSError(l) && jsErrorLine.MatchString(l) || uncaught.MatchString(l) {
			continue
		}
		if want := fatalLowered(l); got != want {
			t.Errorf("%q: fatal %v, lowered line says %v", l, got, want)
		}
	}
}

// isErrorLikeTrimmed's "E" test only skips lines that none of the
// patterns after it matches: with and without it, every line of the real
// evidence and of random pieces gets the same answer.
func TestErrorLikePrefilterIsExact(t *testing.T) {
	unfiltered := func(t string) bool {
		return isFatalTrimmed(t) || strings.Contains(t, "ERR_PNPM_") || strings.HasPrefix(t, "E") && errorCodeBanner.MatchString(t) ||
			strings.HasPrefix(t, "ERR!") || strings.Contains(t, " ERR!")
	}
	var lines []string
	for _, b := range evidenceSeeds(t, "*/t*.std*") {
		for _, l := range splitLines(b) {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	pieces := []string{"ERR_PNPM_", "ERR!", " ERR!", "E", "ELIFECYCLE", "  ", "x", "Error:", "fatal:", ": ", "e"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		lines = append(lines, b.String())
	}
	for _, l := range lines {
		if got, want := isErrorLikeTrimmed(l), unfiltered(l); got != want {
			t.Errorf("%q: error-like %v, without the prefilter %v", l, got, want)
		}
	}
}
