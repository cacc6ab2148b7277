package verify_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/verify"
)

// TestCosignMadeStatement: a bundle whose signature cosign made (valid,
// over an in-toto Statement v0.1) is refused for its statement type, not
// as an invalid signature (testdata/cosign/SOURCE.md).
func TestCosignMadeStatement(t *testing.T) {
	key, err := attest.LoadPublicKey("../testdata/cosign/cosign.pub")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../testdata/cosign/statement-v01.dshaudit.tar.zst")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Verify(context.Background(), "statement-v01", bytes.NewReader(raw), verify.Options{Policy: attest.Policy{Key: key}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != verify.StatusStatementUnsupported || len(rep.Findings) != 1 {
		t.Fatalf("status %s, findings %v; want %s alone", rep.Status, rep.Findings, verify.StatusStatementUnsupported)
	}
	f := rep.Findings[0]
	if f.Class != verify.ClassStatementUnsupported || !strings.Contains(f.Message, `statement _type "https://in-toto.io/Statement/v0.1"`) ||
		!strings.Contains(f.Message, "the signature itself is valid") || strings.Contains(f.Message, "signature invalid") {
		t.Errorf("finding %+v", f)
	}
	if rep.DerivedVerdict != "pass" {
		t.Errorf("derived verdict %q: the rest of the bundle is still checked", rep.DerivedVerdict)
	}
}
