package claimfuzz_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/claim"
)

// fuzzFacts are the facts of a verified dynamic pass bundle for the
// package of testdata/claims/backed-readme.md, so that seeds reach the
// comparison of every field.
var fuzzFacts = claim.Facts{
	Verified:    true,
	Status:      "verified",
	Standards:   []string{"DSHIO/T 10—2026", "DSHIO/T 20—2026", "DSHIO/T 21—2026"},
	Package:     "hello-dsh-plugin@1.0.0",
	Baseline:    "0.2.2-rc.1",
	TestDate:    "2026-11-20",
	Fingerprint: "dsh=0.1.0-rc.8;img=localhost/dsh-sandbox:0.1.0-rc.8@sha256:eaf49322f7d91a34c96e687a524b3a80d2ad003048207a9483fd659e6476b6d7;node=24.11.1;pnpm=9.15.9;mem=768m;cpu=1",
	Dynamic:     true,
	Verdict:     "pass",
}

// FuzzCheck feeds hostile claim texts to claim.Check, seeded with every
// claim fixture (SPEC.md "Claims"): no panic; every finding and
// declaration names a line of the text (or 0, the text as a whole); the
// outcome agrees with the findings.
func FuzzCheck(f *testing.F) {
	seeds, err := filepath.Glob("../../testdata/claims/*.md")
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no claim fixtures: %v", err)
	}
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, text string) {
		res := claim.Check(text, fuzzFacts, "hello-dsh-plugin@1.0.0")
		lines := len(strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n"))
		contradicts := false
		for _, fd := range res.Findings {
			if fd.Line < 0 || fd.Line > lines {
				t.Fatalf("finding on line %d of a %d-line text: %v", fd.Line, lines, fd)
			}
			contradicts = contradicts || fd.Kind == claim.KindContradicts
		}
		for _, d := range res.Declarations {
			if d.Line < 1 || d.Line > lines {
				t.Fatalf("declaration on line %d of a %d-line text", d.Line, lines)
			}
		}
		switch {
		case contradicts && res.Outcome != claim.Contradicts,
			!contradicts && len(res.Findings) > 0 && res.Outcome != claim.NotBacked,
			len(res.Findings) == 0 && res.Outcome != claim.Backed:
			t.Fatalf("outcome %s with findings %v", res.Outcome, res.Findings)
		}
		if res.Outcome == claim.Backed && len(res.Declarations) == 0 {
			t.Fatal("backed without a declaration")
		}
	})
}
