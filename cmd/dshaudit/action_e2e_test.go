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

// TestActionLocalKeylessE2E is TestActionLocalE2E with keyless: true,
// against the Sigstore services of scripts/setup-sigstore.sh: the job's
// OIDC token comes from the loopback issuer's emulation of the GitHub
// Actions token request, and the summary of the (key-signed) pass
// vector is signed keylessly. verify-summary and cosign accept the
// uploaded summary with the trusted root and the workflow's identity,
// and refuse another identity or a key.
func TestActionLocalKeylessE2E(t *testing.T) {
	ss := e2etest.RequireSigstore(t)
	e2etest.Require(t, "bash", "curl", "go")
	actionlint := anchorTool(t, "actionlint", actionlintVersion)
	out := filepath.Join(t.TempDir(), "action")
	cmd := exec.Command("bash", "scripts/action-local.sh", out)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "ACTIONLINT="+actionlint, "ACTION_LOCAL_KEYLESS=1")
	b, err := cmd.CombinedOutput()
	text := string(b)
	if err != nil {
		t.Fatalf("ACTION_LOCAL_KEYLESS=1 scripts/action-local.sh: %v\n%s", err, text)
	}
	const identity = "https://github.com/acme/hello-dsh-plugin/.github/workflows/release.yml@refs/tags/v1.0.0"
	for _, want := range []string{"### dshaudit: verified: hello\\-dsh\\-plugin\\@1\\.0\\.0", "PASSED, levels", "--certificate-identity '" + identity + "'", "action-local: ok"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	up := filepath.Join(out, "uploaded")
	summary, bundle := filepath.Join(up, "pass.vsa.sigstore.json"), filepath.Join(up, "pass.dshaudit.tar.zst")
	sig, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sig), `"certificate"`) || strings.Contains(string(sig), `"publicKey"`) {
		t.Fatalf("the uploaded summary is not signed with a certificate:\n%s", sig)
	}
	trust := func(id string) []string {
		return []string{"--trusted-root", ss.TrustedRoot, "--certificate-identity", id, "--certificate-oidc-issuer", ss.Issuer, "--artifact", bundle}
	}
	if code, o, e := runCLI(t, append([]string{"verify-summary", summary, "--level", "DSHIO_DYNAMIC_PASS", "--verifier-id", "https://github.com/acme/hello-dsh-plugin/actions"}, trust(identity)...)...); code != ExitOK {
		t.Errorf("verify-summary: exit %d\n%s\n%s", code, o, e)
	}
	if code, _, _ := runCLI(t, append([]string{"verify-summary", summary}, trust("https://github.com/other/repo/.github/workflows/release.yml@refs/tags/v1.0.0")...)...); code == ExitOK {
		t.Error("verify-summary accepted another identity")
	}
	if code, _, _ := runCLI(t, "verify-summary", summary, "--key", filepath.Join(repoRoot, "testdata/vectors/keys/signer.pub"), "--artifact", bundle); code == ExitOK {
		t.Error("verify-summary accepted the keyless summary with a key")
	}
	dir := t.TempDir()
	cosign := func(id string) (string, error) {
		return runTool(t, dir, ss.Cosign, "verify-blob-attestation", "--bundle", summary, "--trusted-root", ss.TrustedRoot,
			"--certificate-identity", id, "--certificate-oidc-issuer", ss.Issuer, "--type", "https://slsa.dev/verification_summary/v1", bundle)
	}
	if o, err := cosign(identity); err != nil {
		t.Errorf("cosign refused the keyless summary: %v\n%s", err, o)
	} else {
		t.Logf("cosign: %s", lastLineOf(o))
	}
	if o, err := cosign("https://github.com/other/repo/.github/workflows/release.yml@refs/tags/v1.0.0"); err == nil {
		t.Errorf("cosign accepted another identity:\n%s", o)
	}
}
