package verify

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
)

const kitDir = "../testdata/conformance"

type kitCase struct {
	Name, File, Family, Status, Verdict, Field, Spec string
	Classes                                          []string
}

// TestConformanceKit holds the verifier to every case of the conformance
// kit (SPEC.md "Conformance kit"): the exact status, set of finding
// classes and re-derived verdict the index gives, and, where it names one,
// a finding of its first class on that field. The kit's expected outcomes
// are set by construction in tools/vectorgen, never by running this
// verifier.
func TestConformanceKit(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(kitDir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx struct {
		Key   string
		Cases []kitCase
	}
	if err := json.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	if len(idx.Cases) < 300 {
		t.Errorf("the kit holds %d cases, want at least 300", len(idx.Cases))
	}
	key, err := attest.LoadPublicKey(filepath.Join(kitDir, idx.Key))
	if err != nil {
		t.Fatal(err)
	}
	families := map[string]int{}
	for _, c := range idx.Cases {
		families[c.Family]++
		t.Run(c.Name, func(t *testing.T) {
			f, err := os.Open(filepath.Join(kitDir, c.File))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rep, err := Verify(context.Background(), c.File, f, Options{Policy: attest.Policy{Key: key}})
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			var classes []string
			for _, fd := range rep.Findings {
				if !slices.Contains(classes, string(fd.Class)) {
					classes = append(classes, string(fd.Class))
				}
			}
			slices.Sort(classes)
			want := slices.Sorted(slices.Values(c.Classes))
			if !slices.Equal(classes, want) {
				t.Errorf("classes = %v, want exactly %v; findings:\n%s", classes, want, findingsText(rep))
			}
			if string(rep.Status) != c.Status {
				t.Errorf("status = %q, want %q", rep.Status, c.Status)
			}
			if rep.DerivedVerdict != c.Verdict {
				t.Errorf("derived verdict = %q, want %q", rep.DerivedVerdict, c.Verdict)
			}
			if c.Field != "" && len(c.Classes) > 0 && !slices.ContainsFunc(rep.Findings, func(f Finding) bool { return string(f.Class) == c.Classes[0] && f.Field == c.Field }) {
				t.Errorf("no [%s] finding names field %q; findings:\n%s", c.Classes[0], c.Field, findingsText(rep))
			}
		})
	}
	for _, fam := range []string{"vector", "honest", "mutated"} {
		if families[fam] == 0 {
			t.Errorf("the kit has no %s case", fam)
		}
	}
	t.Logf("%d cases: %v", len(idx.Cases), families)
	spec, err := os.ReadFile("../SPEC.md")
	if err != nil {
		t.Fatal(err)
	}
	headings := map[string]bool{}
	for _, l := range strings.Split(string(spec), "\n") {
		if h := strings.TrimLeft(l, "#"); h != l && strings.HasPrefix(h, " ") {
			headings[strings.TrimSpace(h)] = true
		}
	}
	for _, c := range idx.Cases {
		if c.Spec != "" && !headings[c.Spec] {
			t.Errorf("%s pins SPEC.md %q, which is no heading of SPEC.md", c.Name, c.Spec)
		}
	}
}
