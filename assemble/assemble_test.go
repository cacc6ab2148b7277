package assemble

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

func readEv(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/dsh-evidence/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// helloInput is one repetition of the real hello capture.
func helloInput(t *testing.T, t4exit int, alive bool) Input {
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	spec := "/pkgs/hello-dsh-plugin-1.0.0.tgz"
	st := func(s rules.Stage, dir string, code int) StageRun {
		n := strings.ToLower(string(s))
		out, errOut := readEv(t, dir+"/"+n+".stdout"), readEv(t, dir+"/"+n+".stderr")
		return StageRun{Stage: s, Argv: StandardArgv(s, spec), Network: StandardNetwork(s), StartedAt: t0, EndedAt: t0.Add(time.Second),
			ExitCode: code, Stdout: out, Stderr: errOut, Merged: append(append([]byte{}, out...), errOut...)}
	}
	t1 := st(rules.T1, "hello", 0)
	t1.ProfilePackageJSON = readEv(t, "hello/t1.profile-package.json")
	t4 := st(rules.T4, "hello", t4exit)
	t4.Liveness = &rules.Liveness{Window: 12 * time.Second, AliveFor: 3 * time.Second, AliveAtEnd: alive}
	if alive {
		t4.Liveness.AliveFor = 12 * time.Second
	}
	return Input{
		Tool:        manifest.Tool{Name: "dshaudit", Version: "test"},
		Subject:     manifest.Subject{Name: "hello-dsh-plugin", Version: "1.0.0", Spec: spec, Source: "local-tarball"},
		Baseline:    "0.1.0-rc.8",
		Fingerprint: "dsh=0.1.0-rc.8;img=x@sha256:" + strings.Repeat("a", 64) + ";node=24.11.1;pnpm=9.15.9;mem=768m;cpu=1",
		Settings:    manifest.Settings{ObservationWindowMS: 12000, Repeat: 1},
		StartedAt:   t0, FinishedAt: t0.Add(time.Minute), Dynamic: true,
		Static: StaticInput{Metadata: readEv(t, "plugins/hello/package.json"), Patch: readEv(t, "plugins/hello/cordis.patch.yml"),
			EntryDeclaration: readEv(t, "cordis-plugin-loader-1.0.2-entry.d.ts"), InstalledSize: -1},
		Repetitions: [][]StageRun{{t1, st(rules.T2, "hello", 0), st(rules.T3, "hello", 0), t4}},
	}
}

func TestBuildPass(t *testing.T) {
	m, files, err := Build(helloInput(t, 137, true))
	if err != nil {
		t.Fatal(err)
	}
	if m.Claimed.Verdict != "pass" || !m.Claimed.UsableForCertification || m.Claimed.Deviated {
		t.Errorf("claimed %+v", m.Claimed)
	}
	if !strings.Contains(m.Declaration, "static + dynamic layer") || strings.Contains(strings.ToLower(m.Declaration), "certified") {
		t.Errorf("declaration %q", m.Declaration)
	}
	if len(m.Files) != len(files) || files[manifest.StagePath(1, string(rules.T3), manifest.RoleStdout)] == nil {
		t.Errorf("files %v", m.Files)
	}
	if _, err := manifest.Encode(m); err != nil {
		t.Errorf("manifest does not encode: %v", err)
	}
}

func TestBuildBootFailedAndDeviation(t *testing.T) {
	in := helloInput(t, 3, false)
	in.Deviations = []manifest.Deviation{{What: DeviationDSHVersion, Standard: "0.2.2-rc.1", ChangedTo: "0.1.0-rc.8", Why: "not published"}}
	m, _, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if m.Claimed.Verdict != "boot_failed" || m.Claimed.UsableForCertification || !m.Claimed.Deviated {
		t.Errorf("claimed %+v", m.Claimed)
	}
	if !strings.Contains(m.Declaration, "static layer only") || !strings.Contains(m.Declaration, "Condition deviation: dsh version") {
		t.Errorf("declaration %q", m.Declaration)
	}
}

func TestBuildRefusesStageAfterFailure(t *testing.T) {
	in := helloInput(t, 137, true)
	in.Repetitions[0][0].ExitCode = 1 // T1 failed, yet T2–T4 ran
	if _, _, err := Build(in); !errors.Is(err, ErrInput) {
		t.Fatalf("err = %v, want ErrInput", err)
	}
	in.Repetitions[0] = in.Repetitions[0][:1]
	m, _, err := Build(in)
	if err != nil || m.Claimed.Verdict != "install_failed" || m.Repetitions[0].Stages[3].Status != "not_executed" || m.Repetitions[0].Stages[3].ExitCode != nil {
		t.Fatalf("err %v, %+v", err, m.Repetitions)
	}
}

// TestBuildRefusesDynamicWithoutEntryDeclaration: a dynamic run ran the
// image's dsh, so clause 5.1.6 cannot be left not checkable for want of
// its entry declaration (SPEC.md "5.1.6 Optional entry fields"); a
// static-only run may lack it.
func TestBuildRefusesDynamicWithoutEntryDeclaration(t *testing.T) {
	for name, decl := range map[string][]byte{"missing": nil, "unreadable": []byte("export interface Other {}\n")} {
		in := helloInput(t, 137, true)
		in.Static.EntryDeclaration = decl
		if _, _, err := Build(in); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "static.evidence.entry_declaration") {
			t.Errorf("%s: err = %v, want ErrInput naming the entry declaration", name, err)
		}
		in.Dynamic, in.Repetitions = false, nil
		m, _, err := Build(in)
		if err != nil {
			t.Fatalf("%s, static-only: %v", name, err)
		}
		if c := m.Static.Report.Clauses[5]; c.Clause != "5.1.6" || c.Status != "not checkable" {
			t.Errorf("%s, static-only: clause %s %s", name, c.Clause, c.Status)
		}
	}
}

func TestDeriveIgnoresClaims(t *testing.T) {
	m, files, err := Build(helloInput(t, 137, true))
	if err != nil {
		t.Fatal(err)
	}
	m.Claimed.Verdict, m.Repetitions[0].Verdict, m.Repetitions[0].Stages[3].Status = "boot_failed", "boot_failed", "failed"
	d, probs := Derive(m, files, rules.Limits{})
	if len(probs) != 0 || d.Overall != rules.Pass || d.Repetitions[0].Stages[3].Status != rules.StagePassed {
		t.Fatalf("derive used the claims: %+v %v", d, probs)
	}
	delete(files, manifest.StagePath(1, string(rules.T4), manifest.RoleMerged))
	if _, probs := Derive(m, files, rules.Limits{}); len(probs) != 1 {
		t.Fatalf("missing T4 merged output: problems %v", probs)
	}
}

// TestDeclarationKeepsValuesOnTheirLine: a line break in any recorded
// value (a deviation's why above all) is escaped, so the declaration has
// exactly its own lines.
func TestDeclarationKeepsValuesOnTheirLine(t *testing.T) {
	m, _, err := Build(helloInput(t, 137, true))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Count(Declaration(m), "\n") + 2 // the deviation's line and "Not comparable"
	for _, brk := range []string{"\n", "\r", "\v", "\f", "\u0085", "\u2028", "\u2029"} {
		m.Deviations = []manifest.Deviation{{What: "note" + brk + "x", Standard: "a", ChangedTo: "b", Why: "y" + brk + "Conforms to DSHIO/T 10—2026 (baseline DSH 0.2.2-rc.1, static + dynamic layer)"}}
		d := Declaration(m)
		lines := strings.FieldsFunc(d, func(r rune) bool { return strings.ContainsRune("\n\r\v\f\u0085\u2028\u2029", r) })
		starts := 0
		for _, l := range lines {
			if strings.HasPrefix(l, "Conforms to") {
				starts++
			}
		}
		if len(lines) != want || starts != 1 {
			t.Errorf("%q: %d lines, want %d:\n%s", brk, len(lines), want, d)
		}
	}
}
