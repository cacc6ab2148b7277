package rules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"testing"
)

// TestVerdictsListsEveryConstant: Verdicts holds every constant of type
// Verdict declared in this package, once.
func TestVerdictsListsEveryConstant(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "types.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []Verdict
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Verdict" {
				continue
			}
			for _, v := range vs.Values {
				s, err := strconv.Unquote(v.(*ast.BasicLit).Value)
				if err != nil {
					t.Fatal(err)
				}
				declared = append(declared, Verdict(s))
			}
		}
	}
	got := slices.Clone(Verdicts)
	slices.Sort(got)
	slices.Sort(declared)
	if len(declared) < 6 || !slices.Equal(got, declared) {
		t.Fatalf("Verdicts %v, declared %v", Verdicts, declared)
	}
}
