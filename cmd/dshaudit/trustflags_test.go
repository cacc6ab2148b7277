package main

import (
	"errors"
	"testing"
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
