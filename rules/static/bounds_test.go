package static

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/rules"
)

// TestPatchBoundsAgree: T0 (clause 5.1.3) and InsertEntries, which the
// runner and the verifier use for T3's entries, refuse the same patch
// sizes (SPEC.md "T0 static check", "Input bounds").
func TestPatchBoundsAgree(t *testing.T) {
	if MaxPatchBytes != rules.MaxPatchSize {
		t.Fatalf("static.MaxPatchBytes %d, rules.MaxPatchSize %d", MaxPatchBytes, rules.MaxPatchSize)
	}
	item := "- insert:\n    - id: a\n      name: b\n"
	within := []byte(item + strings.Repeat("#", MaxPatchBytes-len(item)))
	over := append(within[:len(within):len(within)], '#')
	if _, err := rules.InsertEntries(within, rules.Limits{}); err != nil {
		t.Errorf("InsertEntries at the limit: %v", err)
	}
	if _, err := rules.InsertEntries(over, rules.Limits{}); !errors.Is(err, rules.ErrPatch) || !strings.Contains(err.Error(), "limit") {
		t.Errorf("InsertEntries one byte over the limit: %v, want ErrPatch naming the limit", err)
	}
	pkg := []byte(`{"main":"x.js","dsh":{"bundle":{"patch":"p.yml"}}}`)
	if c := clause(t, Input{PackageJSON: pkg, Patch: within}, "5.1.3"); c.Status != Conforming {
		t.Errorf("5.1.3 at the limit: %s %s", c.Status, c.Message)
	}
	if c := clause(t, Input{PackageJSON: pkg, Patch: over}, "5.1.3"); c.Status != NonConforming {
		t.Errorf("5.1.3 one byte over the limit: %s %s", c.Status, c.Message)
	}
}

// TestJSONBounds: package.json and the entry schema above their limits
// are not decoded (SPEC.md "T0 static check", "Input bounds").
func TestJSONBounds(t *testing.T) {
	pad := func(doc string, n int) []byte { // doc with spaces before its closing brace, n bytes in all
		return []byte(doc[:len(doc)-1] + strings.Repeat(" ", n-len(doc)) + "}")
	}
	pkg := `{"name":"p","version":"1.0.0","main":"x.js","dsh":{"bundle":{"patch":"p.yml"}}}`
	if _, err := parsePackageJSON(pad(pkg, MaxPackageJSONBytes), MaxPackageJSONBytes); err != nil {
		t.Errorf("package.json at the limit: %v", err)
	}
	if _, err := parsePackageJSON(pad(pkg, MaxPackageJSONBytes+1), MaxPackageJSONBytes); !errors.Is(err, ErrUnresolvable) || !strings.Contains(err.Error(), "limit") {
		t.Errorf("package.json one byte over the limit: %v", err)
	}
	schema := `{"properties":{"config":{"type":"object"}}}`
	if _, err := parseEntrySchema(pad(schema, MaxEntrySchemaBytes), MaxEntrySchemaBytes); err != nil {
		t.Errorf("entry schema at the limit: %v", err)
	}
	if _, err := parseEntrySchema(pad(schema, MaxEntrySchemaBytes+1), MaxEntrySchemaBytes); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("entry schema one byte over the limit: %v", err)
	}
}

// TestEntryDeclarationBound: an EntryOptions declaration above its limit
// is not parsed, and leaves 5.1.6 not checkable (SPEC.md "T0 static
// check", "Input bounds").
func TestEntryDeclarationBound(t *testing.T) {
	decl := "export interface EntryOptions {\n  a: string;\n}"
	pad := func(n int) []byte { return []byte(strings.Repeat(" ", n-len(decl)) + decl) }
	if _, err := parseEntryDeclaration(pad(MaxEntryDeclarationBytes), MaxEntryDeclarationBytes); err != nil {
		t.Errorf("declaration at the limit: %v", err)
	}
	over := pad(MaxEntryDeclarationBytes + 1)
	if err := EntryDeclarationError(over); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("declaration one byte over the limit: %v", err)
	}
	pkg := []byte(`{"main":"x.js","dsh":{"bundle":{"patch":"p.yml"}}}`)
	patch := []byte("- insert:\n    - id: a\n      name: b\n")
	if c := clause(t, Input{PackageJSON: pkg, Patch: patch, EntryDeclaration: over}, "5.1.6"); c.Status != NotCheckable || !strings.Contains(c.Message, "limit") {
		t.Errorf("5.1.6 with a declaration over the limit: %s %s", c.Status, c.Message)
	}
}

// TestInputBoundSettable: Input.MaxInputBytes replaces the default bound
// of each of T0's four parsed inputs, up and down, at exactly that many
// bytes (SPEC.md "T0 static check", "Input bounds"; the verifier's
// --max-static-input), and rules.Limits.MaxStaticInput does the same for
// InsertEntries, so that T0 and T3 agree on the patch.
func TestInputBoundSettable(t *testing.T) {
	pkg := []byte(`{"main":"x.js","dsh":{"bundle":{"patch":"p.yml"}}}`)
	item := "- insert:\n    - id: a\n      name: b\n"
	big := []byte(item + strings.Repeat("#", MaxPatchBytes)) // over the default
	raised := int64(len(big))
	if c := clause(t, Input{PackageJSON: pkg, Patch: big}, "5.1.3"); c.Status != NonConforming {
		t.Errorf("5.1.3 over the default bound: %s %s", c.Status, c.Message)
	}
	if c := clause(t, Input{PackageJSON: pkg, Patch: big, MaxInputBytes: raised}, "5.1.3"); c.Status != Conforming {
		t.Errorf("5.1.3 at a raised bound: %s %s", c.Status, c.Message)
	}
	if c := clause(t, Input{PackageJSON: pkg, Patch: big, MaxInputBytes: raised - 1}, "5.1.3"); c.Status != NonConforming || !strings.Contains(c.Message, fmt.Sprint(raised-1)) {
		t.Errorf("5.1.3 one byte over a raised bound: %s %s", c.Status, c.Message)
	}
	if _, err := rules.InsertEntries(big, rules.Limits{MaxStaticInput: raised}); err != nil {
		t.Errorf("InsertEntries at a raised bound: %v", err)
	}
	if _, err := rules.InsertEntries(big, rules.Limits{MaxStaticInput: raised - 1}); !errors.Is(err, rules.ErrPatch) {
		t.Errorf("InsertEntries one byte over a raised bound: %v", err)
	}

	small := int64(len(pkg)) // lowered: package.json exactly at it, then one byte over
	if rep := Check(Input{PackageJSON: pkg, Patch: []byte(item), MaxInputBytes: small}); rep.Unresolvable {
		t.Errorf("package.json at a lowered bound: %s", rep.Reason)
	}
	if rep := Check(Input{PackageJSON: pkg, Patch: []byte(item), MaxInputBytes: small - 1}); !rep.Unresolvable || !strings.Contains(rep.Reason, "limit") {
		t.Errorf("package.json one byte over a lowered bound: %+v", rep)
	}
	// Definitions longer than package.json, so that the bound between
	// them parses the metadata.
	schema := []byte(`{"properties":{"config":{"type":"object"}}` + strings.Repeat(" ", 200) + `}`)
	decl := []byte(strings.Repeat(" ", 200) + "export interface EntryOptions {\n  a: string;\n}")
	for _, in := range []Input{
		{PackageJSON: pkg, Patch: []byte(item), EntrySchema: schema, MaxInputBytes: int64(len(schema)) - 1},
		{PackageJSON: pkg, Patch: []byte(item), EntryDeclaration: decl, MaxInputBytes: int64(len(decl)) - 1},
	} {
		if c := clause(t, in, "5.1.6"); c.Status != NotCheckable || !strings.Contains(c.Message, "limit") {
			t.Errorf("5.1.6 with its definition one byte over a lowered bound: %s %s", c.Status, c.Message)
		}
		in.MaxInputBytes++
		if c := clause(t, in, "5.1.6"); c.Status == NotCheckable {
			t.Errorf("5.1.6 with its definition at a lowered bound: %s %s", c.Status, c.Message)
		}
	}
}
