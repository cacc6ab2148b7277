package assemble

import (
	"reflect"
	"testing"

	"github.com/dshaudit/dshaudit/manifest"
)

func TestNormativeStaticIgnoresInformativeTexts(t *testing.T) {
	f := false
	a := manifest.StaticReport{ConformingStatic: &f, Warnings: []string{"fix first"}, Clauses: []manifest.ClauseResult{
		{Clause: "5.1.1", Title: "Plugin declaration", Status: "non-conforming", Severity: "critical", Observed: "no dsh.bundle.patch", Message: "add it"},
	}}
	b := manifest.StaticReport{ConformingStatic: &f, Warnings: []string{"corrigez d'abord"}, Clauses: []manifest.ClauseResult{
		{Clause: "5.1.1", Title: "déclaration", Status: "non-conforming", Severity: "critical", Questions: []string{"?"}},
	}}
	if !reflect.DeepEqual(NormativeStatic(a), NormativeStatic(b)) {
		t.Errorf("reports differing only in informative texts project differently:\n%+v\n%+v", NormativeStatic(a), NormativeStatic(b))
	}
	b.Warnings = nil
	if reflect.DeepEqual(NormativeStatic(a), NormativeStatic(b)) {
		t.Error("a non-conforming report without its warning projects like one with it")
	}
	b.Warnings, b.Clauses[0].Severity = []string{"x"}, "recommended"
	if reflect.DeepEqual(NormativeStatic(a), NormativeStatic(b)) {
		t.Error("a changed severity projects like the original")
	}
}

func TestFirstErrorIdentity(t *testing.T) {
	for in, want := range map[string]string{
		"":                          "",
		"Error: dsh: fatal":         "Error: dsh: fatal",
		"dshaudit: no marker":       "dshaudit: ",
		"timeout: T4 did not stop":  "timeout: ",
		" dshaudit: not the prefix": " dshaudit: not the prefix",
	} {
		if got := FirstErrorIdentity(in); got != want {
			t.Errorf("FirstErrorIdentity(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAdoptInformative(t *testing.T) {
	tr := true
	ours := &manifest.Manifest{
		Static: manifest.Static{Report: manifest.StaticReport{ConformingStatic: &tr, Clauses: []manifest.ClauseResult{
			{Clause: "5.1.1", Title: "Plugin declaration", Status: "conforming", Severity: "critical", Observed: "ours"}}}},
		Repetitions: []manifest.Repetition{{Stages: []manifest.Stage{
			{Stage: "T1", FirstError: "dshaudit: our words"}, {Stage: "T3", FirstError: "Error: line"}}}},
	}
	theirs := &manifest.Manifest{
		Static: manifest.Static{Report: manifest.StaticReport{ConformingStatic: &tr, Clauses: []manifest.ClauseResult{
			{Clause: "5.1.1", Title: "déclaration", Status: "conforming", Severity: "critical", Observed: "theirs"}}}},
		Repetitions: []manifest.Repetition{{Stages: []manifest.Stage{
			{Stage: "T1", FirstError: "dshaudit: their words"}, {Stage: "T3", FirstError: "Error: another line"}}}},
	}
	AdoptInformative(ours, theirs)
	if got := ours.Static.Report.Clauses[0]; got.Observed != "theirs" || got.Title != "déclaration" {
		t.Errorf("the writer's T0 texts are not adopted: %+v", got)
	}
	if got := ours.Repetitions[0].Stages[0].FirstError; got != "dshaudit: their words" {
		t.Errorf("a composed first_error of the same identity is not adopted: %q", got)
	}
	if got := ours.Repetitions[0].Stages[1].FirstError; got != "Error: line" {
		t.Errorf("an extracted first_error of another identity is adopted: %q", got)
	}
	theirs.Static.Report.Clauses[0].Status = "non-conforming"
	theirs.Static.Report.Clauses[0].Observed = "changed"
	AdoptInformative(ours, theirs)
	if ours.Static.Report.Clauses[0].Status != "conforming" {
		t.Error("a report whose normative part differs is adopted")
	}
}

// TestInformativePlaceNames: each place is named as the manifest's field
// and JSON Pointer name it.
func TestInformativePlaceNames(t *testing.T) {
	for _, tc := range []struct {
		p            InformativePlace
		field, point string
	}{
		{InformativePlace{-1, "reason", -1}, "static.report.reason", "/static/report/reason"},
		{InformativePlace{-1, "warnings", 2}, "static.report.warnings[2]", "/static/report/warnings/2"},
		{InformativePlace{0, "title", -1}, "static.report.clauses[0].title", "/static/report/clauses/0/title"},
		{InformativePlace{11, "material", 3}, "static.report.clauses[11].material[3]", "/static/report/clauses/11/material/3"},
	} {
		if f, p := tc.p.Field(), tc.p.Pointer(); f != tc.field || p != tc.point {
			t.Errorf("%+v: %q %q, want %q %q", tc.p, f, p, tc.field, tc.point)
		}
	}
}
