package rules

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The cheap checks in front of the line regexps only skip lines the
// regexp would not match: every line of the real evidence, and lines
// built to match, give the same answer with and without them.
func TestLineRegexpPrefiltersAreExact(t *testing.T) {
	lines := []string{"Error: x", "TypeError [ERR_X]: y", "a.b$Exception: z", "Uncaught x", "Uncaughtx",
		"ELIFECYCLE  Command failed", "EX  y", "(node:12) [DEP0040] DeprecationWarning: x",
		"(node:1) Warning: x", "(Use `node --trace-warnings ...` to show where the warning was created)", "Error", "x Error: y"}
	files, _ := filepath.Glob(filepath.Join(evidenceDir, "*/t*.std*"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range splitLines(b) {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	for _, l := range lines {
		if jsErrorLine.MatchString(l) && !mayBeJSError(l) {
			t.Errorf("mayBeJSError skips %q", l)
		}
		for prefix, re := range map[string]interface{ MatchString(string) bool }{
			"Uncaught": uncaught, "E": errorCodeBanner, "(node:": nodeWarning, "(Use `node --trace-": nodeTraceHint} {
			if re.MatchString(l) && !strings.HasPrefix(l, prefix) {
				t.Errorf("prefix %q skips %q", prefix, l)
			}
		}
	}
}

// cleanRunes gives what the two passes it replaces give, on random bytes
// (invalid runs, controls, tabs, U+FFFD itself) and on the real evidence.
func TestCleanRunesIsTheTwoPasses(t *testing.T) {
	ref := func(l []byte) string { return strings.Map(cleanRune, strings.ToValidUTF8(string(l), "\uFFFD")) }
	ins := [][]byte{nil, []byte("\xff\x01\xff"), []byte("a\tb\x00c"), []byte("\xed\xa0\x80x"), []byte("\uFFFD\xff"), []byte("é\x85\u2028")}
	files, _ := filepath.Glob(filepath.Join(evidenceDir, "*/t*.std*"))
	for _, p := range files {
		b, _ := os.ReadFile(p)
		ins = append(ins, bytes.Split(b, []byte("\n"))...)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("a\t\x00\x7f\xc3\xa9\xff\x80\xe2\x82\xac\xef\xbf\xbd\xf0\x9f")
	for range 20000 {
		l := make([]byte, rng.IntN(12))
		for i := range l {
			l[i] = alphabet[rng.IntN(len(alphabet))]
		}
		ins = append(ins, l)
	}
	for _, l := range ins {
		if got, want := cleanRunes(l), ref(l); got != want {
			t.Fatalf("cleanRunes(%q) = %q, want %q", l, got, want)
		}
	}
}
