package report

import (
	"bytes"
	"html"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/verify"
)

// TestUnverifiedMetadataIsVerifys: the page lists exactly the verifier's
// unverified metadata (field and value), labelled as such.
func TestUnverifiedMetadataIsVerifys(t *testing.T) {
	_, pol := loadVectors(t)
	in := vectorInput(t, "pass.dshaudit.tar.zst", pol)
	rep, err := verify.Verify(t.Context(), in.Name, bytes.NewReader(in.Raw), in.Verify)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Unverified) == 0 {
		t.Fatal("verify lists no unverified metadata for pass; nothing to compare")
	}
	p, page := render(t, in)
	if len(p.Unverified) != len(rep.Unverified) {
		t.Fatalf("page has %d unverified fields, verify %d", len(p.Unverified), len(rep.Unverified))
	}
	s := strings.ReplaceAll(string(page), "<wbr>", "") // the report's own break points
	if !strings.Contains(s, "Unverified metadata") {
		t.Error("the page does not label the list as unverified metadata")
	}
	for i, u := range rep.Unverified {
		if p.Unverified[i] != u {
			t.Errorf("field %d: page %+v, verify %+v", i, p.Unverified[i], u)
		}
		if !strings.Contains(s, ">"+html.EscapeString(u.Field)+"<") {
			t.Errorf("page does not show %q", u.Field)
		}
	}
}
