package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/internal/termtext"
	"github.com/dshaudit/dshaudit/verify"
	"github.com/dshaudit/dshaudit/vsa"
)

// The runner policy flags: keyless only, one of exact and regexp, and the
// workflow rule stands for the identity rule when none is given.
func TestTrustFlagsAuditWorkflow(t *testing.T) {
	const wf = "https://github.com/dshaudit/dshaudit/.github/workflows/audit.yml@refs/tags/v1.15.0"
	for name, o := range map[string]trustFlags{
		"with --key":       {Key: "k.pub", AuditWorkflow: wf},
		"exact and regexp": {TrustedRoot: "testdata/none.json", AuditWorkflow: wf, AuditWorkflowRegexp: "x"},
	} {
		if _, err := o.policy(); !errors.Is(err, ErrUsage) {
			t.Errorf("%s: err = %v, want a usage error", name, err)
		}
	}
}

// Without a runner policy verify says the evidence is the signer's word,
// in text and --json; a runner policy with a key is a usage error.
func TestVerifyProducedBySigner(t *testing.T) {
	code, out, _ := runCLI(t, "verify", vecDir+"pass.dshaudit.tar.zst", "--key", vecKey)
	if code != ExitOK || !strings.Contains(out, "produced by:  the signer's word") {
		t.Errorf("exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "verify", vecDir+"pass.dshaudit.tar.zst", "--key", vecKey, "--json")
	var rep verify.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != ExitOK || rep.ProducedBy != verify.ProducedBySigner || rep.AuditWorkflow != "" {
		t.Errorf("exit %d %v: produced_by %q audit_workflow %q", code, err, rep.ProducedBy, rep.AuditWorkflow)
	}
	code, _, errOut := runCLI(t, "verify", vecDir+"pass.dshaudit.tar.zst", "--key", vecKey,
		"--certificate-audit-workflow", "https://github.com/dshaudit/dshaudit/.github/workflows/audit.yml@refs/tags/v1.15.0")
	if code != ExitUsage || !strings.Contains(errOut, "--trusted-root") {
		t.Errorf("runner policy with --key: exit %d\n%s", code, errOut)
	}
}

// printProducedBy names the audit workflow, escaped.
func TestPrintProducedBy(t *testing.T) {
	var b strings.Builder
	printProducedBy(&b, termtext.Style{}, &verify.Report{ProducedBy: verify.ProducedByAuditWorkflow, AuditWorkflow: "https://github.com/dshaudit/dshaudit/.github/workflows/audit.yml@refs/tags/v1.15.0\x1b[2J"})
	if got := b.String(); !strings.Contains(got, "produced by:  the audit workflow https://github.com/dshaudit/dshaudit/.github/workflows/audit.yml@refs/tags/v1.15.0") || strings.Contains(got, "\x1b") {
		t.Errorf("%q", got)
	}
}

// A summary the audit workflow signed must carry its tag's verifier
// version and DSHIO_AUDIT_WORKFLOW.
func TestAuditWorkflowStep(t *testing.T) {
	const wf = "https://github.com/dshaudit/dshaudit/.github/workflows/audit.yml@refs/tags/v1.15.0"
	st := func(version string, levels ...string) *vsa.Statement {
		s := &vsa.Statement{}
		s.Predicate.Verifier.Version = map[string]string{vsa.VerifierComponent: version}
		s.Predicate.VerifiedLevels = levels
		return s
	}
	for _, tc := range []struct {
		st      *vsa.Statement
		outcome string
		want    string
	}{
		{st("v1.15.0", vsa.DynamicLevel("pass"), vsa.AuditWorkflow), vsa.StepPassed, "produced by the audit workflow " + wf},
		{st("1.15.0", vsa.AuditWorkflow), vsa.StepPassed, ""},
		{st("v1.14.0", vsa.AuditWorkflow), vsa.StepFailed, `want verifier version v1.15.0, the summary says "v1.14.0"`},
		{st("v1.15.0", vsa.DynamicLevel("pass")), vsa.StepFailed, "want DSHIO_AUDIT_WORKFLOW in verifiedLevels"},
	} {
		s := auditWorkflowStep(tc.st, wf)
		if s.Outcome != tc.outcome || !strings.Contains(s.Detail, tc.want) {
			t.Errorf("%+v: %+v", tc.st.Predicate, s)
		}
	}
}
