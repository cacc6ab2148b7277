package static

import (
	"errors"
	"math/rand/v2"
	"path"
	"strings"
	"testing"
)

// clause runs Check and returns one clause's result.
func clause(t *testing.T, in Input, id string) ClauseResult {
	t.Helper()
	if in.InstalledSize == 0 {
		in.InstalledSize = -1
	}
	rep := Check(in)
	for _, c := range rep.Clauses {
		if c.Clause == id {
			return c
		}
	}
	t.Fatalf("no clause %s in report (unresolvable=%v %s)", id, rep.Unresolvable, rep.Reason)
	return ClauseResult{}
}

const okPatch = "- insert:\n    - id: a\n      name: a\n"

func TestPatchPath(t *testing.T) {
	for _, tc := range []struct {
		pkg  string
		want string
		err  error
	}{
		{`{"dsh":{"bundle":{"patch":"./cordis.patch.yml"}}}`, "cordis.patch.yml", nil},
		{`{"dsh":{"bundle":{"patch":"conf/./p.yml"}}}`, "conf/p.yml", nil},
		{`{"dsh":{"bundle":{"patch":"a/../p.yml"}}}`, "", ErrPatchPathInvalid},
		{`{"dsh":{"bundle":{"patch":"../p.yml"}}}`, "", ErrPatchPathInvalid},
		{`{"dsh":{"bundle":{"patch":"a/../../p.yml"}}}`, "", ErrPatchPathInvalid},
		{`{"dsh":{"bundle":{"patch":"/etc/p.yml"}}}`, "", ErrPatchPathInvalid},
		{`{"dsh":{"bundle":{"patch":"a\\p.yml"}}}`, "", ErrPatchPathInvalid},
		{`{"dsh":{"bundle":{"patch":"."}}}`, "", ErrPatchPathInvalid},
		{`{"dsh":{"bundle":{"patch":""}}}`, "", ErrNoPatchDeclared},
		{`{"dsh":{"bundle":{"patch":5}}}`, "", ErrNoPatchDeclared},
		{`{"dsh":{"bundle":[]}}`, "", ErrNoPatchDeclared},
		{`{}`, "", ErrNoPatchDeclared},
		{`[]`, "", ErrUnresolvable},
	} {
		got, err := PatchPath([]byte(tc.pkg))
		if got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("PatchPath(%s) = %q, %v; want %q, %v", tc.pkg, got, err, tc.want, tc.err)
		}
	}
}

func TestUnresolvable(t *testing.T) {
	for name, pj := range map[string][]byte{
		"nil":      nil,
		"empty":    {},
		"string":   []byte(`"x"`),
		"trailing": []byte(`{} {}`),
		// JSON.parse refuses a closing bracket after the value, which
		// json.Decoder.More does not count as more data (SPEC-CHANGELOG.md, 1.7).
		"trailing brace":   []byte(`{}}`),
		"trailing bracket": []byte("{} \n]"),
		"huge":             []byte(`{"a":"` + strings.Repeat("x", MaxPackageJSONBytes) + `"}`),
	} {
		rep := Check(Input{PackageJSON: pj})
		if !rep.Unresolvable || rep.ConformingStatic != nil || rep.Reason == "" || len(rep.Clauses) != 0 || rep.Clauses == nil {
			t.Errorf("%s: %+v", name, rep)
		}
	}
}

func TestYAMLErrorLocation(t *testing.T) {
	pkg := []byte(`{"main":"x.js","dsh":{"bundle":{"patch":"p.yml"}}}`)
	for _, tc := range []struct{ patch, want string }{
		{"- insert:\n    - id: a\n      name: @scope/pkg\n", "line 3, column 13"},
		{"- insert:\n    - id: a\n      name: a\n    - @x\n", "line 4, column 7"},
		{"- insert: [a,\n", "line 1"},
		{"- insert:\n  - id: a\n   bad: [\n", "line"},
	} {
		c := clause(t, Input{PackageJSON: pkg, Patch: []byte(tc.patch)}, "5.1.3")
		if c.Status != NonConforming || !strings.Contains(c.Observed, tc.want) {
			t.Errorf("%q: %s %q, want %q", tc.patch, c.Status, c.Observed, tc.want)
		}
	}
	// Quoted @ values, and @ after the first character, parse.
	c := clause(t, Input{PackageJSON: pkg, Patch: []byte("- insert:\n    - id: a\n      name: \"@scope/pkg\"\n      x: a@b\n")}, "5.1.3")
	if c.Status != Conforming {
		t.Errorf("quoted @: %s %s", c.Status, c.Observed)
	}
	// dsh's loader, js-yaml, throws on a duplicated key and on a tag its
	// schema lacks: the patch is non-conforming (SPEC.md "Consumers").
	c = clause(t, Input{PackageJSON: pkg, Patch: []byte("- insert:\n    - id: a\n      name: a\n      name: b\n")}, "5.1.3")
	if c.Status != NonConforming || !strings.Contains(c.Message, "duplicated mapping key \"name\"") || !strings.Contains(c.Message, "js-yaml 4.3.1") {
		t.Errorf("duplicate key: %s %q", c.Status, c.Message)
	}
	c = clause(t, Input{PackageJSON: pkg, Patch: []byte("- insert:\n    - id: a\n      name: a\n      v: !!js/regexp /x/\n")}, "5.1.3")
	if c.Status != NonConforming || !strings.Contains(c.Message, "!!js/regexp") {
		t.Errorf("custom tag: %s %q", c.Status, c.Message)
	}
	c = clause(t, Input{PackageJSON: pkg, Patch: []byte(strings.Repeat("#", MaxPatchBytes+1))}, "5.1.3")
	if c.Status != NonConforming || !strings.Contains(c.Message, "limit") {
		t.Errorf("oversized patch: %s %s", c.Status, c.Message)
	}
	c = clause(t, Input{PackageJSON: pkg, Patch: []byte("- insert: \xff\n")}, "5.1.3")
	if c.Status != NonConforming {
		t.Errorf("invalid UTF-8: %s", c.Status)
	}
}

func TestPatchStructureAliases(t *testing.T) {
	pkg := []byte(`{"main":"x.js","dsh":{"bundle":{"patch":"p.yml"}}}`)
	patch := "- &item\n  insert:\n    - &e {id: a, name: b}\n- *item\n- insert: [*e]\n"
	for _, id := range []string{"5.1.4", "5.1.5"} {
		if c := clause(t, Input{PackageJSON: pkg, Patch: []byte(patch)}, id); c.Status != Conforming {
			t.Errorf("%s: %s %s %s", id, c.Status, c.Observed, c.Message)
		}
	}
	// An alias bomb is not expanded: the walk does not follow aliases, and
	// the js-yaml reading shares an anchor's value as js-yaml does.
	bomb := "- insert: [{id: a, name: b}]\n- &a [x, x, x, x, x, x, x, x, x]\n- &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n- &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n- &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n- &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n- &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n- &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n- &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
	if rep := Check(Input{PackageJSON: pkg, Patch: []byte(bomb), InstalledSize: -1}); !*rep.ConformingStatic {
		t.Errorf("alias bomb: %+v", rep.Clauses[:6])
	}
}

func TestCovers(t *testing.T) {
	for _, tc := range []struct {
		item, path string
		want       bool
	}{
		{"cordis.patch.yml", "cordis.patch.yml", true},
		{"config", "config/patch.yml", true},
		{"conf", "config/patch.yml", false},
		{"*.yml", "cordis.patch.yml", true},
		{"*.yaml", "cordis.patch.yml", false},
		{"config/*.yml", "config/patch.yml", true},
		{"config/*", "config/sub/patch.yml", true},
		{"lib/**", "lib/a/b.js", true},
		{"**/*.yml", "a/b/c.yml", true},
		{"**/*.yml", "lib/index.js", false},
		{"**", "anything", true},
		{"[", "x", false},
		{"", "x", false},
	} {
		if got := covers(tc.item, tc.path); got != tc.want {
			t.Errorf("covers(%q, %q) = %v", tc.item, tc.path, got)
		}
	}
}

// TestCoversSkipsOnlyImpossibleParents checks covers' glob branch against
// trying path.Match on every parent, over random items and paths built
// from the characters that matter ("/", "*", "?", "[", "\\").
func TestCoversSkipsOnlyImpossibleParents(t *testing.T) {
	everyParent := func(item, p string) bool {
		for q := p; q != "." && q != "/" && q != ""; q = path.Dir(q) {
			if ok, err := path.Match(item, q); err == nil && ok {
				return true
			}
		}
		return false
	}
	r := rand.New(rand.NewPCG(7, 8))
	word := func(alphabet string, max int) string {
		var b strings.Builder
		for range 1 + r.IntN(max) {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	matched := 0
	for range 200_000 {
		item, p := word("ab/*?[]\\-^", 7), path.Clean(word("ab/", 7))
		if !strings.ContainsAny(item, "*?[") || strings.Contains(item, "**") || item == p || strings.HasPrefix(p, item+"/") {
			continue // not the glob branch
		}
		want := everyParent(item, p)
		if got := covers(item, p); got != want {
			t.Fatalf("covers(%q, %q) = %v, every parent tried: %v", item, p, got, want)
		}
		if want {
			matched++
		}
	}
	if matched < 1000 {
		t.Fatalf("only %d matching pairs: the test reaches too few matches", matched)
	}
}

func TestLocalPaths(t *testing.T) {
	for v, want := range map[string]bool{
		"file:./kernel": true, "FILE:../x": true, "  file:x": true, "/opt/x": true,
		"^1.2.3": false, "./x": false, "github:owner/repo": false, "npm:file@1": false, "": false,
	} {
		if got := localSpec(v); got != want {
			t.Errorf("localSpec(%q) = %v", v, got)
		}
	}
	// A dependency specifier as its consumers read it (SPEC.md
	// "Consumers", D1–D3).
	for v, want := range map[string]bool{
		"./x": true, "../x": true, "~/x": true, "link:../x": true, `C:\x`: true, "c:/x": true, `.\x`: true, `\\srv\x`: true,
		"file:./kernel": true, "FILE:../x": true, "  file:x": true, "/opt/x": true, "\u00a0./x": true, "\ufefffile:x": true,
		"git+file:///repo": true, "GIT+FILE:/r": true, "workspace:*": true, "Workspace:^1": true, "portal:../x": true,
		"npm:other@file:../x": true, "npm:@s/o@../x": true, "a/b/c": true, "kernel.tgz": true, "x.TAR.GZ": true, "@scope/name": true,
		"^1.2.3": false, "1.0.0 - 2.0.0": false, "github:owner/repo": false, "owner/repo": false, "owner/repo#v1": false,
		"npm:file@1": false, "npm:x@^1": false, "https://example.com/x.tgz": false, "git+ssh://git@github.com/o/r.git": false,
		"latest": false, "": false, "*": false,
	} {
		if got, _ := localDependency(v); got != want {
			t.Errorf("localDependency(%q) = %v", v, got)
		}
	}
}

func TestPackageSize(t *testing.T) {
	pkg := []byte(`{"main":"x.js","dsh":{"bundle":{"patch":"p.yml"}}}`)
	for size, want := range map[int64]Status{
		-1: NotEvaluated, -7: NotEvaluated, 0: NotEvaluated, 1: Conforming,
		SizeLimitBytes - 1: Conforming, SizeLimitBytes: NonConforming, 1 << 40: NonConforming,
	} {
		rep := Check(Input{PackageJSON: pkg, Patch: []byte(okPatch), InstalledSize: size})
		if c := rep.Clauses[12]; c.Clause != "5.3.3" || c.Status != want {
			t.Errorf("size %d: %s %s", size, c.Clause, c.Status)
		}
		if !*rep.ConformingStatic {
			t.Errorf("size %d: a recommended clause changed conforming_static", size)
		}
	}
}

func TestRedLine(t *testing.T) {
	good := "## Permissions\n\n- Why network: downloads release notes from the project's API.\n- Why shell: runs the local git binary to read tags.\n- Why fs-write: caches the release notes under .cache/notes.\n- Data flow: from the project's API to .cache/notes; nothing local is uploaded.\n"
	for _, tc := range []struct {
		name, perms, readme string
		want                Status
		warn                string
	}{
		{"none declared", ``, "", Conforming, ""},
		{"empty list", `[]`, "", Conforming, ""},
		{"network alone", `["network","fs-read"]`, "", Conforming, ""},
		{"shell and fs-write without network", `["shell","fs-write"]`, "", Conforming, ""},
		{"network+shell", `["network","shell"]`, "", NonConforming, ""},
		{"network+fs-write", `["network","fs-write"]`, "", NonConforming, ""},
		{"spelling cannot hide it", `[" NETWORK ","Shell"]`, "", NonConforming, "read as"},
		{"unknown value", `["network","teleport"]`, "", Conforming, "teleport"},
		{"malformed string", `"network shell"`, "", NonConforming, ""},
		{"a Cyrillic look-alike is refused", `["n\u0435twork","shell"]`, "", NonConforming, ""},
		{"full-width letters are refused", `["ｎｅｔｗｏｒｋ"]`, "", NonConforming, ""},
		{"a zero-width space is refused", `["net\u200bwork"]`, "", NonConforming, ""},
		{"JavaScript's trim", `["\ufeffnetwork\u00a0","shell"]`, "", NonConforming, "read as"},
		{"malformed object", `{"network":true}`, "", NonConforming, ""},
		{"registered exception", `["network","shell","fs-write"]`, good, Conforming, "still high risk"},
		{"exception, only shell declared", `["network","shell"]`, good, Conforming, "still high risk"},
		{"exception lacks a declared partner", `["network","shell","fs-write"]`, strings.Replace(good, "- Why fs-write: caches the release notes under .cache/notes.\n", "", 1), NonConforming, ""},
		{"words in prose only", `["network","shell"]`, "# X\nWhy network: because we fetch. Why shell: we run git. Data flow: from here to there.\n", NonConforming, ""},
		{"section in a code block", `["network","shell"]`, "# X\n```\n" + good + "```\n", NonConforming, ""},
		{"section in an HTML comment", `["network","shell"]`, "# X\n<!--\n" + good + "-->\n", NonConforming, ""},
		{"items after the section ends", `["network","shell"]`, "## Permissions\n\nSee below.\n\n## Other\n\n" + strings.TrimPrefix(good, "## Permissions\n\n"), NonConforming, ""},
		{"subheading keeps the section", `["network","shell"]`, "## Permissions\n### Details\n" + strings.TrimPrefix(good, "## Permissions\n"), Conforming, "still high risk"},
		{"bold labels and numbered list", `["network","shell"]`, "# Permissions (DSHIO/T 10 5.5.3)\n1. **Why network:** fetches the weather from the public forecast API.\n2. **Why shell**: runs the local notifier command to show alerts.\n3. __Data flow:__ forecast API -> this plugin -> the local notifier only.\n", Conforming, "still high risk"},
		{"continuation lines count", `["network","shell"]`, "## Permissions\n- Why network:\n  fetches the weather from the public forecast API.\n- Why shell:\n  runs the local notifier command to show alerts.\n- Data flow:\n  from the forecast API to the notifier.\n", Conforming, "still high risk"},
		// Read as a CommonMark renderer shows it (SPEC.md "Consumers").
		{"section in an unclosed HTML comment", `["network","shell"]`, "# X\n<!--\n" + good, NonConforming, ""},
		{"items in an unclosed comment inside the section", `["network","shell"]`, "## Permissions\n\n<!--\n" + strings.TrimPrefix(good, "## Permissions\n\n"), NonConforming, ""},
		{"a longer fence is not closed by a shorter one", `["network","shell"]`, "## Permissions\n\n````\n```\n" + strings.TrimPrefix(good, "## Permissions\n\n") + "````\n", NonConforming, ""},
		{"items in indented code", `["network","shell"]`, "## Permissions\n\n" + "    Why network: downloads release notes from the project's API.\n    Why shell: runs the local git binary to read tags.\n    Data flow: from the project's API to .cache/notes; nothing uploaded.\n", NonConforming, ""},
		{"a setext heading is no item", `["network","shell"]`, "## Permissions\n\n- Why network: downloads release notes from the project's API.\n- Why shell: runs the local git binary to read tags.\n\nData flow: from the project's API to .cache/notes; nothing uploaded.\n---\n", NonConforming, ""},
		{"a setext heading opens the section", `["network","shell"]`, "Permissions\n===========\n\n" + strings.TrimPrefix(good, "## Permissions\n\n"), Conforming, "still high risk"},
		{"a lone CR ends a line", `["network","shell"]`, strings.ReplaceAll(good, "\n", "\r"), Conforming, "still high risk"},
		{"a byte order mark is refused", `["network","shell"]`, "\ufeff" + good, NonConforming, ""},
		{"a lower-case declaration start is refused", `["network","shell"]`, good + "\n<!x\n", NonConforming, ""},
		{"short explanations", `["network","shell"]`, "## Permissions\n- Why network: needed\n- Why shell: needed\n- Data flow: from a to b\n", NonConforming, ""},
		{"no direction", `["network","shell"]`, "## Permissions\n- Why network: fetches the weather from the public forecast API.\n- Why shell: runs the local notifier command to show alerts.\n- Data flow: weather data is exchanged with the service as needed.\n", NonConforming, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pkg := `{"main":"x.js","dsh":{"bundle":{"patch":"p.yml"}}}`
			if tc.perms != "" {
				pkg = `{"main":"x.js","dsh":{"bundle":{"patch":"p.yml"},"permissions":` + tc.perms + `}}`
			}
			in := Input{PackageJSON: []byte(pkg), Patch: []byte(okPatch)}
			if tc.readme != "" {
				in.README = []byte(tc.readme)
			}
			c := clause(t, in, "5.5.3")
			if c.Status != tc.want {
				t.Errorf("status %s, want %s: %s | %s", c.Status, tc.want, c.Observed, c.Message)
			}
			if tc.warn != "" && !strings.Contains(strings.Join(c.Warnings, "\n"), tc.warn) {
				t.Errorf("warnings %q lack %q", c.Warnings, tc.warn)
			}
		})
	}
}

func TestHumanJudgementNeverDecides(t *testing.T) {
	for _, pj := range []string{
		`{"main":"x.js","dsh":{"bundle":{"patch":"p.yml"},"permissions":["network"]},"description":"Looks up prices."}`,
		`{"dsh":"x"}`,
	} {
		rep := Check(Input{PackageJSON: []byte(pj), Patch: []byte(okPatch), InstalledSize: -1})
		for _, c := range rep.Clauses[13:15] {
			if c.Status != HumanJudgement || len(c.Questions) != 2 || len(c.Material) == 0 {
				t.Errorf("%s: %s, %d questions, %d material", c.Clause, c.Status, len(c.Questions), len(c.Material))
			}
		}
	}
}

func TestConformingStaticFollowsCriticalOnly(t *testing.T) {
	// Every recommended clause non-conforming, every critical one fine.
	pj := `{"main":"lib/index.mjs","dsh":{"bundle":{"patch":"p.yml"}}}`
	rep := Check(Input{PackageJSON: []byte(pj), Patch: []byte(okPatch), InstalledSize: SizeLimitBytes * 2})
	for _, c := range rep.Clauses {
		if c.Severity == Recommended && c.Status != NonConforming {
			t.Errorf("%s: %s, want non-conforming", c.Clause, c.Status)
		}
	}
	if rep.ConformingStatic == nil || !*rep.ConformingStatic || len(rep.Warnings) != 0 {
		t.Errorf("conforming_static %v warnings %q", ptrStr(rep.ConformingStatic), rep.Warnings)
	}
}

func TestDeepNesting(t *testing.T) {
	deepJSON := `{"main":"x.js","dsh":{"bundle":{"patch":"p.yml"},"extra":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + `}}`
	deepYAML := "- insert:\n    - id: a\n      name: a\n      config: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n"
	selfAlias := "- &a\n  insert: [*a]\n"
	for name, in := range map[string]Input{
		"json":       {PackageJSON: []byte(deepJSON), Patch: []byte(okPatch)},
		"yaml":       {PackageJSON: []byte(`{"main":"x.js","dsh":{"bundle":{"patch":"p.yml"}}}`), Patch: []byte(deepYAML), EntrySchema: []byte(`{"properties":{"config":{"type":"object"}}}`)},
		"self alias": {PackageJSON: []byte(`{"main":"x.js","dsh":{"bundle":{"patch":"p.yml"}}}`), Patch: []byte(selfAlias)},
	} {
		in.InstalledSize = -1
		rep := Check(in)
		checkInvariants(t, rep)
		t.Logf("%s: unresolvable=%v 5.1.3=%s 5.1.5=%s", name, rep.Unresolvable, statusOf(rep, "5.1.3"), statusOf(rep, "5.1.5"))
	}
}

func statusOf(r Report, id string) Status {
	for _, c := range r.Clauses {
		if c.Clause == id {
			return c.Status
		}
	}
	return ""
}

func TestDSHWalkDepthBound(t *testing.T) {
	deep := `"file:./x"`
	for range maxDepth + 5 {
		deep = `{"a":` + deep + `}`
	}
	in := Input{PackageJSON: []byte(`{"main":"x.js","dsh":{"bundle":{"patch":"p.yml"},"x":` + deep + `}}`), Patch: []byte(okPatch)}
	c := clause(t, in, "5.3.2")
	if c.Status != Conforming || !strings.Contains(strings.Join(c.Warnings, ""), "deeper than") {
		t.Errorf("%s %q", c.Status, c.Warnings)
	}
	in.PackageJSON = []byte(`{"main":"x.js","dsh":{"bundle":{"patch":"p.yml"},"x":{"a":{"b":["ok","file:./y"]}}}}`)
	if c := clause(t, in, "5.3.2"); c.Status != NonConforming || !strings.Contains(c.Message, `dsh.x.a.b[1] = "file:./y"`) {
		t.Errorf("%s %s", c.Status, c.Message)
	}
}

// TestLowerPrefix checks lowerPrefix against lowering the whole string.
func TestLowerPrefix(t *testing.T) {
	for _, s := range []string{"", "FILE:x", "File", "\u212A:/x", "f\u0130le:", "FI\xffLE:", "ÉCOLE", "link:../X", "\u0130\u0130\u0130", "\u212A\u212A\u212A\u212A\u212A\u212A", "a\xe2\x84BCDEF", "ABCDEFGH"} {
		want := strings.ToLower(s)
		if len(want) > 5 {
			want = want[:5]
		}
		if got := lowerPrefix(s, 5); got != want {
			t.Errorf("lowerPrefix(%q, 5) = %q, want %q", s, got, want)
		}
	}
}

// TestMayBeItem checks the literal check before itemRE: true of every
// line the regexp matches, false of some it does not.
func TestMayBeItem(t *testing.T) {
	for _, line := range []string{"- Why network: x", "1) DATA FLOW: a -> b", "* wHy \u212Aeep: x", "why:", "Data:", "no label: here", "wh y: x", "dat a: x"} {
		match := itemRE.MatchString(line)
		if may := mayBeItem(line); match && !may || line == "no label: here" && may {
			t.Errorf("%q: itemRE %v, mayBeItem %v", line, match, may)
		}
	}
	if !itemRE.MatchString("- Why networ\u212A: x") || !mayBeItem("- Why networ\u212A: x") {
		t.Error("a Kelvin sign in the label: itemRE and mayBeItem should both take it")
	}
}

// Merge keys: js-yaml with dsh's JSON schema keeps << a plain key, a
// YAML 1.1 loader merges the mapping it names. The readings differ, so a
// patch with one is non-conforming at 5.1.3; a quoted "<<" is an ordinary
// key to both. SPEC.md "Consumers".
func TestPatchMergeKeys(t *testing.T) {
	pkg := []byte(`{"main":"x.js","dsh":{"bundle":{"patch":"p.yml"}}}`)
	schema := []byte(`{"properties":{"id":{"type":"string"},"name":{"type":"string"},"disabled":{"type":"boolean"}},"additionalProperties":false}`)
	tests := []struct {
		name, patch, clause string
		status              Status
		msg                 string
	}{
		{"id and name merged", "- insert:\n    - <<: {id: a, name: b}\n", "5.1.3", NonConforming, "a merge key <<"},
		{"insert merged", "- <<: {insert: [{id: a, name: b}]}\n", "5.1.3", NonConforming, "a merge key <<"},
		{"quoted << is a key", "- insert:\n    - \"<<\": {id: a, name: b}\n", "5.1.5", NonConforming, "id is missing"},
		{"merge in a flow mapping", "- insert:\n    - {id: a, name: b, <<: 3}\n", "5.1.3", NonConforming, "a merge key <<"},
		{"merged field", "- insert:\n    - id: a\n      name: b\n      <<: {disabled: \"yes\"}\n", "5.1.3", NonConforming, "a YAML 1.1 loader merges"},
		{"!!merge tagged key", "- insert:\n    - id: a\n      name: b\n      !!merge <<: {disabled: true}\n", "5.1.3", NonConforming, "explicit tag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := clause(t, Input{PackageJSON: pkg, Patch: []byte(tt.patch), EntrySchema: schema}, tt.clause)
			if c.Status != tt.status || !strings.Contains(c.Message, tt.msg) {
				t.Errorf("%s: %s %s %q", tt.clause, c.Status, c.Observed, c.Message)
			}
		})
	}
}

// 5.1.6 types a field as dsh's loader builds it, js-yaml with dsh's JSON
// schema (SPEC.md "Consumers"): 1_000 is a string, 0x10 an integer,
// True a boolean and yes a string.
func TestOptionalFieldsTypedAsJSYAML(t *testing.T) {
	pkg := []byte(`{"main":"x.js","dsh":{"bundle":{"patch":"p.yml"}}}`)
	schema := []byte(`{"properties":{"id":{"type":"string"},"name":{"type":"string"},"disabled":{"type":"boolean"},"priority":{"type":"integer"}}}`)
	for _, tc := range []struct {
		field  string
		status Status
	}{
		{"priority: 1_000", NonConforming}, {"priority: 0x10", Conforming}, {"priority: 1.0", Conforming}, {"priority: 1.5", NonConforming},
		{"disabled: True", Conforming}, {"disabled: yes", NonConforming}, {"disabled: 'false'", NonConforming}, {"disabled: !!js x", Conforming},
	} {
		patch := "- insert:\n    - id: a\n      name: b\n      " + tc.field + "\n"
		c := clause(t, Input{PackageJSON: pkg, Patch: []byte(patch), EntrySchema: schema}, "5.1.6")
		if c.Status != tc.status {
			t.Errorf("%s: %s %q, want %s", tc.field, c.Status, c.Message, tc.status)
		}
	}
}

// TestFilesAsPacklist: files items read as npm-packlist reads them
// (SPEC.md "Consumers", D5).
func TestFilesAsPacklist(t *testing.T) {
	for _, c := range []struct {
		files string
		want  Status
	}{
		{`["lib","cordis.patch.yml"]`, Conforming},
		{`["lib","/cordis.patch.yml"]`, Conforming},
		{`["lib","./cordis.patch.yml"]`, Conforming},
		{`["lib","cordis.patch.yml/"]`, NonConforming}, // a directory-only pattern: the file is left out
		{`["lib","././cordis.patch.yml"]`, NonConforming},
		{`["lib","*.yml","!cordis.patch.yml"]`, NonConforming},
		{`["lib","cordis.patch.yml","!/cordis.patch.yml"]`, NonConforming},
		{`["lib","cordis.patch.yml","!other.yml"]`, Conforming},
		// lib is published as a directory, as npm-packlist reads it.
		{`["library-notes.md","cordis.patch.yml"]`, NonConforming}, // starts with lib, publishes no lib
		{`["lib","!lib/**","cordis.patch.yml"]`, NonConforming},
		{`["lib","!lib","cordis.patch.yml"]`, NonConforming},
		{`["lib/x.js","cordis.patch.yml"]`, NonConforming}, // one file of lib
		{`["lib/","cordis.patch.yml"]`, Conforming},
		{`["lib/**","cordis.patch.yml"]`, Conforming},
		{`["lib*","cordis.patch.yml"]`, NonConforming}, // a glob matching lib publishes none of its files
		{`["lib","!lib/x.js","cordis.patch.yml"]`, Conforming},
		{`["lib","!*.md","cordis.patch.yml"]`, Conforming},
	} {
		pkg := `{"main":"lib/x.js","files":` + c.files + `,"dsh":{"bundle":{"patch":"./cordis.patch.yml"}}}`
		if got := clause(t, Input{PackageJSON: []byte(pkg), Patch: []byte(okPatch)}, "5.3.1"); got.Status != c.want {
			t.Errorf("files %s: %s, want %s: %s", c.files, got.Status, c.want, got.Message)
		}
	}
	// The directory containing the entry file stands for lib; an exports
	// target must be published through files (npm always publishes main).
	for _, c := range []struct {
		entry, files string
		want         Status
	}{
		{`"main":"dist/index.js"`, `["dist","cordis.patch.yml"]`, Conforming},
		{`"main":"dist/index.js"`, `["dist/index.js","cordis.patch.yml"]`, NonConforming},
		{`"main":"dist/index.js"`, `["dist","!dist/**","cordis.patch.yml"]`, NonConforming},
		{`"main":"index.js"`, `["index.js","cordis.patch.yml"]`, Conforming},
		{`"main":"index.js"`, `["cordis.patch.yml"]`, NonConforming},
		{`"exports":"./dist/index.js"`, `["dist","cordis.patch.yml"]`, Conforming},
		{`"exports":{".":{"default":"./lib/index.js"}}`, `["lib","cordis.patch.yml"]`, Conforming},
		{`"exports":{".":"./index.js"}`, `["lib","cordis.patch.yml"]`, NonConforming}, // lib, but not the entry file
		{`"exports":{".":"./lib/index.js"}`, `["lib","!lib/index.js","cordis.patch.yml"]`, NonConforming},
	} {
		pkg := `{` + c.entry + `,"files":` + c.files + `,"dsh":{"bundle":{"patch":"./cordis.patch.yml"}}}`
		if got := clause(t, Input{PackageJSON: []byte(pkg), Patch: []byte(okPatch)}, "5.3.1"); got.Status != c.want {
			t.Errorf("%s, files %s: %s, want %s: %s", c.entry, c.files, got.Status, c.want, got.Message)
		}
	}
}
