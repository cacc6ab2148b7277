package verify

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoRunnerImport keeps the layers apart: the verifier must work with
// no container engine and no network, so it never imports the runner, the
// engine, the image builder or the package fetcher (SPEC.md
// "Verification").
func TestNoRunnerImport(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"/runner", "/engine", "/image", "/pkgsource", "/replay"} {
			if strings.HasPrefix(dep, "github.com/dshaudit/dshaudit") && strings.HasSuffix(dep, banned) {
				t.Errorf("verify depends on %s", dep)
			}
		}
	}
}
