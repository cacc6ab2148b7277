package rules

import (
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
