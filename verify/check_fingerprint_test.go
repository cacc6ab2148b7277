package verify

import (
	"regexp"
	"slices"
	"testing"
)

// TestPrintedMatchesWholeTextRegexp checks that looking only at the lines
// holding a pattern's needle finds exactly what the regular expression
// finds over the whole text.
func TestPrintedMatchesWholeTextRegexp(t *testing.T) {
	texts := []string{
		"",
		"Progress: resolved 1\nDone in 2s using pnpm v9.15.9\n",
		"xusing pnpm v9.0.0\n using pnpm v9.1.0 and using pnpm v9.2.0-rc.1\nusing pnpm v9.1.0",
		"using pnpm v\nusing pnpm v1\nusing pnpm v1.2.3",
		"│   Update available! 9.15.9 → 10.0.0.   │\n",
		"at x (/app/node_modules/.pnpm/@deepseek-ai+dsh@0.1.0-rc.8_typescript@5/node_modules/x.js:1:2)\n" +
			"at y (/app/node_modules/.pnpm/@deepseek-ai+dsh@0.1.0-rc.9/node_modules/y.js)\n/node_modules/.pnpm/@deepseek-ai+dsh@1.2.3",
		"/node_modules/.pnpm/@deepseek-ai+dsh@1.2.3_/node_modules/.pnpm/@deepseek-ai+dsh@1.2.4/",
	}
	for _, pats := range [][]versionPattern{pnpmPrinted, dshPrinted} {
		for _, text := range texts {
			var want []string
			for _, p := range pats {
				for _, m := range regexp.MustCompile(p.re.String()).FindAllStringSubmatch(text, -1) {
					if !slices.Contains(want, m[1]) {
						want = append(want, m[1])
					}
				}
			}
			if got := printed([]byte(text), pats); !slices.Equal(got, want) {
				t.Errorf("printed(%q) = %q, want %q", text, got, want)
			}
		}
	}
}
