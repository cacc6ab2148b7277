package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/internal/testutil/schematest"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/verify"
)

// kebab is the one style of every enum value dshaudit defines in its JSON
// (SPEC.md "Result objects"). Values the DSHIO standards spell (verdict
// codes such as install_failed, stage states, T0 clause states) are
// recorded as the standards spell them and are not dshaudit's to restyle.
var kebab = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// enumTypes are the string types whose constants are JSON enum values,
// by package directory.
var enumTypes = map[string][]string{
	"verify":         {"Class", "Status"},
	"replay/compare": {"Outcome"},
	"claim":          {"Outcome", "Kind"},
	"pkgsource":      {"SourceKind", "SelectorKind"},
}

// enumValues reads every constant of the named types declared in the
// non-test Go files of dir (so a constant added in any file counts).
func enumValues(t *testing.T, dir string, types []string) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: %v", dir, err)
	}
	out := map[string][]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				id, ok := vs.Type.(*ast.Ident)
				if !ok || !slices.Contains(types, id.Name) {
					continue
				}
				for _, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Errorf("%s: a %s constant that is not a string literal", f, id.Name)
						continue
					}
					s, _ := strconv.Unquote(lit.Value)
					out[id.Name] = append(out[id.Name], s)
				}
			}
		}
	}
	return out
}

func TestEnumValuesAreKebabCase(t *testing.T) {
	for dir, types := range enumTypes {
		vals := enumValues(t, dir, types)
		for _, typ := range types {
			if len(vals[typ]) == 0 {
				t.Errorf("%s.%s: no constants found", dir, typ)
			}
			for _, v := range vals[typ] {
				if !kebab.MatchString(v) {
					t.Errorf("%s.%s value %q is not lower-kebab-case", dir, typ, v)
				}
			}
		}
	}
}

// The schemas' enums list exactly the constants the code defines.
func TestSchemaEnumsMatchConstants(t *testing.T) {
	verifyVals := enumValues(t, "verify", []string{"Status", "Class"})
	replayVals := enumValues(t, "replay/compare", []string{"Outcome"})
	claimVals := enumValues(t, "claim", []string{"Outcome"})
	for _, c := range []struct {
		schema string
		ptr    []string
		want   []string
	}{
		{"verify-result", []string{"properties", "status", "enum"}, verifyVals["Status"]},
		{"verify-result", []string{"properties", "findings", "anyOf", "0", "items", "properties", "class", "enum"}, verifyVals["Class"]},
		{"replay-result", []string{"properties", "outcome", "enum"}, replayVals["Outcome"]},
		{"verify-result", []string{"properties", "claim", "properties", "outcome", "enum"}, claimVals["Outcome"]},
	} {
		var doc any = schematest.Raw(t, c.schema)
		for _, k := range c.ptr {
			switch d := doc.(type) {
			case map[string]any:
				doc = d[k]
			case []any:
				i, err := strconv.Atoi(k)
				if err != nil || i >= len(d) {
					t.Fatalf("%s: no %v", c.schema, c.ptr)
				}
				doc = d[i]
			default:
				t.Fatalf("%s: no %v", c.schema, c.ptr)
			}
		}
		var got []string
		for _, v := range doc.([]any) {
			got = append(got, v.(string))
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(c.want))
		if !slices.Equal(got, want) {
			t.Errorf("schema/%s.schema.json %v = %v, the code defines %v", c.schema, c.ptr, got, want)
		}
	}
}

// The lists verify DIR lays its columns out from hold every constant of
// their types, once: rules.Verdicts every Verdict, verify.Statuses every
// Status, declared in any non-test file of the package.
func TestEnumListsAreComplete(t *testing.T) {
	var verdicts, statuses []string
	for _, v := range rules.Verdicts {
		verdicts = append(verdicts, string(v))
	}
	for _, s := range verify.Statuses {
		statuses = append(statuses, string(s))
	}
	for _, c := range []struct {
		dir, typ string
		list     []string
		least    int
	}{
		{"rules", "Verdict", verdicts, 6},
		{"verify", "Status", statuses, 1},
	} {
		declared := enumValues(t, c.dir, []string{c.typ})[c.typ]
		got := slices.Sorted(slices.Values(c.list))
		slices.Sort(declared)
		if len(declared) < c.least || !slices.Equal(got, declared) {
			t.Errorf("%s: the list of %s is %v, declared %v", c.dir, c.typ, c.list, declared)
		}
	}
}
