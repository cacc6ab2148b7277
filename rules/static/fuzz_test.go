package static

import (
	"encoding"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
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
// field values, so the fuzzer reaches the files, entry-point, local-path,
// permission, patch and README logic instead of stopping at JSON syntax.
// The version range fields are FuzzRanges': declaring none here keeps
// Masterminds/semver's parser, the costliest part of a Check, out of the
// executions that fuzz the other fields.
func FuzzFields(f *testing.F) {
	for _, a := range fieldsSeeds {
		f.Add(a.main, a.filesItem, a.dep, a.patchPath, a.perm, a.readme, a.patch)
	}
	f.Fuzz(func(t *testing.T, main, filesItem, dep, patchPath, perm, readme, patch string) {
		fuzzFieldsOnce(t, fieldsArgs{main, filesItem, dep, patchPath, perm, readme, patch})
	})
}

// fieldsArgs are FuzzFields' arguments.
type fieldsArgs struct {
	main, filesItem, dep, patchPath, perm, readme, patch string
}

// fieldsSeeds are FuzzFields' seed inputs.
var fieldsSeeds = []fieldsArgs{
	{"lib/index.js", "lib", "file:./x", "./cordis.patch.yml", "network", "## Permissions\n- Why network: fetches data from the API.\n- Data flow: from API -> disk\n", okPatch},
	{"a.mjs", "**/*.y?l", "/abs", "../x", "SHELL", "# Permissions\n```\n", "- insert: [*a]"},
	{"", "[", "^1", "", "fs-write", "", ""},
}

// packageMap is the package.json FuzzFields builds around a's field
// values, as parsePackageJSON would decode it (see jsonString).
func (a fieldsArgs) packageMap() map[string]any {
	return map[string]any{
		"main":         jsonString(a.main),
		"files":        []any{jsonString(a.filesItem), "lib"},
		"dependencies": map[string]any{"d": jsonString(a.dep)},
		"dsh": map[string]any{
			"bundle":      map[string]any{"patch": jsonString(a.patchPath)},
			"permissions": []any{"network", jsonString(a.perm)},
		},
	}
}

// jsonString is s after a JSON encoding and decoding: each byte of
// invalid UTF-8 becomes U+FFFD, as converting to runes does, and the rest
// is unchanged. The fuzz targets build the decoded package.json directly
// with it, which spares an encoding and a decoding per execution;
// TestFuzzPackageMaps holds the equivalence, and FuzzCheck fuzzes the
// decoding itself.
func jsonString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string([]rune(s))
}

// fuzzFieldsOnce is FuzzFields' body: one input, every invariant.
func fuzzFieldsOnce(t testing.TB, a fieldsArgs) {
	t.Helper()
	// An unknown (-1) or a known installed size, chosen by the input
	// so the fuzzer reaches both; one Check per execution.
	size := int64(-1)
	if len(a.patch)%2 == 1 {
		size = 1
	}
	in := Input{Patch: []byte(a.patch), README: []byte(a.readme), InstalledSize: size, Baseline: "0.2.2-rc.1"}
	rep := checkPackage(in, a.packageMap())
	checkInvariants(t, rep)
	if rep.Unresolvable {
		t.Fatalf("well-formed package.json unresolvable: %s", rep.Reason)
	}
	// No range is declared: 5.2.1 reports it, 5.2.2 admits the baseline.
	if c := rep.Clauses[clauseIndex("5.2.2")]; c.Status != Conforming {
		t.Fatalf("5.2.2 without a declared range: %s %q", c.Status, c.Message)
	}
}

// FuzzRanges declares arbitrary DSH version ranges, in engines.dsh or in
// a peerDependencies entry of an arbitrary name, against an arbitrary
// baseline version, and checks the 5.2.1 and 5.2.2 results against the
// declaration's shape (SPEC.md "5.2.1 Version range declaration", "5.2.2
// Version range includes the baseline version").
func FuzzRanges(f *testing.F) {
	for _, a := range rangesSeeds {
		f.Add(a.hasEngines, a.engines, a.peerName, a.peerRange, a.baseline)
	}
	f.Fuzz(func(t *testing.T, hasEngines bool, engines, peerName, peerRange, baseline string) {
		fuzzRangesOnce(t, rangesArgs{hasEngines, engines, peerName, peerRange, baseline})
	})
}

// rangesArgs are FuzzRanges' arguments: engines.dsh is declared only when
// hasEngines; a baseline of "" is DefaultBaseline.
type rangesArgs struct {
	hasEngines                             bool
	engines, peerName, peerRange, baseline string
}

// rangesSeeds are FuzzRanges' seed inputs.
var rangesSeeds = []rangesArgs{
	{true, ">=0.2.0-rc.2", "@deepseek-ai/dsh", ">=0.2.0-rc.2", "0.2.2-rc.1"},
	{true, ">=0.2.0-rc.2 <0.2.2-0 || ^1.x", "@deepseek-ai/dsh-x", "^0.1", ""},
	{false, "", "@deepseek-ai/dsh-sdk", "1.2.3 - 2.3.4", "2.0.0"},
	{false, "", "@deepseek-ai/other", "*", "0.2.2"},
	{true, "~0.2.2-rc.0", "left-pad", "file:../x", "v1"},
}

// packageMap is the package.json FuzzRanges builds, as parsePackageJSON
// would decode it.
func (a rangesArgs) packageMap() map[string]any {
	pkg := map[string]any{
		"peerDependencies": map[string]any{jsonString(a.peerName): jsonString(a.peerRange)},
	}
	if a.hasEngines {
		pkg["engines"] = map[string]any{"dsh": jsonString(a.engines)}
	}
	return pkg
}

// fuzzRangesOnce is FuzzRanges' body: one input, every invariant.
func fuzzRangesOnce(t testing.TB, a rangesArgs) {
	t.Helper()
	rep := checkPackage(Input{Baseline: a.baseline, InstalledSize: -1}, a.packageMap())
	checkInvariants(t, rep)
	if rep.Unresolvable {
		t.Fatalf("well-formed package.json unresolvable: %s", rep.Reason)
	}
	c521, c522 := rep.Clauses[clauseIndex("5.2.1")], rep.Clauses[clauseIndex("5.2.2")]
	counted := isDSHPackage(jsonString(a.peerName))
	baseline := a.baseline
	if baseline == "" {
		baseline = DefaultBaseline
	}
	_, baseErr := parseBaseline(baseline)
	switch {
	case baseErr != nil:
		if c522.Status != NotEvaluated {
			t.Fatalf("5.2.2 with the baseline %q, not a version: %s", baseline, c522.Status)
		}
	case !a.hasEngines && !counted:
		if c522.Status != Conforming || c522.Observed != "unconstrained" {
			t.Fatalf("5.2.2 with no DSH range: %s %q", c522.Status, c522.Observed)
		}
	case c522.Status != Conforming && c522.Status != NonConforming:
		t.Fatalf("5.2.2 with a declared range and a valid baseline: %s", c522.Status)
	}
	switch {
	case a.hasEngines:
		if c521.Status != Conforming || !strings.HasPrefix(c521.Observed, "engines.dsh = ") {
			t.Fatalf("5.2.1 with engines.dsh: %s %q", c521.Status, c521.Observed)
		}
	case counted:
		if c521.Status != Conforming || !strings.HasPrefix(c521.Observed, "no engines.dsh; range from peerDependencies ") {
			t.Fatalf("5.2.1 with a DSH peer range: %s %q", c521.Status, c521.Observed)
		}
	default:
		if c521.Status != NonConforming {
			t.Fatalf("5.2.1 with no DSH range: %s", c521.Status)
		}
	}
}

// clauseIndex is the position of clause id in a report's clauses.
func clauseIndex(id string) int {
	for i, c := range checklist {
		if c.id == id {
			return i
		}
	}
	panic("no clause " + id)
}

// TestFuzzPackageMaps checks that the package.json FuzzFields and
// FuzzRanges build is what parsePackageJSON gives for its JSON encoding,
// so their inputs are documents a package could hold.
func TestFuzzPackageMaps(t *testing.T) {
	odd := []string{"<&>\u2028", "\xff", "\"", "\\", "\x00", "é", "a\xffb\xc3", "\xed\xa0\x80"}
	var maps []map[string]any
	for _, a := range append(fieldsSeeds, fieldsArgs{odd[0], odd[1], odd[2], odd[3], odd[4], odd[5], odd[6]}) {
		maps = append(maps, a.packageMap())
	}
	for _, a := range append(rangesSeeds, rangesArgs{true, odd[1], odd[6], odd[7], odd[0]}, rangesArgs{false, odd[2], odd[3], odd[1], odd[4]}) {
		maps = append(maps, a.packageMap())
	}
	for _, want := range maps {
		b, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parsePackageJSON(b, MaxPackageJSONBytes)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("decoded\n%#v\nbuilt\n%#v", got, want)
		}
	}
	// jsonString is what an encoding and a decoding give.
	for _, s := range odd {
		raw, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back string
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		if back != jsonString(s) {
			t.Errorf("%q: json gives %q, jsonString %q", s, back, jsonString(s))
		}
	}
}
