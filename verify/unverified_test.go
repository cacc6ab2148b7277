package verify

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The pass vector verifies, and what cannot be checked is listed as
// unverified metadata, not shown as verified (SPEC.md "Manifest fields and
// how each is checked").
func TestUnverifiedListed(t *testing.T) {
	_, pol := loadVectors(t)
	f, err := os.Open(filepath.Join(vectorsDir, "pass.dshaudit.tar.zst"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := Verify(context.Background(), "pass", f, Options{Policy: pol})
	if err != nil || !rep.OK() {
		t.Fatalf("pass vector: %v %v", err, rep.Findings)
	}
	var fields []string
	for _, u := range rep.Unverified {
		fields = append(fields, u.Field)
	}
	for _, want := range []string{"tool.name", "tool.version", "subject.source", "deviations[0].why", "static.installed_size"} {
		if !slices.Contains(fields, want) {
			t.Errorf("%s is not listed as unverified: %q", want, fields)
		}
	}
	for _, f := range fields {
		if strings.Contains(f, "memory limit") || strings.Contains(f, "command (DSHIO") {
			t.Errorf("%s is cross-checked, yet listed as unverified", f)
		}
	}
}

// An honest writer's own wording of the T0 texts verifies, and each text
// it worded otherwise is listed as the writer's (SPEC.md "Normative and
// informative values"), never as the verifier's.
func TestWriterInformativeTextsListed(t *testing.T) {
	_, pol := loadVectors(t)
	f, err := os.Open(filepath.Join(kitDir, "cases", "honest_static_only_t0_french.dshaudit.tar.zst"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := Verify(context.Background(), "french", f, Options{Policy: pol})
	if err != nil || !rep.OK() {
		t.Fatalf("honest writer: %v %v", err, rep.Findings)
	}
	n := 0
	for _, u := range rep.Unverified {
		if strings.HasPrefix(u.Field, "static.report.") {
			n++
			if !strings.Contains(u.Value, "clause de la norme") && !strings.Contains(u.Value, "valeur observée") && !strings.Contains(u.Value, "voir le rapport") {
				t.Errorf("%s is listed with %q, not the writer's text", u.Field, u.Value)
			}
		}
	}
	if n == 0 {
		t.Error("no writer's T0 text is listed as unverified")
	}
}
