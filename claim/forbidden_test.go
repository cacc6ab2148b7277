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
	for _, f := range forbidden(strings.Split(text, "\n"), map[int]bool{3: true}, "certified-weather") {
		if f.Clause == "DSHIO/T 10 8.2" {
			t.Errorf("the package name was read as a claim: %+v", f)
		}
	}
	for _, lie := range []string{"certified-weather is DSHIO certified", "DSHIO сertified plugin", "DSHIO cer\u200btified"} {
		lines := strings.Split("Package: certified-weather@1.0.0\n"+lie, "\n")
		n := 0
		for _, f := range forbidden(lines, nil, "certified-weather") {
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
	for _, f := range forbidden(lines, nil, "throws-dsh-plugin") {
		if f.Clause == "DSHIO/T 10 8.2" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d certified findings, want 1 (line 1)", n)
	}
}
