package static

import (
	"encoding"
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
	for _, a := range checkSeeds(f) {
		f.Add(a.pj, a.patch, a.readme, a.size)
	}
	f.Fuzz(func(t *testing.T, pj, patch, readme []byte, size int64) {
		fuzzCheckOnce(t, checkArgs{pj, patch, readme, size})
	})
}

// checkArgs are FuzzCheck's arguments.
type checkArgs struct {
	pj, patch, readme []byte
	size              int64
}

// checkSeeds are FuzzCheck's seed inputs: every T0 vector and one more.
func checkSeeds(tb testing.TB) []checkArgs {
	tb.Helper()
	dirs, err := os.ReadDir(vectorsDir)
	if err != nil {
		tb.Fatal(err)
	}
	var seeds []checkArgs
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		in := fixtureInput(tb, filepath.Join(vectorsDir, d.Name()), "", nil)
		seeds = append(seeds, checkArgs{in.PackageJSON, in.Patch, in.README, -1})
	}
	return append(seeds, checkArgs{[]byte(`{"dsh":{"bundle":{"patch":"p"},"permissions":["network","shell"]},"engines":{"dsh":"*"}}`), []byte("- insert: [{id: a, name: b}]"), []byte("## Permissions\n- Why network: x"), 60_000_000})
}

// fuzzCheckOnce is FuzzCheck's body: one input, every invariant.
func fuzzCheckOnce(t testing.TB, a checkArgs) {
	t.Helper()
	in := Input{PackageJSON: a.pj, Patch: a.patch, README: a.readme, InstalledSize: a.size}
	rep := Check(in)
	checkInvariants(t, rep)
	// Compared as values (stricter than comparing the JSON, and it
	// spares the encodings). That every report encodes as JSON is
	// TestReportAlwaysEncodes', which proves it for all values from
	// Report's types; encoding each one here took a quarter of the time.
	if again := Check(in); !reflect.DeepEqual(rep, again) {
		a, _ := json.Marshal(rep)
		b, _ := json.Marshal(again)
		t.Fatalf("Check is not deterministic:\n%s\n%s", a, b)
	}
}

// TestReportAlwaysEncodes checks that json.Marshal cannot fail on any
// Report: every field, to the leaves, is a string, bool, slice, pointer
// or struct of such, and none has its own MarshalJSON or MarshalText
// (json.Marshal fails only on channels, functions, complex numbers,
// non-finite floats, cycles and failing marshalers).
func TestReportAlwaysEncodes(t *testing.T) {
	marshaler := reflect.TypeFor[json.Marshaler]()
	textMarshaler := reflect.TypeFor[encoding.TextMarshaler]()
	seen := map[reflect.Type]bool{}
	var check func(path string, typ reflect.Type)
	check = func(path string, typ reflect.Type) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		for _, ty := range []reflect.Type{typ, reflect.PointerTo(typ)} {
			if ty.Implements(marshaler) || ty.Implements(textMarshaler) {
				t.Errorf("%s (%s) has its own marshaler, which may fail", path, typ)
			}
		}
		switch typ.Kind() {
		case reflect.String, reflect.Bool:
		case reflect.Pointer, reflect.Slice:
			check(path+"[]", typ.Elem())
		case reflect.Struct:
			for f := range typ.Fields() {
				if f.IsExported() {
					check(path+"."+f.Name, f.Type)
				}
			}
		default:
			t.Errorf("%s is a %s, which json.Marshal may fail on", path, typ)
		}
	}
	check("Report", reflect.TypeFor[Report]())
}

func checkInvariants(t testing.TB, rep Report) {
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
	for _, a := range fieldsSeeds {
		f.Add(a.rng, a.main, a.filesItem, a.dep, a.patchPath, a.perm, a.readme, a.patch)
	}
	f.Fuzz(func(t *testing.T, rng, main, filesItem, dep, patchPath, perm, readme, patch string) {
		fuzzFieldsOnce(t, fieldsArgs{rng, main, filesItem, dep, patchPath, perm, readme, patch})
	})
}

// fieldsArgs are FuzzFields' arguments.
type fieldsArgs struct {
	rng, main, filesItem, dep, patchPath, perm, readme, patch string
}

// fieldsSeeds are FuzzFields' seed inputs.
var fieldsSeeds = []fieldsArgs{
	{">=0.2.0-rc.2", "lib/index.js", "lib", "file:./x", "./cordis.patch.yml", "network", "## Permissions\n- Why network: fetches data from the API.\n- Data flow: from API -> disk\n", okPatch},
	{">=0.2.0-rc.2 <0.2.2-0 || ^1.x", "a.mjs", "**/*.y?l", "/abs", "../x", "SHELL", "# Permissions\n```\n", "- insert: [*a]"},
	{"1.2.3 - 2.3.4", "", "[", "^1", "", "fs-write", "", ""},
}

// fieldsPackage is the package.json FuzzFields builds, its fields in the
// order json.Marshal gives a map's keys (sorted), so the encoding is the
// one the map had.
type fieldsPackage struct {
	Dependencies struct {
		D string `json:"d"`
	} `json:"dependencies"`
	DSH struct {
		Bundle struct {
			Patch string `json:"patch"`
		} `json:"bundle"`
		Permissions [2]string `json:"permissions"`
	} `json:"dsh"`
	Engines struct {
		DSH string `json:"dsh"`
	} `json:"engines"`
	Files            [2]string `json:"files"`
	Main             string    `json:"main"`
	PeerDependencies struct {
		DSHX string `json:"@deepseek-ai/dsh-x"`
	} `json:"peerDependencies"`
}

// packageJSON encodes the package.json around a's field values.
func (a fieldsArgs) packageJSON() ([]byte, error) {
	var p fieldsPackage
	p.Dependencies.D = a.dep
	p.DSH.Bundle.Patch = a.patchPath
	p.DSH.Permissions = [2]string{"network", a.perm}
	p.Engines.DSH = a.rng
	p.Files = [2]string{a.filesItem, "lib"}
	p.Main = a.main
	p.PeerDependencies.DSHX = a.rng
	return json.Marshal(p)
}

// fuzzFieldsOnce is FuzzFields' body: one input, every invariant.
func fuzzFieldsOnce(t testing.TB, a fieldsArgs) {
	t.Helper()
	pj, err := a.packageJSON()
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	// An unknown (-1) or a known installed size, chosen by the input
	// so the fuzzer reaches both; one Check per execution.
	size := int64(-1)
	if len(a.patch)%2 == 1 {
		size = 1
	}
	in := Input{PackageJSON: pj, Patch: []byte(a.patch), README: []byte(a.readme), InstalledSize: size, Baseline: "0.2.2-rc.1"}
	rep := Check(in)
	checkInvariants(t, rep)
	if rep.Unresolvable {
		t.Fatalf("well-formed package.json unresolvable: %s", rep.Reason)
	}
}

// TestFieldsPackageJSON checks that FuzzFields' struct encodes as the map
// of the same fields would, so its inputs are the documents it describes.
func TestFieldsPackageJSON(t *testing.T) {
	for _, a := range append(fieldsSeeds, fieldsArgs{"<&>\u2028", "\xff", "\"", "\\", "\x00", "é", "", ""}) {
		got, err := a.packageJSON()
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(map[string]any{
			"main":             a.main,
			"files":            []any{a.filesItem, "lib"},
			"engines":          map[string]any{"dsh": a.rng},
			"dependencies":     map[string]any{"d": a.dep},
			"peerDependencies": map[string]any{"@deepseek-ai/dsh-x": a.rng},
			"dsh": map[string]any{
				"bundle":      map[string]any{"patch": a.patchPath},
				"permissions": []any{"network", a.perm},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("struct encoding\n%s\nmap encoding\n%s", got, want)
		}
	}
}
