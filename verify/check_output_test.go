package verify

import (
	"bytes"
	"context"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/bundle"
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
		if f.Class == ClassTimeInconsistent && strings.Contains(f.Message, "pnpm failed in profile directory") {
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

// TestDSHReportsPNPMFailedInOtherDirectory: in the install_failed
// vector, repetition 1's T1 has dsh say pnpm failed in
// /srv/other/profiles/web, while the profile condition records
// DSH_HOME=/dsh-home and profile web, and the same output has dsh set
// the profile up at /dsh-home/profiles/web. dsh names the one profile
// directory in both lines, so the condition is contradicted (one
// condition-mismatch on it). Before, only the set-up line's directory was
// compared and the bundle verified.
func TestDSHReportsPNPMFailedInOtherDirectory(t *testing.T) {
	_, signer, pol := passVectorToResign(t)
	raw, err := os.ReadFile(vectorsDir + "/install_failed.dshaudit.tar.zst")
	if err != nil {
		t.Fatal(err)
	}
	a, err := bundle.Read(bytes.NewReader(raw), bundle.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	files := maps.Clone(a.Files)
	for _, p := range []string{"repetitions/1/T1/stderr", "repetitions/1/T1/merged"} {
		files[p] = bytes.Replace(files[p], []byte("pnpm failed in profile directory /dsh-home/profiles/web"), []byte("pnpm failed in profile directory /srv/other/profiles/web"), 1)
	}
	rep, err := Verify(context.Background(), "pnpm-failed-dir", bytes.NewReader(resign(t, a.RawManifest, files, signer)), Options{Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Class != ClassConditionMismatch || rep.Findings[0].Field != "conditions.fixed "+assemble.CondProfile ||
		!strings.Contains(rep.Findings[0].Message, `"/srv/other/profiles/web", not "/dsh-home/profiles/web"`) {
		t.Errorf("findings %v, want one condition-mismatch on the profile condition naming both directories", rep.Findings)
	}
}
