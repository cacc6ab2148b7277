package claim

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// markupRE is what stripMarkup removes, as the regexp it replaced:
// emphasis, code spans, HTML line breaks and tags.
var markupRE = regexp.MustCompile("\\*\\*|__|`|<br\\s*/?>|</?[a-zA-Z][^>]*>")

// wordStarts are the patterns matched as wordStartREs, by name.
var wordStarts = map[string]*wordStartRE{
	"numberlessRE": numberlessRE,
	"dshRangeRE":   dshRangeRE,
	"declHeadRE":   declHeadRE,
}

// equivalenceInputs are every line of the claim fixtures, lines made of
// the pieces the patterns and the markup scanner turn on, and those
// lines cut at random.
func equivalenceInputs(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob("../testdata/claims/*.md")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no claim fixtures: %v", err)
	}
	var in []string
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(raw), "\n") {
			in = append(in, l, strings.ToLower(l), declFold(l))
		}
	}
	pieces := []string{
		"dsh", "DSH", "dſh", "d\u017fH", "dshio", "DSHIO", "DSHIO/T", "dshio/t", "conform", "conforms to", "Conforms", "T5", "t5", "tool", "TOOL",
		"invocation", "-", " ", "  ", "\t", "\n", "=", ":", "version", "^", "~", ">=", "<", "1.2", "1.x", "0.2.x", "series", "the", "The", "THE", "Version", "1.2.3",
		"standard", "clause", "plugin", "passed", "ok", "verified", "✅", ".", "x", "_", "a", "9", "**", "__", "*", "`", "<br>", "<br />",
		"<b>", "</i>", "<", ">", "</", "<1", "é", "\u212a", "\xff", "\xe2\x80", "—", "/", "|", "0", "o", "l", "1",
	}
	// One of each alternative, in other cases and spacings.
	in = append(in, "dsh The 1.2 series", "DSH the 1.2.3 series", "dsh=THE 0.1 series", "dsh version: ^1", "dsh Version ~1",
		"dsh >=1", "dsh <2", "dsh 1.2.x", "dsh 1.x", "dsh 1.2 series", "DSHIO plugin standard clause 5", "dshio Standard Clause",
		"DSHIO clause 5", "T5 passed", "t5 is ok", "tool-invocation verified", "Tool  invocation ✅", "conforms to dshio/t", "conformto dsh1 0/t")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		in = append(in, b.String())
	}
	for _, l := range in[:len(in):len(in)] {
		if len(l) > 1 {
			i, j := rng.IntN(len(l)), rng.IntN(len(l))
			in = append(in, l[min(i, j):max(i, j)])
		}
	}
	return in
}

// TestStripMarkupIsMarkupRE: stripMarkup removes exactly what markupRE
// matches, on valid and invalid UTF-8 alike.
func TestStripMarkupIsMarkupRE(t *testing.T) {
	for _, s := range equivalenceInputs(t) {
		if got, want := stripMarkup(s), markupRE.ReplaceAllString(s, ""); got != want {
			t.Fatalf("stripMarkup(%q) = %q, markupRE gives %q", s, got, want)
		}
	}
}

// TestWordStartIsPattern: each wordStartRE finds what its unanchored
// pattern finds (MatchString, and FindAllStringIndex for the
// declaration head), so that looking only where the literal starts a
// word loses no match.
func TestWordStartIsPattern(t *testing.T) {
	in := equivalenceInputs(t)
	for name, w := range wordStarts {
		re := regexp.MustCompile(w.pattern())
		matched := 0
		for _, s := range in {
			got, want := w.MatchString(s), re.MatchString(s)
			if got != want {
				t.Fatalf("%s.MatchString(%q) = %v, %s gives %v", name, s, got, re, want)
			}
			if want {
				matched++
			}
			if g, w := w.FindAllStringIndex(s), re.FindAllStringIndex(s, -1); !equalIndexes(g, w) {
				t.Fatalf("%s.FindAllStringIndex(%q) = %v, %s gives %v", name, s, g, re, w)
			}
		}
		if matched == 0 {
			t.Errorf("%s matched none of %d inputs: the test would not see a lost match", name, len(in))
		}
	}
}

func equalIndexes(a, b [][]int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i][0] != b[i][0] || a[i][1] != b[i][1] {
			return false
		}
	}
	return true
}

// TestWordStartRefusesFoldingLiteral: a literal whose first letter folds
// outside ASCII (s, k) or is upper-case cannot be looked for by its
// first byte.
func TestWordStartRefusesFoldingLiteral(t *testing.T) {
	for _, lit := range []string{"s5", "kit", "Dsh", "-x"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("newWordStart(%q) did not panic", lit)
				}
			}()
			newWordStart(lit, lit)
		}()
	}
}
