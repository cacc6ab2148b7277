package static

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/Masterminds/semver/v3"
)

// TestSemverVectors checks both rules against semver-npm.json, whose npm
// answers were computed by the real node-semver (see its "about").
func TestSemverVectors(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(vectorsDir, "semver-npm.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []struct {
			Range       string `json:"range"`
			Version     string `json:"version"`
			NPMValid    bool   `json:"npm_valid"`
			NPM         bool   `json:"npm"`
			Masterminds bool   `json:"masterminds"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) < 20 {
		t.Fatalf("only %d semver cases", len(f.Cases))
	}
	for _, c := range f.Cases {
		r := AdmitsBaseline(c.Range, semver.MustParse(c.Version))
		if (r.Err == nil) != c.NPMValid {
			t.Errorf("%q: parse error %v, npm valid %v", c.Range, r.Err, c.NPMValid)
		}
		if r.NPM != c.NPM {
			t.Errorf("%q vs %s: npm rule %v, node-semver %v", c.Range, c.Version, r.NPM, c.NPM)
		}
		if r.Masterminds != c.Masterminds {
			t.Errorf("%q vs %s: Masterminds %v, want %v", c.Range, c.Version, r.Masterminds, c.Masterminds)
		}
	}
}

// The standard's own examples (DSHIO/T 10 5.2.1, 5.2.2).
func TestSemverStandardExamples(t *testing.T) {
	base := semver.MustParse(DefaultBaseline)
	right := AdmitsBaseline(">=0.2.0-rc.2", base)
	if !right.Masterminds || right.NPM || !right.Disagree() {
		t.Errorf(">=0.2.0-rc.2: %+v; the standard expects Masterminds to admit, npm does not", right)
	}
	wrong := AdmitsBaseline(">=0.2.0-rc.2 <0.2.2-0", base)
	if wrong.Masterminds || wrong.NPM || wrong.Disagree() {
		t.Errorf(">=0.2.0-rc.2 <0.2.2-0: %+v; both rules exclude it", wrong)
	}
}

func TestBaselineOverrideAndInvalid(t *testing.T) {
	pkg := []byte(`{"main":"x.js","engines":{"dsh":">=0.1.0 <0.2.0"},"dsh":{"bundle":{"patch":"p.yml"}}}`)
	patch := []byte("- insert:\n    - id: a\n      name: a\n")
	get := func(r Report) ClauseResult { return r.Clauses[7] }
	if c := get(Check(Input{PackageJSON: pkg, Patch: patch, InstalledSize: -1})); c.Status != NonConforming {
		t.Errorf("default baseline %s: %s %s", DefaultBaseline, c.Status, c.Observed)
	}
	if c := get(Check(Input{PackageJSON: pkg, Patch: patch, Baseline: "0.1.5", InstalledSize: -1})); c.Status != Conforming {
		t.Errorf("baseline 0.1.5: %s %s", c.Status, c.Observed)
	}
	if c := get(Check(Input{PackageJSON: pkg, Patch: patch, Baseline: "not-a-version", InstalledSize: -1})); c.Status != NotEvaluated {
		t.Errorf("invalid baseline: %s", c.Status)
	}
}
