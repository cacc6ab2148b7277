package static

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// vectorsDir holds the shared T0 test vectors.
const vectorsDir = "../../testdata/static"

type vectorFile struct {
	Baseline    string   `json:"baseline"`
	ClauseOrder []string `json:"clause_order"`
	Fixtures    []vector `json:"fixtures"`
}

type vector struct {
	Name             string              `json:"name"`
	InstalledSize    *int64              `json:"installed_size"`
	Baseline         string              `json:"baseline"`
	Unresolvable     bool                `json:"unresolvable"`
	ConformingStatic *bool               `json:"conforming_static"`
	Clauses          map[string]Status   `json:"clauses"`
	WarningsContain  map[string][]string `json:"warnings_contain"`
	TextContains     map[string][]string `json:"text_contains"`
	TextLacks        map[string][]string `json:"text_lacks"`
}

func loadVectors(t testing.TB) vectorFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(vectorsDir, "expected.json"))
	if err != nil {
		t.Fatalf("read vectors: %v", err)
	}
	var vf vectorFile
	if err := json.Unmarshal(b, &vf); err != nil {
		t.Fatalf("parse expected.json: %v", err)
	}
	return vf
}

// fixtureInput builds the Input for one fixture directory the way the
// runner does: package.json, then the patch file at the declared path.
func fixtureInput(t testing.TB, dir string, baseline string, size *int64) Input {
	t.Helper()
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		if b == nil {
			b = []byte{}
		}
		return b
	}
	in := Input{PackageJSON: read("package.json"), README: read("README.md"),
		EntrySchema: read("schema.json"), Baseline: baseline, InstalledSize: -1}
	if size != nil {
		in.InstalledSize = *size
	}
	p, err := PatchPath(in.PackageJSON)
	switch {
	case err != nil:
		in.PatchFetchError = err.Error()
	default:
		in.Patch = read(p)
		if in.Patch == nil {
			in.PatchFetchError = "file " + p + " is not in the fixture"
		}
	}
	return in
}

func TestVectors(t *testing.T) {
	vf := loadVectors(t)
	if !slices.Equal(vf.ClauseOrder, clauseIDs()) {
		t.Fatalf("expected.json clause_order %v, Check reports %v", vf.ClauseOrder, clauseIDs())
	}
	dirs, err := os.ReadDir(vectorsDir)
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, v := range vf.Fixtures {
		covered[v.Name] = true
		t.Run(v.Name, func(t *testing.T) {
			base := v.Baseline
			if base == "" {
				base = vf.Baseline
			}
			rep := Check(fixtureInput(t, filepath.Join(vectorsDir, v.Name), base, v.InstalledSize))
			checkReport(t, v, rep)
		})
	}
	for _, d := range dirs {
		if d.IsDir() && !covered[d.Name()] {
			t.Errorf("fixture directory %q has no entry in expected.json", d.Name())
		}
	}
}

func checkReport(t *testing.T, v vector, rep Report) {
	t.Helper()
	if rep.Unresolvable != v.Unresolvable {
		t.Fatalf("unresolvable = %v, want %v (reason %q)", rep.Unresolvable, v.Unresolvable, rep.Reason)
	}
	if v.Unresolvable {
		if rep.ConformingStatic != nil || rep.Reason == "" || len(rep.Clauses) != 0 {
			t.Errorf("unresolvable report: conforming_static %v, reason %q, %d clauses", rep.ConformingStatic, rep.Reason, len(rep.Clauses))
		}
		return
	}
	if rep.ConformingStatic == nil || v.ConformingStatic == nil || *rep.ConformingStatic != *v.ConformingStatic {
		t.Errorf("conforming_static = %v, want %v", ptrStr(rep.ConformingStatic), ptrStr(v.ConformingStatic))
	}
	if len(rep.Clauses) != len(clauseIDs()) {
		t.Fatalf("%d clauses, want %d", len(rep.Clauses), len(clauseIDs()))
	}
	byID := map[string]ClauseResult{}
	for i, c := range rep.Clauses {
		if c.Clause != clauseIDs()[i] {
			t.Errorf("clause %d is %s, want %s", i, c.Clause, clauseIDs()[i])
		}
		byID[c.Clause] = c
		want, ok := v.Clauses[c.Clause]
		if !ok {
			t.Errorf("expected.json lacks clause %s", c.Clause)
			continue
		}
		if c.Status != want {
			t.Errorf("%s %s: status %q, want %q\n  observed: %s\n  message: %s\n  warnings: %q", c.Clause, c.Title, c.Status, want, c.Observed, c.Message, c.Warnings)
		}
	}
	for id, subs := range v.WarningsContain {
		w := strings.Join(byID[id].Warnings, "\n")
		for _, s := range subs {
			if !strings.Contains(w, s) {
				t.Errorf("%s warnings lack %q:\n%s", id, s, w)
			}
		}
	}
	text := func(id string) string {
		c := byID[id]
		return c.Observed + "\n" + c.Message + "\n" + strings.Join(c.Material, "\n")
	}
	for id, subs := range v.TextContains {
		for _, s := range subs {
			if !strings.Contains(text(id), s) {
				t.Errorf("%s observed/message lack %q:\n%s", id, s, text(id))
			}
		}
	}
	for id, subs := range v.TextLacks {
		all := text(id) + strings.Join(byID[id].Warnings, "\n")
		for _, s := range subs {
			if strings.Contains(all, s) {
				t.Errorf("%s text unexpectedly contains %q:\n%s", id, s, all)
			}
		}
	}
	wantFixFirst := !*rep.ConformingStatic
	if slices.Contains(rep.Warnings, WarningFixFirst) != wantFixFirst {
		t.Errorf("T 20 5.6 warning present = %v, want %v", !wantFixFirst, wantFixFirst)
	}
}

func ptrStr(b *bool) string {
	if b == nil {
		return "nil"
	}
	if *b {
		return "true"
	}
	return "false"
}
