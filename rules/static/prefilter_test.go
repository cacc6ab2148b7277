package static

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		if headingRE.MatchString(l) && !afterIndent(l, "#") {
			t.Errorf("heading check skips %q", l)
		}
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
