package verify

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"testing"
)

// TestDSHReportsPNPMFailedExitZero appends dsh's "pnpm failed in
// profile directory" line to repetition 1's T1 and repetition 2's T2
// stderr and merged, each stage still recording exit 0. dsh plugin (the
// T1 and T2 command) prints the line only when pnpm exited non-zero, and
// then exits with pnpm's status, so each exit_code is a
// time-inconsistent finding naming the line. Before, the catalogue read
// the form and no relation used it: the bundle verified, every verdict
// pass. The control appends the line to T3, whose dsh does not print it
// (a plugin's own output could): no finding.
func TestDSHReportsPNPMFailedExitZero(t *testing.T) {
	a, signer, pol := passVectorToResign(t)
	const line = "dsh: pnpm failed in profile directory /dsh-home/profiles/web\n"
	verifyWith := func(t *testing.T, dirs ...string) *Report {
		t.Helper()
		files := maps.Clone(a.Files)
		for _, dir := range dirs {
			for _, role := range []string{"stderr", "merged"} {
				files[dir+role] = append(slices.Clip(files[dir+role]), line...)
			}
		}
		rep, err := Verify(context.Background(), "pnpm-failed", bytes.NewReader(resign(t, a.RawManifest, files, signer)), Options{Policy: pol})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := verifyWith(t, "repetitions/1/T1/", "repetitions/2/T2/")
	var got []string
	for _, f := range rep.Findings {
		if f.Class == ClassTimeInconsistent && bytes.Contains([]byte(f.Message), []byte("pnpm failed in profile directory")) {
			got = append(got, f.Field)
		}
	}
	if want := []string{"repetitions[1].T1.exit_code", "repetitions[2].T2.exit_code"}; !slices.Equal(got, want) {
		t.Errorf("findings on %v, want %v; all: %v", got, want, rep.Findings)
	}
	if rep := verifyWith(t, "repetitions/1/T3/"); !rep.OK() {
		t.Errorf("the line in T3: %v", rep.Findings)
	}
}
