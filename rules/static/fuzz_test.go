package static

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var validStatus = map[Status]bool{Conforming: true, NonConforming: true, NotEvaluated: true, HumanJudgement: true, NotCheckable: true}

// FuzzCheck feeds arbitrary package.json, patch and README bytes to Check
// and checks the report's invariants: no panic, every clause once in
// checklist order with a valid status, conforming_static derived from the
// critical clauses, human-judgement clauses never decided, determinism.
func FuzzCheck(f *testing.F) {
	dirs, err := os.ReadDir(vectorsDir)
	if err != nil {
		f.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		in := fixtureInput(f, filepath.Join(vectorsDir, d.Name()), "", nil)
		f.Add(in.PackageJSON, in.Patch, in.README, int64(-1))
	}
	f.Add([]byte(`{"dsh":{"bundle":{"patch":"p"},"permissions":["network","shell"]},"engines":{"dsh":"*"}}`), []byte("- insert: [{id: a, name: b}]"), []byte("## Permissions\n- Why network: x"), int64(60_000_000))
	f.Fuzz(func(t *testing.T, pj, patch, readme []byte, size int64) {
		in := Input{PackageJSON: pj, Patch: patch, README: readme, InstalledSize: size}
		rep := Check(in)
		checkInvariants(t, rep)
		a, err := json.Marshal(rep)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		// Compared as values (stricter than comparing the JSON, and it
		// spares a second encoding, which took a tenth of the time).
		if again := Check(in); !reflect.DeepEqual(rep, again) {
			b, _ := json.Marshal(again)
			t.Fatalf("Check is not deterministic:\n%s\n%s", a, b)
		}
	})
}

func checkInvariants(t *testing.T, rep Report) {
	t.Helper()
	if rep.Unresolvable {
		if rep.ConformingStatic != nil || rep.Reason == "" || len(rep.Clauses) != 0 {
			t.Fatalf("unresolvable report malformed: %+v", rep)
		}
		return
	}
	if rep.ConformingStatic == nil {
		t.Fatal("resolvable report without conforming_static")
	}
	if len(rep.Clauses) != len(checklist) {
		t.Fatalf("%d clauses, want %d", len(rep.Clauses), len(checklist))
	}
	critical := false
	for i, c := range rep.Clauses {
		def := checklist[i]
		if c.Clause != def.id || c.Severity != def.severity || c.Title != def.title {
			t.Fatalf("clause %d: %s/%s, want %s/%s", i, c.Clause, c.Severity, def.id, def.severity)
		}
		if !validStatus[c.Status] {
			t.Fatalf("%s: invalid status %q", c.Clause, c.Status)
		}
		if (c.Clause == "5.5.1" || c.Clause == "5.5.2") != (c.Status == HumanJudgement) {
			t.Fatalf("%s: status %s", c.Clause, c.Status)
		}
		if (c.Status == NonConforming || c.Status == NotEvaluated || c.Status == NotCheckable) && c.Message == "" {
			t.Fatalf("%s: %s without a message", c.Clause, c.Status)
		}
		if c.Severity == Critical && c.Status == NonConforming {
			critical = true
		}
	}
	if *rep.ConformingStatic == critical {
		t.Fatalf("conforming_static %v with critical non-conformance %v", *rep.ConformingStatic, critical)
	}
}

// FuzzFields builds well-formed package.json documents around arbitrary
// field values, so the fuzzer reaches the semver, files, local-path,
// permission and README logic instead of stopping at JSON syntax.
func FuzzFields(f *testing.F) {
	f.Add(">=0.2.0-rc.2", "lib/index.js", "lib", "file:./x", "./cordis.patch.yml", "network", "## Permissions\n- Why network: fetches data from the API.\n- Data flow: from API -> disk\n", okPatch)
	f.Add(">=0.2.0-rc.2 <0.2.2-0 || ^1.x", "a.mjs", "**/*.y?l", "/abs", "../x", "SHELL", "# Permissions\n```\n", "- insert: [*a]")
	f.Add("1.2.3 - 2.3.4", "", "[", "^1", "", "fs-write", "", "")
	f.Fuzz(func(t *testing.T, rng, main, filesItem, dep, patchPath, perm, readme, patch string) {
		pkg := map[string]any{
			"main":             main,
			"files":            []any{filesItem, "lib"},
			"engines":          map[string]any{"dsh": rng},
			"dependencies":     map[string]any{"d": dep},
			"peerDependencies": map[string]any{"@deepseek-ai/dsh-x": rng},
			"dsh": map[string]any{
				"bundle":      map[string]any{"patch": patchPath},
				"permissions": []any{"network", perm},
			},
		}
		pj, err := json.Marshal(pkg)
		if err != nil {
			t.Skip()
		}
		// An unknown (-1) or a known installed size, chosen by the input
		// so the fuzzer reaches both; one Check per execution.
		size := int64(-1)
		if len(patch)%2 == 1 {
			size = 1
		}
		in := Input{PackageJSON: pj, Patch: []byte(patch), README: []byte(readme), InstalledSize: size, Baseline: "0.2.2-rc.1"}
		rep := Check(in)
		checkInvariants(t, rep)
		if rep.Unresolvable {
			t.Fatalf("well-formed package.json unresolvable: %s", rep.Reason)
		}
	})
}
