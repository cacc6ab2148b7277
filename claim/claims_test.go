package claim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/claim"
	"github.com/dshaudit/dshaudit/internal/testutil/vectortest"
	"github.com/dshaudit/dshaudit/verify"
)

// TestClaimCases checks every claim fixture against a real verification
// of a test-vector bundle.
func TestClaimCases(t *testing.T) {
	raw, err := os.ReadFile("../testdata/claims/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var idx struct {
		Cases []struct {
			Claim, Bundle, Package, Outcome string
			Clauses                         []string
		}
	}
	if err := json.Unmarshal(raw, &idx); err != nil {
		t.Fatal(err)
	}
	key, err := attest.LoadPublicKey("../testdata/vectors/keys/signer.pub")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range idx.Cases {
		t.Run(c.Claim+"/"+c.Bundle+"/"+c.Package, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join("../testdata/claims", c.Claim))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("../testdata/vectors", c.Bundle+".dshaudit.tar.zst")
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rep, err := verify.Verify(context.Background(), path, f, verify.Options{Policy: attest.Policy{Key: key}})
			if err != nil {
				t.Fatal(err)
			}
			res := claim.Check(string(text), claim.FactsFromReport(rep), c.Package)
			var clauses []string
			for _, fd := range res.Findings {
				if !slices.Contains(clauses, fd.Clause) {
					clauses = append(clauses, fd.Clause)
				}
			}
			slices.Sort(clauses)
			want := append([]string{}, c.Clauses...)
			slices.Sort(want)
			if string(res.Outcome) != c.Outcome || !slices.Equal(clauses, want) {
				t.Errorf("outcome %q clauses %q, want %q %q; findings:", res.Outcome, clauses, c.Outcome, want)
				for _, fd := range res.Findings {
					t.Logf("  %s", fd)
				}
			}
			for _, fd := range res.Findings {
				if fd.Kind == claim.KindForbidden && fd.Line == 0 {
					t.Errorf("forbidden statement without a line: %s", fd)
				}
			}
		})
	}
}

// TestOwnDeclarationBacked: the declaration a bundle carries (the one
// `run` prints for the README, deviations and all) is backed by that
// bundle, for every valid vector that supports one.
func TestOwnDeclarationBacked(t *testing.T) {
	key, err := attest.LoadPublicKey("../testdata/vectors/keys/signer.pub")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range []string{"pass", "unstable", "boot_failed", "boot_failed_hang", "boot_failed_exits", "install_failed", "config_failed", "installs_but_not_registered", "static_only"} {
		path := filepath.Join("../testdata/vectors", name+".dshaudit.tar.zst")
		raw, _, m := vectortest.ReadBundle(t, path)
		if m.Declaration == "" {
			continue
		}
		rep, err := verify.Verify(context.Background(), path, bytes.NewReader(raw), verify.Options{Policy: attest.Policy{Key: key}})
		if err != nil {
			t.Fatal(err)
		}
		res := claim.Check("# plugin\n\n"+m.Declaration, claim.FactsFromReport(rep), "")
		if res.Outcome != claim.Backed {
			t.Errorf("%s: its own declaration is %s:\n%s", name, res.Outcome, m.Declaration)
			for _, f := range res.Findings {
				t.Logf("  %s", f)
			}
		}
		checked++
	}
	if checked < 5 {
		t.Errorf("only %d vectors carry a declaration", checked)
	}
}
