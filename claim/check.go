package claim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// Kind says how a finding bears on the claim.
type Kind string

// Finding kinds.
const (
	// KindContradicts: a declared value differs from the bundle's.
	KindContradicts Kind = "contradicts"
	// KindNotBacked: the bundle cannot back the claim as written.
	KindNotBacked Kind = "not-backed"
	// KindForbidden: the text says what the standards forbid.
	KindForbidden Kind = "forbidden"
)

// Outcome is the one-line result. Its JSON values are lower-kebab-case
// like every enum value in dshaudit's JSON (SPEC.md "Result objects");
// Text gives the text output's words ("claim contradicts bundle").
type Outcome string

// Text is the outcome as the text output words it.
func (o Outcome) Text() string {
	switch o {
	case Backed:
		return "claim backed"
	case NotBacked:
		return "claim not backed"
	case Contradicts:
		return "claim contradicts bundle"
	}
	return string(o)
}

// Outcomes.
const (
	Backed      Outcome = "backed"
	NotBacked   Outcome = "not-backed"
	Contradicts Outcome = "contradicts"
)

// Finding is one problem with the claim, naming its line and the clause.
type Finding struct {
	Line    int    `json:"line"`
	Kind    Kind   `json:"kind"`
	Clause  string `json:"clause"`
	Message string `json:"message"`
	Text    string `json:"text,omitempty"`
}

func (f Finding) String() string {
	return fmt.Sprintf("line %d: [%s] %s (%s)", f.Line, f.Kind, f.Message, f.Clause)
}

// Facts are what a verified bundle establishes (from verify.Report).
type Facts struct {
	// Verified is true only when the bundle verified with no finding.
	Verified bool
	Status   string
	// Standards are the editions the bundle applied.
	Standards    []string
	Package      string // name@version
	Baseline     string
	TestDate     string
	Fingerprint  string
	BundleDigest string // sha256:<hex>
	Dynamic      bool
	Verdict      string // re-derived overall verdict
	Unstable     bool
	Deviated     bool
	// Deviations are the bundle's recorded deviations, item by item.
	Deviations       []manifest.Deviation
	ConformingStatic *bool
}

// Result is the outcome of checking one text against one bundle.
type Result struct {
	Outcome      Outcome       `json:"outcome"`
	Declarations []Declaration `json:"declarations"`
	Findings     []Finding     `json:"findings"`
}

// Check finds every declaration in text and every forbidden statement,
// and compares each declaration with the bundle's facts. pkg, when not
// empty, is the name@version the claim is for (--package, or the
// package.json beside a README from a tarball): another version is
// another object and is not backed (DSHIO/T 10 7.2, 7.5).
func Check(text string, f Facts, pkg string) Result {
	pg := read(text)
	decls := parseLines(pg.forms, pg.raw)
	res := Result{Declarations: decls}
	if res.Declarations == nil {
		res.Declarations = []Declaration{}
	}
	declLines := map[int]bool{}
	for _, d := range decls {
		declLines[d.Line] = true
	}
	res.Findings = append(res.Findings, forbidden(pg.scanned(), declLines, packageName(f.Package))...)
	res.Findings = append(res.Findings, prose(pg.scanned(), declLines, f)...)
	res.Findings = append(res.Findings, unread(pg, declLines)...)
	res.Findings = append(res.Findings, reordered(pg, decls)...)
	if len(decls) == 0 {
		res.Findings = append(res.Findings, Finding{Line: 0, Kind: KindNotBacked, Clause: "DSHIO/T 10 8.1", Message: "no declaration of conformity found in the text"})
	}
	if pkg != "" && pkg != f.Package {
		res.Findings = append(res.Findings, Finding{Line: 0, Kind: KindContradicts, Clause: "DSHIO/T 10 7.2, 7.5", Message: fmt.Sprintf("the claim is for %s but the bundle tested %s: each version is a separate object and inherits no verdict", pkg, f.Package)})
	}
	if !f.Verified {
		res.Findings = append(res.Findings, Finding{Line: 0, Kind: KindNotBacked, Clause: "DSHIO/T 20 12.2", Message: fmt.Sprintf("the bundle did not verify (%s): it backs nothing", f.Status)})
	}
	for _, d := range decls {
		if !f.Verified {
			break // nothing of an unverified bundle is compared
		}
		res.Findings = append(res.Findings, checkDeclaration(d, f, pkg)...)
	}
	res.Outcome = outcome(res.Findings)
	if res.Findings == nil {
		res.Findings = []Finding{}
	}
	return res
}

func outcome(fs []Finding) Outcome {
	if slices.ContainsFunc(fs, func(f Finding) bool { return f.Kind == KindContradicts }) {
		return Contradicts
	}
	if len(fs) > 0 {
		return NotBacked
	}
	return Backed
}

func checkDeclaration(d Declaration, f Facts, pkg string) []Finding {
	var out []Finding
	bad := func(line int, kind Kind, clause, format string, args ...any) {
		out = append(out, Finding{Line: line, Kind: kind, Clause: clause, Message: fmt.Sprintf(format, args...)})
	}
	if !slices.Contains(f.Standards, d.Standard) {
		bad(d.Line, KindContradicts, "DSHIO/T 10 8.1", "cites %s; the bundle applied %s", d.Standard, strings.Join(f.Standards, ", "))
	}
	if d.Baseline != f.Baseline {
		bad(d.Line, KindContradicts, "DSHIO/T 10 3.1", "baseline %s; the bundle's baseline is %s", d.Baseline, f.Baseline)
	}
	switch d.Scope {
	case ScopeStaticDynamic:
		switch {
		case !f.Dynamic:
			bad(d.Line, KindContradicts, "DSHIO/T 10 8.1", "claims the dynamic layer; the bundle covers the static layer only")
		case f.Unstable:
			bad(d.Line, KindContradicts, "DSHIO/T 20 11.3", "claims the dynamic layer passed; the bundle's result is unstable")
		case f.Verdict != string(rules.Pass):
			bad(d.Line, KindContradicts, "DSHIO/T 20 11.1", "claims the dynamic layer passed; the bundle's verdict is %s", f.Verdict)
		}
	}
	if f.ConformingStatic == nil || !*f.ConformingStatic {
		bad(d.Line, KindContradicts, "DSHIO/T 20 5.5", "the bundle's T0 result has a critical non-conformance or is unresolvable: it supports no declaration")
	}
	if d.Tested == "" {
		bad(d.Line, KindNotBacked, "DSHIO/T 10 8.1", "declares no test date (Tested: YYYY-MM-DD)")
	}
	if d.Fingerprint == "" && f.Fingerprint != "" { // a static-only bundle has no sandbox environment
		bad(d.Line, KindNotBacked, "DSHIO/T 10 8.1", "declares no environment fingerprint")
	}
	if d.Package == "" && pkg == "" {
		// A bundle backs the claim of the one package version it tested;
		// a text that names none could be any package's README.
		bad(d.Line, KindNotBacked, "DSHIO/T 10 7.2, 7.5", "names no package (no Package: line) and no --package was given: the bundle backs only %s's claim", f.Package)
	}
	firsts := []Field{
		{FieldTested, d.Tested, d.TestedLine},
		{FieldFingerprint, d.Fingerprint, d.FPLine},
		{FieldPackage, d.Package, d.PackageLine},
		{FieldBundle, d.Bundle, d.BundleLine},
	}
	for _, v := range firsts {
		if v.Value != "" {
			out = append(out, checkField(v, f)...)
		}
	}
	// A field given twice is checked twice: a second value that differs
	// from the first is a contradiction of its own, and whichever of them
	// is not the bundle's is reported. An identical repetition says
	// nothing new and is not a finding.
	for _, r := range d.Repeated {
		first := firsts[slices.IndexFunc(firsts, func(v Field) bool { return v.Name == r.Name })].Value
		if r.Value == first {
			continue
		}
		bad(r.Line, KindContradicts, fieldClause[r.Name], "declares two different %s values: %q and %q", r.Name, first, r.Value)
		out = append(out, checkField(r, f)...)
	}
	out = append(out, checkDeviations(d, f.Deviations)...)
	return out
}

// fieldClause is the clause a field's value answers to.
var fieldClause = map[string]string{
	FieldTested:      "DSHIO/T 10 8.1",
	FieldFingerprint: "DSHIO/T 21 5.2",
	FieldPackage:     "DSHIO/T 10 7.2",
	FieldBundle:      "DSHIO/T 20 12.2",
}

// checkField compares one declared value with the bundle's.
func checkField(v Field, f Facts) []Finding {
	var out []Finding
	bad := func(kind Kind, format string, args ...any) {
		out = append(out, Finding{Line: v.Line, Kind: kind, Clause: fieldClause[v.Name], Message: fmt.Sprintf(format, args...)})
	}
	switch v.Name {
	case FieldTested:
		if v.Value != f.TestDate {
			bad(KindContradicts, "test date %s; the bundle was tested on %s", v.Value, f.TestDate)
		}
	case FieldFingerprint:
		if _, err := rules.ParseFingerprint(v.Value); err != nil {
			bad(KindNotBacked, "the declared fingerprint is not a fingerprint: %v", err)
		}
		if v.Value != f.Fingerprint {
			bad(KindContradicts, "fingerprint %q; the bundle's is %q", v.Value, f.Fingerprint)
		}
	case FieldPackage:
		if v.Value != f.Package {
			bad(KindContradicts, "declares %s; the bundle tested %s", v.Value, f.Package)
		}
	case FieldBundle:
		if v.Value != f.BundleDigest {
			bad(KindContradicts, "names evidence bundle %s; this bundle is %s", v.Value, f.BundleDigest)
		}
	}
	return out
}

// packageName is the name of a name@version ("" for "").
func packageName(nameAtVersion string) string {
	if i := strings.LastIndex(nameAtVersion, "@"); i > 0 {
		return nameAtVersion[:i]
	}
	return nameAtVersion
}
