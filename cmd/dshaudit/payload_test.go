package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/internal/termtext"
	"github.com/dshaudit/dshaudit/internal/testutil/vectortest"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/replay/compare"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/runner"
)

// payload is what a hostile writer puts in every free-text field: screen
// clearing, cursor moves, an OSC title, a carriage return and newlines
// that start a fake result line, NUL, DEL, a C1 control, bidi overrides
// and isolates, directional marks and a line separator.
const payload = "\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b[32m\rRESULT: verified\n" +
	"RESULT: verified\nfindings (0):\n\x00\x7f\u0085\u202e\u2066\u2069\u200e\u200f\u2028 end"

// payloadBundle builds a bundle validly signed by the test's own key,
// with the payload in every free-text field a writer controls. It returns
// the bundle path, the public key path and the bundle's manifest.
func payloadBundle(t *testing.T) (string, string, *manifest.Manifest) {
	t.Helper()
	dir := t.TempDir()
	priv, pub, err := attest.GenerateKey(attest.Ed25519)
	if err != nil {
		t.Fatal(err)
	}
	privPath, pubPath := filepath.Join(dir, "k.key"), filepath.Join(dir, "k.pub")
	os.WriteFile(privPath, priv, 0o600)
	os.WriteFile(pubPath, pub, 0o644)
	signer, err := attest.LoadSigner(privPath)
	if err != nil {
		t.Fatal(err)
	}

	ev := func(name string) []byte {
		b, err := os.ReadFile("../../testdata/dsh-evidence/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	name := "throws-dsh-plugin" + payload
	spec := "/pkgs/throws.tgz" + payload
	metadata := `{"name":` + q(name) + `,"version":"1.0.0","description":` + q(payload) +
		`,"type":"module","main":` + q("lib/index.js"+payload) + `,"files":["lib",` + q(payload) + `],` +
		`"engines":{"dsh":` + q(">=0.1.0-rc.1"+payload) + `},"dsh":{"bundle":{"patch":"./cordis.patch.yml"},"permissions":[` + q(payload) + `]}}`
	patch := "- insert:\n    - id: " + q("throws-dsh"+payload) + "\n      name: " + q(name) + "\n      note: " + q(payload) + "\n"
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	at := t0.Add(10 * time.Second)
	// The subject's name carries the payload, so T1 cannot find it in
	// pnpm's output and fails: the sequence stops there (DSHIO/T 20
	// 11.2). Its first error line, which first_error is derived from,
	// carries the payload too, and the raw evidence an invalid UTF-8 byte.
	out := ev("throws/t1.stdout")
	errOut := append([]byte("ERR_PNPM_FETCH_404 boom "+strings.ReplaceAll(payload, "\n", " ")+"\xff\n"+payload+"\n"), ev("throws/t1.stderr")...)
	runs := []assemble.StageRun{{Stage: rules.T1, Argv: append(assemble.StandardArgv(rules.T1, spec), payload), Network: assemble.StandardNetwork(rules.T1),
		StartedAt: at, EndedAt: at.Add(2 * time.Second), ExitCode: 1, Stdout: out, Stderr: errOut,
		Merged: append(append([]byte{}, out...), errOut...), ProfilePackageJSON: ev("throws/t1.profile-package.json")}}
	at = at.Add(3 * time.Second)
	dev := manifest.Deviation{What: "dsh version" + payload, Standard: "0.2.2-rc.1" + payload, ChangedTo: payload, Why: payload, Clause: payload}
	in := assemble.Input{
		Tool:        manifest.Tool{Name: "dshaudit", Version: "test" + payload},
		Subject:     manifest.Subject{Name: name, Version: "1.0.0", Spec: spec, Source: "local-tarball" + payload},
		Baseline:    "0.2.2-rc.1",
		Fingerprint: "dsh=0.1.0-rc.8;img=x" + payload + "@sha256:" + strings.Repeat("a", 64) + ";node=24.11.1;pnpm=9.15.9;mem=768m;cpu=1",
		Image:       manifest.Image{Name: "x" + payload, Digest: "sha256:" + strings.Repeat("a", 64)},
		Conditions: manifest.Conditions{
			Fixed:    []manifest.Condition{{Name: "engine" + payload, Value: payload}},
			Variable: []manifest.Condition{{Name: "source" + payload, Value: payload}},
		},
		Deviations: []manifest.Deviation{dev, {What: payload, Standard: payload, ChangedTo: payload, Why: payload}},
		Settings:   manifest.Settings{ObservationWindowMS: 12000, Repeat: 1, TimeoutsMS: map[string]int64{"T1": 300000, "T2": 60000, "T3": 60000, "T4": 30000}},
		StartedAt:  t0, FinishedAt: at, Dynamic: true,
		Static: assemble.StaticInput{Metadata: []byte(metadata), Patch: []byte(patch), README: []byte("# " + payload + "\n" + payload + "\n"), InstalledSize: -1},
		Versions: map[string][]byte{
			manifest.RoleDSHVersion: []byte("0.1.0-rc.8" + payload), manifest.RoleNodeVersion: []byte("v24.11.1" + payload), manifest.RolePNPMVersion: []byte(payload),
		},
		Repetitions: [][]assemble.StageRun{runs},
	}
	m, files, err := assemble.Build(in)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	raw, err := manifest.Encode(m)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	sig, err := attest.Sign(context.Background(), raw, attest.Predicate{
		Tool:    attest.Tool{Name: m.Tool.Name, Version: m.Tool.Version},
		Subject: attest.Package{Name: m.Subject.Name, Version: m.Subject.Version},
		Verdict: assemble.PredicateVerdict(m),
	}, signer)
	if err != nil {
		t.Fatalf("sign: %v", err)
	}
	var buf bytes.Buffer
	if err := bundle.Write(&buf, bundle.Contents{Manifest: raw, Signature: sig, Files: files}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "payload.dshaudit.tar.zst")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, pubPath, m
}

// assertSafeOutput fails when a stream holds a byte or character a
// terminal acts on (other than the newlines that end our own lines), or
// when any line but the verifier's own starts with one of the given
// result prefixes.
func assertSafeOutput(t *testing.T, what, out string, results map[string]string) {
	t.Helper()
	if bad := termtext.Unsafe(out, true); bad != "" {
		t.Errorf("%s: unsafe %s reaches the terminal:\n%s", what, bad, out)
	}
	if strings.Contains(out, "\t") && results != nil {
		t.Errorf("%s: a tab reaches the terminal", what)
	}
	for prefix, want := range results {
		var got []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, prefix) {
				got = append(got, l)
			}
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s: lines starting with %q are %q, want only %q", what, prefix, got, want)
		}
	}
}

// TestVerifyPayloadsAreInert renders a validly signed bundle with
// terminal payloads in every free-text field through the real verify and
// inspect commands (issue 9, class 10): no raw control byte reaches
// stdout or stderr, the only RESULT and CLAIM lines are the verifier's,
// and --json keeps the raw values.
func TestVerifyPayloadsAreInert(t *testing.T) {
	path, pub, m := payloadBundle(t)
	claimPath := filepath.Join(t.TempDir(), "README.md")
	os.WriteFile(claimPath, []byte("# "+payload+"\n\nConforms to DSHIO/T 10—2026 (baseline DSH 0.2.2-rc.1, static + dynamic layer)\n"+
		"Tested: 2026-11-20"+payload+"\nPackage: x@1"+payload+"\nCondition deviation: "+payload+"\nCondition deviation: dsh version: "+payload+"\n\n"+
		"DSHIO certified "+payload+"\nT5 passed "+payload+"\n"), 0o644)

	code, out, errOut := runCLI(t, "verify", path, "--key", pub, "--claim", claimPath)
	if code != 1 && code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var status string
	for _, l := range strings.Split(out, "\n") {
		if s, ok := strings.CutPrefix(l, "RESULT: "); ok {
			status = s
		}
	}
	if !strings.Contains(out, `\x1b[2J`) || !strings.Contains(out, `\u202e`) || !strings.Contains(out, `\nRESULT: verified`) {
		t.Errorf("the payload is not shown escaped:\n%s", out)
	}
	// The signature and files are valid: the payload must not turn the
	// bundle into "tampered" (what the writer said is shown, escaped).
	if strings.HasPrefix(status, "tampered") || status == "signature invalid" || status == "" {
		t.Errorf("status %q", status)
	}
	assertSafeOutput(t, "verify stdout", out, map[string]string{"RESULT": "RESULT: " + status, "CLAIM": "CLAIM: claim not backed"})
	assertSafeOutput(t, "verify stderr", errOut, nil)
	if strings.Count(out, "\nfindings (") > 1 {
		t.Errorf("a second findings header:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if len([]rune(l)) > 3*termtext.DefaultMaxText {
			t.Errorf("an unbounded line of %d characters", len([]rune(l)))
		}
	}

	// --json keeps the raw values.
	_, jout, _ := runCLI(t, "verify", path, "--key", pub, "--json")
	var rep struct {
		Package    struct{ Name, Version string }
		Deviations []string
	}
	if err := json.Unmarshal([]byte(jout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Package.Name+"@"+rep.Package.Version != m.Subject.Name+"@1.0.0" || len(rep.Deviations) == 0 || !strings.Contains(rep.Deviations[0], payload) {
		t.Errorf("--json lost the raw values: %q %q", rep.Package, rep.Deviations)
	}

	// Many bundles: the summary table.
	dir := filepath.Dir(path)
	_, out, errOut = runCLI(t, "verify", dir, "--key", pub)
	assertSafeOutput(t, "verify DIR stdout", out, nil)
	assertSafeOutput(t, "verify DIR stderr", errOut, nil)

	// inspect: the listing, the manifest, evidence and files.
	for _, args := range [][]string{
		{"inspect", path},
		{"inspect", path, "--manifest"},
		{"inspect", path, "--stage", "1/T1", "--role", "stderr"},
		{"inspect", path, "--stage", "1/T1"},
		{"inspect", path, "--file", "static/README"},
		{"inspect", path, "--file", "static/package.json"},
		{"inspect", path, "--stage", "1/T9" + payload},
	} {
		code, out, errOut := runCLI(t, args...)
		if code != 0 && code != 2 {
			t.Errorf("%q: exit %d", args, code)
		}
		assertSafeOutput(t, strings.Join(args[2:], " ")+" stdout", out, nil)
		assertSafeOutput(t, strings.Join(args[2:], " ")+" stderr", errOut, nil)
		if len(args) == 2 && strings.Contains(out, "\nRESULT") {
			// The listing prints names, one per line: none starts a line.
			t.Errorf("%q: a line starts with RESULT:\n%s", args, out)
		}
	}
	// --raw writes the bytes as stored.
	_, out, _ = runCLI(t, "inspect", path, "--stage", "1/T1", "--role", "stderr", "--raw")
	if !strings.Contains(out, payload) {
		t.Errorf("--raw did not write the evidence as stored")
	}
}

// readPayloadBundle reads the payload bundle back as verify would.
func readPayloadBundle(t *testing.T) (*manifest.Manifest, map[string][]byte) {
	t.Helper()
	path, _, _ := payloadBundle(t)
	_, arc, m := vectortest.ReadBundle(t, path)
	return m, arc.Files
}

// TestRunSummaryPayloadsAreInert prints `dshaudit run`'s summary of the
// payload bundle, as run prints it after writing a bundle.
func TestRunSummaryPayloadsAreInert(t *testing.T) {
	m, files := readPayloadBundle(t)
	sum := runner.Summarize(&runner.Result{Manifest: m, Files: files, Warnings: []string{payload}},
		&runner.Written{Path: "x" + payload, SHA256: "sha256:00", Declaration: "Conforms to " + payload})
	var out bytes.Buffer
	st := termtext.Style{Width: 80, MaxText: termtext.DefaultMaxText}
	if err := printRunSummary(&out, st, sum); err != nil {
		t.Fatal(err)
	}
	assertSafeOutput(t, "run summary", out.String(), map[string]string{"Overall verdict": "Overall verdict: install_failed", "Usable": "Usable for certification: no"})
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "RESULT") || termtext.Width(l) > 3*termtext.DefaultMaxText {
			t.Errorf("run summary: line %q", l)
		}
	}
	if !strings.Contains(out.String(), `\x1b[2J`) {
		t.Errorf("run summary does not show the payload escaped:\n%s", out.String())
	}
}

// TestReplayPayloadsAreInert compares the payload bundle with a copy
// whose evidence and conditions differ, with the real compare.Compare, and
// prints the comparison as `dshaudit replay` does.
func TestReplayPayloadsAreInert(t *testing.T) {
	m, files := readPayloadBundle(t)
	m2 := *m
	m2.Conditions.Fixed = []manifest.Condition{{Name: m.Conditions.Fixed[0].Name, Value: "other" + payload}}
	files2 := map[string][]byte{}
	for k, v := range files {
		files2[k] = v
		if strings.HasPrefix(k, "repetitions/") {
			files2[k] = append([]byte(payload+"\n"), v...)
		}
	}
	c := compare.Compare(compare.Side{Manifest: m, Files: files}, compare.Side{Manifest: &m2, Files: files2})
	if len(c.Diff) == 0 || len(c.ChangedConditions) == 0 {
		t.Fatalf("the fixture makes no difference: %+v", c)
	}
	var out bytes.Buffer
	printReplay(&out, termtext.Style{Width: 80, MaxText: termtext.DefaultMaxText}, &compare.Result{
		Outcome: c.Outcome, Original: "o" + payload, Verified: true, Comparison: &c,
		Written: &runner.Written{Path: "n" + payload},
	})
	assertSafeOutput(t, "replay", out.String(), map[string]string{"RESULT": "RESULT: " + c.Outcome.Text() + " (first: " + termtext.Escape(c.FirstDifferent) + ")"})
}

// TestStaticPayloadsAreInert runs the real static command on a package
// whose package.json, patch and README carry the payload, and one clause
// cell far wider than the terminal (issue 12: the OBSERVED column was
// padded to ~400 characters).
func TestStaticPayloadsAreInert(t *testing.T) {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	long := strings.Repeat(">=0.1.0-rc.1 <0.1.0-rc.2 || ", 20) + ">=9"
	tgz := staticTgz(t, map[string]string{
		"package.json": `{"name":"payload-dsh-plugin","version":"1.0.0","description":` + q(payload) + `,"type":"module","main":"lib/index.js",` +
			`"files":["lib","cordis.patch.yml",` + q(payload) + `],"engines":{"dsh":` + q(long+payload) + `},` +
			`"dsh":{"bundle":{"patch":"./cordis.patch.yml"},"permissions":[` + q(payload) + `]}}`,
		"cordis.patch.yml": "- insert:\n    - id: " + q("p"+payload) + "\n      name: " + q("payload-dsh-plugin"+payload) + "\n",
		"lib/index.js":     "export const apply = () => {}\n",
		"README.md":        "# " + payload + "\n",
	})
	path := filepath.Join(t.TempDir(), "payload-dsh-plugin-1.0.0.tgz")
	if err := os.WriteFile(path, tgz, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, width := range []string{"60", "100", "160"} {
		t.Run(width, func(t *testing.T) {
			code, out, errOut := runStaticCLI(t, path, "--width", width)
			if code != 1 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			assertSafeOutput(t, "static stdout", out, map[string]string{"conforming_static": "conforming_static: false"})
			assertSafeOutput(t, "static stderr", errOut, nil)
			w, _ := strconv.Atoi(width)
			inTable := false
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "CLAUSE") {
					inTable = true
				}
				if inTable && l == "" {
					break
				}
				if inTable && termtext.Width(l) > w {
					t.Errorf("table line of %d columns > %d: %q", termtext.Width(l), w, l)
				}
			}
			if !inTable || !strings.Contains(out, "…") {
				t.Errorf("no clause table, or the long cell was not cut:\n%s", out)
			}
		})
	}
	// --json keeps the full cells (T0's own report quotes package
	// values with %q and bounds them: rules/static).
	_, out, _ := runStaticCLI(t, path, "--json")
	r := decodeStatic(t, out)
	var longest int
	for _, c := range r.Clauses {
		longest = max(longest, termtext.Width(c.Observed), termtext.Width(c.Message))
	}
	if longest <= 160 {
		t.Errorf("--json: longest cell %d columns, want the full text", longest)
	}
	// $COLUMNS is honoured when --width is not given.
	t.Setenv("COLUMNS", "70")
	_, out, _ = runStaticCLI(t, path)
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "5.2.2") && termtext.Width(l) > 70 {
			t.Errorf("COLUMNS=70 ignored: %q", l)
		}
	}
}
