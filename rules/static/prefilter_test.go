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
		if reservedIndicatorRE.MatchString(l) && !strings.ContainsAny(l, "@`") {
			t.Errorf("reserved-indicator check skips %q", l)
		}
		if itemRE.MatchString(l) && strings.IndexByte(l, ':') < 0 {
			t.Errorf("item check skips %q", l)
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
