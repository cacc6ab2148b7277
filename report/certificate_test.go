package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/attest/signed"
)

// TestPageShowsCertificateEscaped: a keyless signer's certificate values
// (the signer's words, copied by Fulcio from the token) appear on the
// page as text, never as markup.
func TestPageShowsCertificateEscaped(t *testing.T) {
	hostile := `https://github.com/o/r"><script>alert(1)</script>`
	p := &Page{Title: "t", Status: "verified", Verified: true, Signer: hostile + " (issuer x)",
		Certificate: &signed.Certificate{Identity: hostile, Issuer: "x", SourceRepository: hostile, SourceRepositoryRef: "refs/tags/v1",
			Workflow: hostile, Run: "https://github.com/o/r/actions/runs/1/attempts/1",
			NotBefore: time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC), NotAfter: time.Date(2026, 12, 4, 10, 10, 0, 0, time.UTC)},
		SignedAt: []time.Time{time.Date(2026, 12, 4, 10, 0, 1, 0, time.UTC)}}
	var b bytes.Buffer
	if err := WritePage(&b, p); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, "<script>alert") {
		t.Fatal("a certificate value became markup")
	}
	for _, want := range []string{"<dt>Source repository</dt>", "<dt>Ref</dt><dd class=\"mono\">refs/tags/v1</dd>", "<dt>Workflow</dt>", "<dt>Run</dt>",
		"2026-12-04T10:00:00Z to 2026-12-04T10:10:00Z", "2026-12-04T10:00:01Z (verified timestamp)", "&lt;script&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<dt>Trigger</dt>") {
		t.Error("an empty extension has a row")
	}
}

// TestPageSaysWhoProducedTheEvidence: the audit workflow the runner
// policy accepted, escaped, or the signer's word without one.
func TestPageSaysWhoProducedTheEvidence(t *testing.T) {
	const wf = "https://github.com/dshaudit/dshaudit/.github/workflows/audit.yml@refs/tags/v1.15.0"
	cert := &signed.Certificate{Identity: wf, Issuer: "x", BuildSignerURI: wf, RunnerEnvironment: "github-hosted<b>"}
	for _, tc := range []struct {
		p    *Page
		want []string
	}{
		{&Page{Title: "t", Status: "verified", Verified: true, Signer: wf, Certificate: cert, AuditWorkflow: wf + "<i>"},
			[]string{"<dt>Build signer</dt><dd class=\"mono\">" + wf + "</dd>", "<dt>Runner</dt><dd class=\"mono\">github-hosted&lt;b&gt;</dd>", "<dt>Produced by</dt><dd>the audit workflow <span class=\"mono\">" + wf + "&lt;i&gt;</span>"}},
		{&Page{Title: "t", Status: "verified", Verified: true, Signer: "key sha256:ab"}, []string{"<dt>Produced by</dt><dd>the signer's word"}},
	} {
		var b bytes.Buffer
		if err := WritePage(&b, tc.p); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("page lacks %q", w)
			}
		}
	}
}
