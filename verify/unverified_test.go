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
