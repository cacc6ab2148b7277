package verify

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// eachLineMatch finds what FindAllSubmatch over the whole stream finds
// (issue 48 replaced the one by the other): the same submatches in the
// same order, sm[0] cut at the end of its line, for the real evidence
// and for generated output of the patterns' pieces, spaces, newlines,
// escapes and invalid bytes.
func TestEachLineMatchAsFindAll(t *testing.T) {
	var inputs [][]byte
	files, _ := filepath.Glob("../testdata/dsh-evidence/*/t*.std*")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, b)
	}
	parts := []string{dshProfileLiteral, pnpmDoneLiteral, "/dsh-home/profiles/web", "/x", " ", "\t", "\r", "\n", "\n", "\f",
		"1", "2.5", "s", "ms", "m", "h", "d", " using pnpm v", "9", "x", "dsh: ", "Done", "\xff", "\xc2\xa0", "\x1b[0m", "é", "ERR_PNPM_", "ADD",
		dshProfileLiteral + "/a\n", pnpmDoneLiteral + "1.2s using pnpm v9", "\n" + pnpmDoneLiteral + "3m 2s"}
	rng := rand.New(rand.NewPCG(48, 2))
	for range 30000 {
		var b []byte
		for range rng.IntN(20) {
			b = append(b, parts[rng.IntN(len(parts))]...)
		}
		inputs = append(inputs, b)
	}
	for _, c := range []struct {
		lit string
		re  *regexp.Regexp
		all bool // compare sm[0] too
	}{{dshProfileLiteral, dshProfileAt, false}, {pnpmDoneLiteral, pnpmDone, true}} {
		matched := 0
		for _, b := range inputs {
			var want, got [][]string
			for _, sm := range c.re.FindAllSubmatch(b, -1) {
				want = append(want, subs(sm, c.all))
			}
			eachLineMatch(b, c.lit, c.re, func(sm [][]byte) bool {
				got = append(got, subs(sm, c.all))
				return true
			})
			if !slices.EqualFunc(want, got, slices.Equal) {
				t.Fatalf("%s on %q: FindAllSubmatch %q, eachLineMatch %q", c.re, b, want, got)
			}
			matched += len(want)
		}
		if matched < 100 {
			t.Errorf("%s: only %d matches in all inputs", c.re, matched)
		}
	}
	// Every pnpmError match holds the literal checked before it.
	for _, b := range inputs {
		if loc := pnpmError.FindIndex(b); loc != nil && !regexp.MustCompile(pnpmErrorLiteral).Match(b[loc[0]:loc[1]]) {
			t.Fatalf("%q: a pnpmError match without %q", b, pnpmErrorLiteral)
		}
	}
}

func subs(sm [][]byte, all bool) []string {
	var out []string
	for i, s := range sm {
		if i > 0 || all {
			out = append(out, string(s))
		}
	}
	return out
}
