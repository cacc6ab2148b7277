package attest_test

// The runner policy against the real Fulcio of scripts/setup-sigstore.sh,
// whose GitHub issuer type turns the test OIDC issuer's job_workflow_ref
// and runner_environment claims into the certificate's build signer URI
// and runner environment (SPEC.md "Runner policy").

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
)

const (
	auditWorkflowRef = "dshaudit/dshaudit/.github/workflows/audit.yml@refs/tags/v1.15.0"
	auditWorkflow    = "https://github.com/" + auditWorkflowRef
	auditWorkflowRe  = `^https://github\.com/dshaudit/dshaudit/\.github/workflows/audit\.yml@refs/tags/v[0-9]`
)

// runnerPredicate is what the audit workflow's dshaudit v1.15.0 signs.
var runnerPredicate = attest.Predicate{Tool: attest.Tool{Name: "dshaudit", Version: "v1.15.0"}, Subject: testPredicate.Subject, Verdict: testPredicate.Verdict}

// signAs signs testManifest with a token whose claims are the defaults
// (the caller's release workflow) overridden by claims.
func signAs(t *testing.T, ss *e2etest.Sigstore, signer func(tok string) attest.BundleSigner, claims map[string]string) []byte {
	t.Helper()
	sig, err := attest.Sign(context.Background(), testManifest, runnerPredicate, signer(ss.Token(t, claims)))
	if err != nil {
		t.Fatalf("keyless sign as %v: %v", claims, err)
	}
	return sig
}

func TestKeylessE2ERunnerPolicy(t *testing.T) {
	ss := e2etest.RequireSigstore(t)
	signer := func(tok string) attest.BundleSigner { return keylessSigner(t, ss, staticToken(tok)) }
	policy := func(identity string, r *attest.RunnerPolicy) attest.Policy {
		p := e2ePolicy(t, ss, identity, ss.Issuer)
		p.Keyless.Runner = r
		return p
	}
	exact := &attest.RunnerPolicy{Workflow: auditWorkflow}
	re := &attest.RunnerPolicy{WorkflowRegexp: auditWorkflowRe}

	// The reusable workflow's job signs: Fulcio certifies its
	// job_workflow_ref as identity and build signer URI.
	good := signAs(t, ss, signer, map[string]string{"job_workflow_ref": auditWorkflowRef})
	for name, r := range map[string]*attest.RunnerPolicy{"exact": exact, "regexp": re} {
		res, err := attest.Verify(good, testManifest, policy(auditWorkflow, r))
		if err != nil {
			t.Fatalf("%s: the audit workflow's signature: %v", name, err)
		}
		if res.AuditWorkflow != auditWorkflow || res.Certificate.RunnerEnvironment != attest.GitHubHosted {
			t.Errorf("%s: audit workflow %q, certificate %+v", name, res.AuditWorkflow, res.Certificate)
		}
	}
	// cosign checks the same identity, and the caller's repository in
	// the GitHub workflow extensions.
	if ss.Cosign != "" {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "manifest.json"), testManifest, 0o644)
		os.WriteFile(filepath.Join(dir, "signature.sigstore.json"), good, 0o644)
		cmd := exec.Command(ss.Cosign, "verify-blob-attestation", "--bundle", "signature.sigstore.json",
			"--trusted-root", ss.TrustedRoot, "--certificate-identity", auditWorkflow, "--certificate-oidc-issuer", ss.Issuer,
			"--certificate-github-workflow-repository", "dshaudit-e2e/hello-plugin", "--certificate-github-workflow-trigger", "push",
			"--type", attest.PredicateType, "manifest.json")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+dir, "TUF_ROOT="+filepath.Join(dir, "tuf"))
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "Verified OK") {
			t.Errorf("cosign: %v\n%s", err, out)
		}
	}

	// Each refusal names what the policy wanted and what the certificate
	// holds. The identity rule is each signature's own, so that only the
	// runner policy refuses.
	for _, tc := range []struct {
		name     string
		claims   map[string]string
		identity string
		want     []string
	}{
		{"the caller's own workflow", nil, testOIDCIdentity, []string{"build signer URI", auditWorkflow, testOIDCIdentity}},
		{"a self-hosted runner", map[string]string{"job_workflow_ref": auditWorkflowRef, "runner_environment": "self-hosted"}, auditWorkflow, []string{"runner environment", `"github-hosted"`, `"self-hosted"`}},
		{"the workflow at a branch", map[string]string{"job_workflow_ref": "dshaudit/dshaudit/.github/workflows/audit.yml@refs/heads/main"}, "https://github.com/dshaudit/dshaudit/.github/workflows/audit.yml@refs/heads/main", []string{auditWorkflow, "refs/heads/main"}},
		{"another repository's copy", map[string]string{"job_workflow_ref": "mallory/dshaudit/.github/workflows/audit.yml@refs/tags/v1.15.0", "repository": "mallory/dshaudit"}, "https://github.com/mallory/dshaudit/.github/workflows/audit.yml@refs/tags/v1.15.0", []string{auditWorkflow, "mallory/dshaudit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sig := signAs(t, ss, signer, tc.claims)
			// Without the runner policy it verifies: the signer's word.
			if res, err := attest.Verify(sig, testManifest, policy(tc.identity, nil)); err != nil || res.AuditWorkflow != "" {
				t.Fatalf("without the runner policy: %v, audit workflow %q", err, res.AuditWorkflow)
			}
			for name, r := range map[string]*attest.RunnerPolicy{"exact": exact, "regexp": re} {
				_, err := attest.Verify(sig, testManifest, policy(tc.identity, r))
				wantErr(t, err, attest.ErrUntrustedSigner)
				for _, w := range tc.want {
					if name == "regexp" && w == auditWorkflow {
						w = "want a match of"
					}
					if err != nil && !strings.Contains(err.Error(), w) {
						t.Errorf("%s: %v\n does not say %q", name, err, w)
					}
				}
			}
		})
	}
}
