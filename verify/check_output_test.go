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

// TestPNPMGivesUpInT2ExitZero appends pnpm's error label
// (" ERR_PNPM_BROKEN_LOCKFILE …", indented as pnpm prints it) to
// repetition 2's T2 stdout and merged, T2 still recording exit 0. dsh
// plugin list is pnpm's run and exits with pnpm's status, and pnpm exits
// 1 after its error label: a time-inconsistent finding on the exit code.
// Before, only T1 was read so, and the bundle verified. The controls: the
// same label in T3 (dsh's own command, which may survive a pnpm it runs),
// and a column-0 line of the T2 listing whose package name starts
// ERR_PNPM_ (a legacy npm name pnpm list prints at column 0), verify.
func TestPNPMGivesUpInT2ExitZero(t *testing.T) {
	a, signer, pol := passVectorToResign(t)
	verifyWith := func(t *testing.T, dir, old, new string) *Report {
		t.Helper()
		files := maps.Clone(a.Files)
		for _, role := range []string{"stdout", "merged"} {
			if !bytes.Contains(files[dir+role], []byte(old)) {
				t.Fatalf("%s%s lacks %q", dir, role, old)
			}
			files[dir+role] = bytes.Replace(files[dir+role], []byte(old), []byte(new), 1)
		}
		rep, err := Verify(context.Background(), "pnpm-error", bytes.NewReader(resign(t, a.RawManifest, files, signer)), Options{Policy: pol})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := verifyWith(t, "repetitions/2/T2/", "Legend:", " ERR_PNPM_BROKEN_LOCKFILE  The lockfile is broken\nLegend:")
	var got []string
	for _, f := range rep.Findings {
		if f.Class == ClassTimeInconsistent && strings.Contains(f.Message, "ERR_PNPM_BROKEN_LOCKFILE") {
			got = append(got, f.Field)
		}
	}
	if want := []string{"repetitions[2].T2.exit_code"}; !slices.Equal(got, want) {
		t.Errorf("findings on %v, want %v; all: %v", got, want, rep.Findings)
	}
	// The legacy name, listed at column 0 and a dependency of the
	// profile package.json T1 recorded, in both repetitions.
	files := maps.Clone(a.Files)
	for r := 1; r <= 2; r++ {
		dir := "repetitions/" + string(rune('0'+r))
		for _, role := range []string{"/T2/stdout", "/T2/merged"} {
			files[dir+role] = bytes.Replace(files[dir+role], []byte("dependencies:\nhello"), []byte("dependencies:\nERR_PNPM_LEGACY 1.0.0\nhello"), 1)
		}
		p := dir + "/T1/profile-package.json"
		files[p] = bytes.Replace(files[p], []byte(`"dependencies": {`), []byte(`"dependencies": {"ERR_PNPM_LEGACY": "1.0.0",`), 1)
	}
	rep, err := Verify(context.Background(), "legacy-name", bytes.NewReader(resign(t, a.RawManifest, files, signer)), Options{Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	// The second dependency is itself a finding on each T1's package.json
	// (SPEC.md "The run model", relation 5); nothing else may be found.
	for _, f := range rep.Findings {
		if f.Class != ClassConditionMismatch || !strings.HasSuffix(f.Field, ".T1.evidence.profile_package_json") {
			t.Errorf("a listed package named ERR_PNPM_LEGACY: %v", f)
		}
	}
}
