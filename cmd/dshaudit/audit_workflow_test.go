package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
)

// TestAuditWorkflowLint runs actionlint on the reusable audit workflow
// and the example calling it (scripts/action-local.sh lints the
// workflow too, with the action).
func TestAuditWorkflowLint(t *testing.T) {
	actionlint := anchorTool(t, "actionlint", actionlintVersion)
	for _, f := range []string{filepath.Join(".github", "workflows", "audit.yml"), filepath.Join("examples", "audit.yml")} {
		if out, err := runTool(t, repoRoot, actionlint, f); err != nil {
			t.Errorf("actionlint %s: %v\n%s", f, err, out)
		}
	}
}

// TestAuditWorkflowShape holds the audit workflow to what the runner
// policy relies on (SPEC.md "Runner policy"): called only, on
// a GitHub-hosted runner, dshaudit checked out at the workflow's own
// commit (its token's job_workflow_sha, not the caller's ref), signed
// keylessly, verified under the policy, and no input that takes
// arguments or a file from the caller.
func TestAuditWorkflowShape(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, ".github", "workflows", "audit.yml"))
	if err != nil {
		t.Fatal(err)
	}
	wf := string(b)
	for _, want := range []string{
		"\non:\n  workflow_call:\n",
		"runs-on: ubuntu-24.04",
		"id-token: write",
		".job_workflow_sha",
		"ref: ${{ steps.self.outputs.sha }}",
		"persist-credentials: false",
		"bash scripts/audit-workflow.sh",
		"actions/upload-artifact@",
	} {
		if !strings.Contains(wf, want) {
			t.Errorf("audit.yml lacks %q", want)
		}
	}
	for _, bad := range []string{"self-hosted\n", "run-args", "image:", "signing-key", "github.ref", "github.sha", "workflow_dispatch", "pull_request"} {
		if strings.Contains(wf, bad) {
			t.Errorf("audit.yml has %q", bad)
		}
	}
	sh, err := os.ReadFile(filepath.Join(repoRoot, "scripts", "audit-workflow.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"run \"$pkg\" --image \"$image\" \"${sign[@]}\"", "sign=(--keyless)", "--certificate-audit-workflow \"$AUDIT_WORKFLOW\"", "image build --load"} {
		if !strings.Contains(string(sh), want) {
			t.Errorf("scripts/audit-workflow.sh lacks %q", want)
		}
	}
}

// TestAuditLocalSelfE2E runs the audit workflow's first step on this
// machine (scripts/audit-local.sh OUTDIR self): against the loopback
// OIDC issuer's emulation of the GitHub Actions token request, it must
// name this repository's audit workflow at the token's tag and commit,
// not the caller's.
func TestAuditLocalSelfE2E(t *testing.T) {
	e2etest.RequireSigstore(t)
	e2etest.Require(t, "bash", "curl", "jq", "base64")
	cmd := exec.Command("bash", "scripts/audit-local.sh", filepath.Join(t.TempDir(), "audit"), "self")
	cmd.Dir = repoRoot
	b, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(b), "audit-local: ok") {
		t.Fatalf("scripts/audit-local.sh OUTDIR self: %v\n%s", err, b)
	}
}
