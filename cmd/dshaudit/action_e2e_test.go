package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
)

// TestActionLocalE2E runs the GitHub Action's steps on this machine
// (scripts/action-local.sh: actionlint on action.yml and the example,
// the GITHUB_* environment, a recorder in place of gh release upload) on
// the pass vector's bundle, key-signed: the job summary, the four
// uploaded files, and the uploaded summary checked by verify-summary.
func TestActionLocalE2E(t *testing.T) {
	e2etest.Require(t, "bash", "openssl", "go")
	actionlint := anchorTool(t, "actionlint", actionlintVersion)
	out := filepath.Join(t.TempDir(), "action")
	cmd := exec.Command("bash", "scripts/action-local.sh", out)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "ACTIONLINT="+actionlint)
	b, err := cmd.CombinedOutput()
	text := string(b)
	if err != nil {
		t.Fatalf("scripts/action-local.sh: %v\n%s", err, text)
	}
	for _, want := range []string{"### dshaudit: verified: hello\\-dsh\\-plugin\\@1\\.0\\.0", "#### Release assets", "PASSED, levels", "action-local: ok"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}
