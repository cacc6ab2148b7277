package static

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// realEntryDeclaration is lib/types/config/entry.d.ts of
// @deepseek-ai/cordis-plugin-loader 1.0.2, copied byte for byte from the
// sandbox image of dsh 0.1.0-rc.8 (the dependency dsh's patch entries are
// read by).
func realEntryDeclaration(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../../testdata/dsh-evidence/cordis-plugin-loader-1.0.2-entry.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseEntryDeclarationReal(t *testing.T) {
	es, err := parseEntryDeclaration(realEntryDeclaration(t), MaxEntryDeclarationBytes)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"id": {"string"}, "name": {"string"}, "config": nil,
		"group": {"boolean", "null"}, "disabled": {"boolean", "null"}, "inject": nil,
	}
	if len(es.types) != len(want) || es.noExtra {
		t.Fatalf("types %v noExtra %v, want %v and extra fields allowed", es.types, es.noExtra, want)
	}
	for k, v := range want {
		if got, ok := es.types[k]; !ok || !slices.Equal(got, v) {
			t.Errorf("%s: %v, want %v", k, got, v)
		}
	}
}

func TestParseEntryDeclarationRefuses(t *testing.T) {
	for _, src := range []string{"", "export interface Other { a: string; }", "export interface EntryOptions {\n  a b c;\n}", "export interface EntryOptions {\n}"} {
		if _, err := parseEntryDeclaration([]byte(src), MaxEntryDeclarationBytes); err == nil {
			t.Errorf("%q: parsed", src)
		}
	}
}

// Clause 5.1.6 with the real declaration: checkable, conforming for
// boolean and !!js values, non-conforming for a string where boolean is
// declared.
func TestClause516WithDeclaration(t *testing.T) {
	decl := realEntryDeclaration(t)
	run := func(patch string, withDecl bool) ClauseResult {
		in := Input{PackageJSON: []byte(`{"name":"p","version":"1.0.0","main":"x.js","dsh":{"bundle":{"patch":"p.yml"}}}`),
			Patch: []byte(patch), InstalledSize: -1}
		if withDecl {
			in.EntryDeclaration = decl
		}
		for _, c := range Check(in).Clauses {
			if c.Clause == "5.1.6" {
				return c
			}
		}
		t.Fatal("no clause 5.1.6")
		return ClauseResult{}
	}
	ok := "- insert:\n    - id: a\n      name: p\n      disabled: false\n      config: {x: 1}\n    - id: b\n      name: p\n      disabled: !!js \"ctx.x\"\n"
	if c := run(ok, false); c.Status != NotCheckable {
		t.Errorf("without a declaration: %s, want %s", c.Status, NotCheckable)
	}
	if c := run(ok, true); c.Status != Conforming || !strings.Contains(c.Observed, "EntryOptions declaration") {
		t.Errorf("with the declaration: %s (%s) %s", c.Status, c.Observed, c.Message)
	}
	bad := "- insert:\n    - id: a\n      name: p\n      disabled: \"no\"\n"
	if c := run(bad, true); c.Status != NonConforming || !strings.Contains(c.Message, "disabled") {
		t.Errorf("disabled as a string: %s %s", c.Status, c.Message)
	}
}
