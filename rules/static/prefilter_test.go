package static

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// The literal checks in front of the README and patch regexps only skip
// lines the regexp would not match.
func TestRegexpPrefiltersAreExact(t *testing.T) {
	lines := []string{"# Permissions", "   ###### x ##", "    # code", "```", "  ~~~js", "   ```", "    ```", "name: @scope/x", "- `x`", "a: b", "- Why network: x", "1) data flow :"}
	files, _ := filepath.Glob(filepath.Join(vectorsDir, "*", "*"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // a directory
		}
		lines = append(lines, strings.Split(string(b), "\n")...)
	}
	for _, l := range lines {
		if fenceRE.MatchString(l) && !afterIndent(l, "```") && !afterIndent(l, "~~~") {
			t.Errorf("fence check skips %q", l)
		}
		if reservedIndicatorRE.MatchString(l) && !strings.ContainsAny(l, "@`") {
			t.Errorf("reserved-indicator check skips %q", l)
		}
		if itemRE.MatchString(l) && strings.IndexByte(l, ':') < 0 {
			t.Errorf("item check skips %q", l)
		}
		if commentRE.MatchString(l) && !strings.Contains(l, "<!--") {
			t.Errorf("comment check skips %q", l)
		}
	}
}

// atxHeading gives what headingRE gives, on random lines of blanks, #s,
// carriage returns, letters and invalid bytes, and on the vectors' lines.
func TestATXHeadingIsTheRegexp(t *testing.T) {
	lines := []string{"", "#", "# Permissions", "   ## a ##  ", "    # code", "####### x", "#######  ", "#5 bolt",
		"# a #b #", "#\t", "# ###", "# a\\#", "# a\n#", " \t# a", "#\r", "# é \xff ##\t"}
	files, _ := filepath.Glob(filepath.Join(vectorsDir, "*", "*"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			lines = append(lines, strings.Split(string(b), "\n")...)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{" ", "\t", "#", "#", "a", "\r", "é", "\xff", "\\"}
	for range 200000 {
		var b strings.Builder
		for range rng.IntN(14) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		lines = append(lines, b.String())
	}
	for _, l := range lines {
		level, text, ok := atxHeading(l)
		m := headingRE.FindStringSubmatch(l)
		if ok != (m != nil) || ok && (level != len(m[1]) || text != m[2]) {
			t.Fatalf("atxHeading(%q) = %d, %q, %v; the regexp gives %q", l, level, text, ok, m)
		}
	}
}

// quote gives what fmt's %q of the first maxQuoted runes gave.
func TestQuoteIsTheSprintf(t *testing.T) {
	ref := func(s string) string {
		if utf8.RuneCountInString(s) <= maxQuoted {
			return fmt.Sprintf("%q", s)
		}
		r := []rune(s)
		return fmt.Sprintf("%q…(%d more characters)", string(r[:maxQuoted]), len(r)-maxQuoted)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "\"", "\\xff", "é", "\\n", "\\x00", "€", "\\xe2\\x82"}
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(2 * maxQuoted) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		if got, want := quote(b.String()), ref(b.String()); got != want {
			t.Fatalf("quote(%q) = %s, want %s", b.String(), got, want)
		}
	}
}
