package attest

import (
	"errors"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/attest/signed"
)

// The audit workflow's identity as public-good Fulcio certifies it, and
// the refusals SPEC.md "Runner policy" lists: each names what the
// policy wanted and what the certificate or statement holds.
func TestRunnerPolicyCheck(t *testing.T) {
	const (
		wf     = "https://github.com/dshaudit/dshaudit/.github/workflows/audit.yml@refs/tags/v1.15.0"
		wfRe   = `^https://github\.com/dshaudit/dshaudit/\.github/workflows/audit\.yml@refs/tags/v`
		caller = "https://github.com/acme/dsh-plugin-x/.github/workflows/release.yml@refs/tags/v2.0.0"
		branch = "https://github.com/dshaudit/dshaudit/.github/workflows/audit.yml@refs/heads/main"
		fork   = "https://github.com/mallory/dshaudit/.github/workflows/audit.yml@refs/tags/v1.15.0"
	)
	cert := func(uri, runner string) *signed.Certificate {
		return &signed.Certificate{BuildSignerURI: uri, RunnerEnvironment: runner}
	}
	tool := &signed.Tool{Name: "dshaudit", Version: "v1.15.0"}
	exact, re := &RunnerPolicy{Workflow: wf}, &RunnerPolicy{WorkflowRegexp: wfRe}
	for _, tc := range []struct {
		name string
		p    *RunnerPolicy
		c    *signed.Certificate
		tool *signed.Tool
		want []string // substrings of the refusal; none: accepted
	}{
		{"exact", exact, cert(wf, GitHubHosted), tool, nil},
		{"regexp", re, cert(wf, GitHubHosted), tool, nil},
		{"version without v", exact, cert(wf, GitHubHosted), &signed.Tool{Name: "dshaudit", Version: "1.15.0"}, nil},
		{"summary: no tool", exact, cert(wf, GitHubHosted), nil, nil},
		{"caller's own workflow", exact, cert(caller, GitHubHosted), tool, []string{"build signer URI", wf, caller}},
		{"caller's own workflow, regexp", re, cert(caller, GitHubHosted), tool, []string{"a match of", caller}},
		{"self-hosted runner", exact, cert(wf, "self-hosted"), tool, []string{"runner environment", `"github-hosted"`, `"self-hosted"`}},
		{"no runner environment", exact, cert(wf, ""), tool, []string{"runner environment", `""`}},
		{"branch, exact", exact, cert(branch, GitHubHosted), tool, []string{wf, branch}},
		{"branch, regexp admitting it", &RunnerPolicy{WorkflowRegexp: `^https://github\.com/dshaudit/dshaudit/`}, cert(branch, GitHubHosted), tool, []string{"not at a release tag", "refs/heads/main"}},
		{"another repository's copy", exact, cert(fork, GitHubHosted), tool, []string{wf, fork}},
		{"another repository's copy, regexp", re, cert(fork, GitHubHosted), tool, []string{"a match of", fork}},
		{"other workflow file, loose regexp", &RunnerPolicy{WorkflowRegexp: `dshaudit/dshaudit/`}, cert("https://github.com/dshaudit/dshaudit/.github/workflows/ci.yml@refs/tags/v1.15.0", GitHubHosted), tool, []string{"is not the audit workflow"}},
		{"no build signer", exact, cert("", GitHubHosted), tool, []string{"no build signer URI", wf}},
		{"tool version not the tag's", exact, cert(wf, GitHubHosted), &signed.Tool{Name: "dshaudit", Version: "v1.14.0"}, []string{"want dshaudit v1.15.0", "says dshaudit v1.14.0"}},
		{"dev build", exact, cert(wf, GitHubHosted), &signed.Tool{Name: "dshaudit", Version: "dev"}, []string{"says dshaudit dev"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.check(tc.c, tc.tool)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrUntrustedSigner) {
				t.Fatalf("err = %v, want ErrUntrustedSigner", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\n does not say %q", err, w)
				}
			}
		})
	}
}

func TestRunnerPolicyValidate(t *testing.T) {
	for _, p := range []*RunnerPolicy{
		{},
		{Workflow: "a", WorkflowRegexp: "b"},
		{WorkflowRegexp: "("},
		{Workflow: "https://github.com/dshaudit/dshaudit/.github/workflows/audit.yml@refs/heads/main"},
		{Workflow: "https://github.com/dshaudit/dshaudit/.github/workflows/audit.yml"},
	} {
		if err := p.Validate(); !errors.Is(err, ErrAmbiguousPolicy) {
			t.Errorf("%+v: err = %v, want ErrAmbiguousPolicy", p, err)
		}
	}
	if err := (&RunnerPolicy{Workflow: "https://github.com/dshaudit/dshaudit/.github/workflows/audit.yml@refs/tags/v1.15.0"}).Validate(); err != nil {
		t.Error(err)
	}
}
