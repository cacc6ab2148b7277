package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/engine"
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
	for _, want := range []string{"run \"$pkg\" --image \"$image\" \"${load[@]}\" \"${sign[@]}\"", "sign=(--keyless)", "--certificate-audit-workflow \"$AUDIT_WORKFLOW\"", "image build --load",
		"image=$(<image/sandbox.ref)", "load=(--image-archive "} {
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

// TestSandboxRefCommitted: image/sandbox.ref, the digest the audit
// workflow checks a published image archive against, is the image the
// committed lock builds (scripts/setup.sh's, DESIGN.md "The digest of
// the committed lock").
func TestSandboxRefCommitted(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "image", "sandbox.ref"))
	if err != nil {
		t.Fatal(err)
	}
	ref := strings.TrimSuffix(string(b), "\n")
	if _, err := engine.ParsePinned(ref); err != nil || strings.ContainsAny(ref, " \n") {
		t.Fatalf("image/sandbox.ref %q: %v", ref, err)
	}
	if img := cliImage(t); img != ref {
		t.Errorf("the committed lock builds %s, image/sandbox.ref says %s", img, ref)
	}
}

// auditLocalPackage is the published package the full emulation tests:
// the one runner's TestE2ERegistryPackage runs (the audit workflow takes
// NAME@VERSION of a published package only, never a local path).
const auditLocalPackage = "@deepseek-ai/dsh-base@0.1.0-rc.8"

// TestAuditLocalE2E runs every step of the audit workflow on this
// machine (scripts/audit-local.sh OUTDIR with INPUT_PACKAGE and
// AUDIT_IMAGE): the first step read from audit.yml, dshaudit built at
// the token's tag, run --keyless with the emulated job's token (one run
// of T0-T4 in the sandbox image), verify under the runner policy with the
// summary and the report, the four files the upload step takes, then the
// third party's verify and verify-summary under the runner policy. A
// missing real part (the Sigstore services, the image, podman, the
// registry) fails it.
func TestAuditLocalE2E(t *testing.T) {
	e2etest.RequireSigstore(t)
	e2etest.Require(t, "bash", "curl", "jq", "base64", "podman", "npm")
	img := cliImage(t)
	// image-archive: true, the release's archive written from the image
	// the committed lock builds (checked against image/sandbox.ref).
	archive, _ := publishSandbox(t, img, t.TempDir())
	out := filepath.Join(t.TempDir(), "audit")
	cmd := exec.Command("bash", "scripts/audit-local.sh", out)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "INPUT_PACKAGE="+auditLocalPackage, "AUDIT_IMAGE_ARCHIVE="+archive)
	b, err := cmd.CombinedOutput()
	text := string(b)
	if err != nil || !strings.HasSuffix(strings.TrimSpace(text), "audit-local: ok") {
		t.Fatalf("INPUT_PACKAGE=%s AUDIT_IMAGE_ARCHIVE=%s scripts/audit-local.sh OUTDIR: %v\n%s", auditLocalPackage, archive, err, text)
	}
	wf := "https://github.com/dshaudit/dshaudit/.github/workflows/audit.yml@refs/tags/v0.0.0-local"
	for _, want := range []string{
		"audit-local: self: repository=dshaudit/dshaudit ",
		"### dshaudit: verified: ",
		"--certificate-audit-workflow '" + wf + "'",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	files, err := filepath.Glob(filepath.Join(out, "runner-temp", "dshaudit-out", "*"))
	if err != nil || len(files) != 4 {
		t.Fatalf("files to upload: %v %v", files, err)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "output")); !strings.Contains(string(got), "verified=true\nartifact=dshaudit-evidence-deepseek-ai-dsh-base-0.1.0-rc.8\n") {
		t.Errorf("step outputs:\n%s", got)
	}

	// The author's release path (examples/release.yml): the attaching
	// job, the action with audit-evidence, checks the artifact under the
	// runner policy and uploads its four files as they are.
	attach := filepath.Join(t.TempDir(), "attach")
	cmd = exec.Command("bash", "scripts/action-local.sh", attach)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "ACTION_LOCAL_AUDIT_EVIDENCE="+filepath.Dir(files[0]), "ACTION_LOCAL_AUDIT_WORKFLOW="+wf)
	b, err = cmd.CombinedOutput()
	text = string(b)
	if err != nil || !strings.HasSuffix(strings.TrimSpace(text), "action-local: ok") {
		t.Fatalf("ACTION_LOCAL_AUDIT_EVIDENCE=%s scripts/action-local.sh OUTDIR: %v\n%s", filepath.Dir(files[0]), err, text)
	}
	for _, f := range files {
		want, _ := os.ReadFile(f)
		got, err := os.ReadFile(filepath.Join(attach, "uploaded", filepath.Base(f)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("uploaded %s: %v, not the audit workflow's file", filepath.Base(f), err)
		}
	}
	if !strings.Contains(text, "--certificate-audit-workflow '"+wf+"'") {
		t.Errorf("the job summary does not give the runner policy's check:\n%s", text)
	}
	cmd = exec.Command("bash", "scripts/action-local.sh", attach)
	cmd.Dir = repoRoot
	other := "https://github.com/dshaudit/dshaudit/.github/workflows/audit.yml@refs/tags/v9.9.9"
	cmd.Env = append(os.Environ(), "ACTION_LOCAL_AUDIT_EVIDENCE="+filepath.Dir(files[0]), "ACTION_LOCAL_AUDIT_WORKFLOW="+other)
	if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), other) {
		t.Errorf("the action attached evidence under another tag's policy: %v\n%s", err, b)
	}
}
