package attest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/dshaudit/dshaudit/attest/signed"
)

// AuditWorkflowPath is dshaudit's reusable audit workflow in its
// repository; a runner policy accepts only a build signer URI naming it.
const AuditWorkflowPath = ".github/workflows/audit.yml"

// GitHubHosted is the runner environment extension's value for a runner
// GitHub provides (…1.11); "self-hosted" is the other.
const GitHubHosted = "github-hosted"

// tagRef prefixes a release tag in a build signer URI's ref.
const tagRef = "refs/tags/"

// RunnerPolicy requires that the evidence was produced by dshaudit's
// audit workflow, which the signer could not change (SPEC.md
// "Runner policy"): the certificate's build signer URI (the
// job_workflow_ref Fulcio certifies) is Workflow exactly, or matches
// WorkflowRegexp (unanchored, like the identity regexp), and in any case
// names AuditWorkflowPath at a release tag (refs/tags/…); the runner
// environment is GitHubHosted; and the signed tool version is the tag's
// version. Exactly one of Workflow and WorkflowRegexp is set.
type RunnerPolicy struct {
	Workflow, WorkflowRegexp string
}

// Validate is validate, for a caller that checks its flags before
// verifying anything.
func (r *RunnerPolicy) Validate() error { return r.validate() }

// validate refuses a policy with neither or both rules, or a regexp
// that does not compile.
func (r *RunnerPolicy) validate() error {
	switch {
	case (r.Workflow == "") == (r.WorkflowRegexp == ""):
		return fmt.Errorf("%w: a runner policy needs exactly one of the audit workflow and its regexp", ErrAmbiguousPolicy)
	case r.WorkflowRegexp != "":
		if _, err := regexp.Compile(r.WorkflowRegexp); err != nil {
			return fmt.Errorf("%w: audit workflow regexp: %w", ErrAmbiguousPolicy, err)
		}
	default:
		if _, _, err := SplitAuditWorkflow(r.Workflow); err != nil {
			return fmt.Errorf("%w: audit workflow: %w", ErrAmbiguousPolicy, err)
		}
	}
	return nil
}

// want is the rule as a finding words it.
func (r *RunnerPolicy) want() string {
	if r.Workflow != "" {
		return fmt.Sprintf("%q", r.Workflow)
	}
	return fmt.Sprintf("a match of %q", r.WorkflowRegexp)
}

// SplitAuditWorkflow splits a build signer URI naming the audit workflow
// at a release tag, "https://github.com/OWNER/REPO/.github/workflows/audit.yml@refs/tags/TAG",
// into the repository URI and the tag; an error says which part is not
// that.
func SplitAuditWorkflow(uri string) (repo, tag string, err error) {
	path, ref, ok := strings.Cut(uri, "@")
	if !ok {
		return "", "", fmt.Errorf("%q names no ref (want …/%s@refs/tags/TAG)", uri, AuditWorkflowPath)
	}
	repo, ok = strings.CutSuffix(path, "/"+AuditWorkflowPath)
	if !ok || repo == "" {
		return "", "", fmt.Errorf("%q is not the audit workflow (want …/%s@refs/tags/TAG)", uri, AuditWorkflowPath)
	}
	tag, ok = strings.CutPrefix(ref, tagRef)
	if !ok || tag == "" {
		return "", "", fmt.Errorf("%q is the audit workflow at %q, not at a release tag (want refs/tags/TAG)", uri, ref)
	}
	return repo, tag, nil
}

// check holds a verified certificate and the signed tool to the policy;
// the error wraps ErrUntrustedSigner and names what was expected and
// what the certificate or statement holds.
// A nil tool skips the version check (a summary's, which its caller
// makes against the summary's verifier version).
func (r *RunnerPolicy) check(c *signed.Certificate, tool *signed.Tool) error {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%w: runner policy: "+format, append([]any{ErrUntrustedSigner}, a...)...)
	}
	uri := c.BuildSignerURI
	if uri == "" {
		return fail("the certificate has no build signer URI (1.3.6.1.4.1.57264.1.9); want %s", r.want())
	}
	if r.Workflow != "" && uri != r.Workflow {
		return fail("build signer URI: want %s, the certificate holds %q", r.want(), uri)
	}
	if r.WorkflowRegexp != "" {
		if re, err := regexp.Compile(r.WorkflowRegexp); err != nil || !re.MatchString(uri) {
			return fail("build signer URI: want %s, the certificate holds %q", r.want(), uri)
		}
	}
	_, tag, err := SplitAuditWorkflow(uri)
	if err != nil {
		return fail("build signer URI: %v", err)
	}
	if c.RunnerEnvironment != GitHubHosted {
		return fail("runner environment: want %q, the certificate holds %q", GitHubHosted, c.RunnerEnvironment)
	}
	if tool == nil {
		return nil
	}
	if !SameVersion(tag, tool.Version) || tool.Name != "dshaudit" {
		return fail("tool: want dshaudit %s (the workflow's tag), the signed statement says %s %s", tag, tool.Name, tool.Version)
	}
	return nil
}

// SameVersion reports whether a release tag and a tool version name the
// same release, with or without the leading "v".
func SameVersion(tag, version string) bool {
	return tag != "" && strings.TrimPrefix(tag, "v") == strings.TrimPrefix(version, "v")
}
