package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/internal/termtext"
	"github.com/dshaudit/dshaudit/internal/testutil/vectortest"
	"github.com/dshaudit/dshaudit/runner"
)

// TestRunSummaryText prints `dshaudit run`'s summary of the boot_failed
// vector (real dsh 0.1.0-rc.8 evidence) as run prints it after writing a
// bundle: the stage tables, the T0 clauses, the deviations, the overall
// verdict, and never the word certified (DSHIO/T 10 8.2).
func TestRunSummaryText(t *testing.T) {
	_, arc, m := vectortest.ReadBundle(t, vecDir+"boot_failed.dshaudit.tar.zst")
	sum := runner.Summarize(&runner.Result{Manifest: m, Files: arc.Files}, &runner.Written{Path: "b.dshaudit.tar.zst", SHA256: "sha256:00", Size: 1})
	var text bytes.Buffer
	if err := printRunSummary(&text, termtext.Style{Width: termtext.DefaultWidth, MaxText: termtext.DefaultMaxText}, sum); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Repetition 1: boot_failed", "T4     failed", "Overall verdict: boot_failed", "Usable for certification: no", "5.1.1", "Condition deviations (DSHIO/T 21 8.2):", "Evidence bundle: b.dshaudit.tar.zst (sha256:00, 1 bytes)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(strings.ToLower(text.String()), "certified") {
		t.Error("summary uses the word certified (DSHIO/T 10 8.2)")
	}
}
