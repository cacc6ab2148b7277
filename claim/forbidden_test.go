package claim

import (
	"strings"
	"testing"
)

// The package name is exempt from the certified-word check: a plugin may
// be called certified-…; the word elsewhere, in any confusable spelling,
// is still a claim (SPEC.md "Forbidden words").
func TestForbiddenCertifiedNamedPackage(t *testing.T) {
	text := "# certified-weather\n\nConforms to DSHIO/T 10—2026 (baseline DSH 0.2.2-rc.1, static + dynamic layer)\nPackage: certified-weather@1.0.0\nTested: 2026-11-20\n\nInstall certified-weather with dsh plugin add certified-weather.\n"
	for _, f := range forbidden(formsOfLines(strings.Split(text, "\n")), map[int]bool{3: true}, "certified-weather") {
		if f.Clause == "DSHIO/T 10 8.2" {
			t.Errorf("the package name was read as a claim: %+v", f)
		}
	}
	for _, lie := range []string{"certified-weather is DSHIO certified", "DSHIO сertified plugin", "DSHIO cer\u200btified"} {
		lines := strings.Split("Package: certified-weather@1.0.0\n"+lie, "\n")
		n := 0
		for _, f := range forbidden(formsOfLines(lines), nil, "certified-weather") {
			if f.Clause == "DSHIO/T 10 8.2" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%q: %d certified findings, want 1", lie, n)
		}
	}
}

// Only the tested package's name is exempt: a name the text gives on a
// Package: line of its own exempts nothing (review of 2026-12-01).
func TestForbiddenCertifiedOnlyTestedName(t *testing.T) {
	lines := strings.Split("**This plugin is DSHIO certified.**\n\nPackage: certified@0.0.0\n", "\n")
	n := 0
	for _, f := range forbidden(formsOfLines(lines), nil, "throws-dsh-plugin") {
		if f.Clause == "DSHIO/T 10 8.2" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d certified findings, want 1 (line 1)", n)
	}
}

// A conformance claim naming DSHIO/T in another wording than a
// declaration's is a finding; a denial or a mere citation is not (SPEC.md
// "Forbidden statements").
func TestForbiddenOtherWordings(t *testing.T) {
	const msg = "a conformance claim naming DSHIO/T that is not a declaration"
	claims := []string{
		"Complies with DSHIO/T 10—2026 (baseline DSH 0.2.2-rc.1, static + dynamic layer).",
		"This plugin is conformant with DSHIO/T 10.",
		"Compliant to DSHIO/T 10—2026.",
		"Meets DSHIO/T 10 in full.",
		"**Fully compliant** with *DSHIO/T 10*",
		"Conf\u043ermant with DSHIO/T 10",
		"Complies with DSH1O/T 10",
		"Complies&nbsp;with DSHIO/T&#160;10",
		"Is DSHIO/T 10—2026-compliant.",
		"In full conformity with DSHIO/T 10.",
		"Satisfies every clause of DSHIO/T 10.",
		"Not compliant with DSHIO/T 20 yet, but complies with DSHIO/T 10.",
		"<!-- complies with DSHIO/T 10 -->",
		"It does not conform to DSHIO/T 20 but complies with DSHIO/T 10.",
	}
	denials := []string{
		"This plugin does not conform to DSHIO/T 10.",
		"Not compliant with DSHIO/T 10 (the sandbox test fails).",
		"It is not yet fully compliant with DSHIO/T 10.",
		"It no longer meets DSHIO/T 10.",
		"It isn't compliant with DSHIO/T 10.",
		"See DSHIO/T 10 clause 5.2 for the entry declaration.",
		"Checked with dshaudit against DSHIO/T 20.",
		"No declaration of conformity: T0 is unresolvable or critically non-conforming (DSHIO/T 10 8.1).",
		"a critical static clause is non-conforming: the sandbox test (T1–T4) will most likely fail, so fixing it first is advisable (DSHIO/T 20 5.6); T0 does not stop the later stages",
		"Not comparable with undeviated reports; not a basis for certification (DSHIO/T 21 8.2)",
		"conforming_static: true (DSHIO/T 20 5.5)",
		"It conforms to the dsh plugin API. DSHIO/T 10 describes it.",
	}
	count := func(line string) int {
		n := 0
		for _, f := range forbidden(read(line).scanned(), nil) {
			if strings.HasPrefix(f.Message, msg) && f.Clause == "DSHIO/T 10 8.1" {
				n++
			}
		}
		return n
	}
	for _, l := range claims {
		if n := count(l); n != 1 {
			t.Errorf("%q: %d findings, want 1", l, n)
		}
	}
	for _, l := range denials {
		if n := count(l); n != 0 {
			t.Errorf("%q: %d findings, want none", l, n)
		}
	}
	// A declaration that does not parse is unread's, not flagged twice.
	if n := count("Conforms to DSHIO/T 10 (baseline DSH 0.2.2-rc.1)"); n != 0 {
		t.Errorf("malformed declaration: %d findings here, want none (unread reports it)", n)
	}
}

// formsOfLines is each line in the forms forbidden reads.
func formsOfLines(lines []string) []lineForms {
	out := make([]lineForms, len(lines))
	for i, l := range lines {
		out[i] = formsOf(l)
	}
	return out
}
