package runner

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/internal/testutil/schematest"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/verify"
)

const testImage = "localhost/dsh-sandbox:1@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

var testPatch = []byte("- insert:\n    - id: fx\n      name: fx-plugin\n")

func testPackage() *Package {
	p := &Package{
		Name: "fx-plugin", Version: "1.0.0", Spec: "./fx", Source: SourceLocalDir,
		Metadata: []byte(`{"name":"fx-plugin","version":"1.0.0","type":"module","main":"lib/index.js","files":["lib","cordis.patch.yml"],"engines":{"dsh":">=0.1.0-rc.1"},"dsh":{"bundle":{"patch":"./cordis.patch.yml"}}}`),
		Patch:    testPatch,
	}
	p.Tarball = testTarball(p.Metadata)
	return p
}

// testTarball is an npm-pack-like tarball of testPackage with package.json
// meta: the bytes the bundle holds as the tested tarball, which verify
// reads as pacote does.
func testTarball(meta []byte) []byte {
	files := []struct {
		name string
		b    []byte
	}{{"package/package.json", meta}, {"package/cordis.patch.yml", testPatch}, {"package/lib/index.js", []byte("export default {}\n")}}
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for _, f := range files {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.name, Size: int64(len(f.b)), Mode: 0o644})
		tw.Write(f.b)
	}
	tw.Close()
	var gb bytes.Buffer
	gz := gzip.NewWriter(&gb)
	gz.Write(tb.Bytes())
	gz.Close()
	return gb.Bytes()
}

// testClock advances one second per reading.
func testClock() func() time.Time {
	t := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Second); return t }
}

func testRunner(t *testing.T, f *fakeEngine) (*Runner, string) {
	tmp := t.TempDir()
	return &Runner{
		Engine:  f,
		Resolve: func(ctx context.Context, spec string) (*Package, error) { return testPackage(), nil },
		Clock:   testClock(),
		TempDir: tmp,
		Kernel:  func() string { return "6.1.0-test" },
	}, tmp
}

func testOptions() Options {
	return Options{Spec: "./fx", Image: testImage, T1WorkspaceRoot: true, Tool: manifest.Tool{Name: "dshaudit", Version: "test"}}
}

func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("temporary directories left in %s: %v", dir, names)
	}
}

func deviationNames(m *manifest.Manifest) []string {
	var s []string
	for _, d := range m.Deviations {
		s = append(s, d.What)
	}
	return s
}

func TestRunPass(t *testing.T) {
	f := newFakeEngine()
	r, tmp := testRunner(t, f)
	res, err := r.Run(context.Background(), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	if m.Claimed.Verdict != "pass" || m.Claimed.Unstable {
		t.Errorf("verdict %q unstable %v, want pass", m.Claimed.Verdict, m.Claimed.Unstable)
	}
	if want := "dsh=0.1.0-rc.8;img=localhost/dsh-sandbox:1@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef;node=24.11.1;pnpm=9.15.9;mem=768m;cpu=1"; m.Fingerprint != want {
		t.Errorf("fingerprint\n got %s\nwant %s", m.Fingerprint, want)
	}
	if got, want := deviationNames(m), []string{assemble.DeviationDSHVersion, assemble.DeviationCommand(rules.T1)}; !slices.Equal(got, want) {
		t.Errorf("deviations %q, want %q", got, want)
	}
	if m.Claimed.UsableForCertification {
		t.Error("a deviated result is usable for certification")
	}
	if m.Subject.Spec != "/pkgs/fx-plugin-1.0.0.tgz" {
		t.Errorf("subject spec %q", m.Subject.Spec)
	}
	if m.Static.InstalledSize != 1000 {
		t.Errorf("installed size %d, want 1000 (one file, its hard link counted once)", m.Static.InstalledSize)
	}
	if got := f.stagesRun(); strings.Join(got, ",") != "T1,T2,T3,T4,T1,T2,T3,T4" {
		t.Errorf("stages run %v", got)
	}
	for _, c := range f.calls {
		st := f.stageOf(c.Argv)
		if st == "" {
			continue
		}
		if want := st == rules.T1; (c.Network.String() == "on") != want {
			t.Errorf("%s network %s", st, c.Network)
		}
		if c.Env["DSH_HOME"] != ProfileMount {
			t.Errorf("%s DSH_HOME %q", st, c.Env["DSH_HOME"])
		}
	}
	// Calls 0–2 are the version commands, 3 reads the entry declaration.
	if !slices.Equal(f.calls[4].Argv, []string{"dsh", "plugin", "--profile", "web", "add", "-w", "/pkgs/fx-plugin-1.0.0.tgz"}) {
		t.Errorf("T1 argv %q", f.calls[4].Argv)
	}
	if !slices.Equal(f.calls[7].Argv, []string{"dsh", "--profile", "web"}) {
		t.Errorf("T4 argv %q: the verbatim command is run", f.calls[7].Argv)
	}
	// Clause 5.1.6 is checked against the entry declaration read from the
	// image, recorded as evidence.
	if p := m.Static.Evidence[manifest.RoleEntryDeclaration]; p != "static/entry-options.d.ts" || len(res.Files[p]) == 0 {
		t.Errorf("entry declaration evidence %q (%d bytes)", p, len(res.Files[p]))
	}
	for _, c := range m.Static.Report.Clauses {
		if c.Clause == "5.1.6" && c.Status != "conforming" {
			t.Errorf("clause 5.1.6 %s: %s", c.Status, c.Message)
		}
	}
	// Two repetitions use two different fresh profiles.
	if f.calls[4].Mounts[0].Source == f.calls[8].Mounts[0].Source {
		t.Error("both repetitions used the same profile directory")
	}
	assertEmptyDir(t, tmp)
}

func TestRunStopsAtFirstFailure(t *testing.T) {
	f := newFakeEngine()
	f.fail[1] = map[rules.Stage]bool{rules.T3: true}
	f.fail[2] = map[rules.Stage]bool{rules.T3: true}
	r, _ := testRunner(t, f)
	res, err := r.Run(context.Background(), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.stagesRun(), ","); got != "T1,T2,T3,T1,T2,T3" {
		t.Errorf("stages run %s: T4 must not run after T3 failed (DSHIO/T 20 11.2)", got)
	}
	if v := res.Manifest.Claimed.Verdict; v != "config_failed" {
		t.Errorf("verdict %q, want config_failed", v)
	}
	st := res.Manifest.Repetitions[0].Stages[3]
	if st.Status != string(rules.StageNotExecuted) || st.ExitCode != nil {
		t.Errorf("T4 %+v, want not executed", st)
	}
}

func TestRunUnstable(t *testing.T) {
	f := newFakeEngine()
	f.fail[1] = map[rules.Stage]bool{rules.T1: true}
	r, _ := testRunner(t, f)
	res, err := r.Run(context.Background(), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	if m.Claimed.Verdict != "unstable" || !m.Claimed.Unstable {
		t.Errorf("verdict %q, want unstable", m.Claimed.Verdict)
	}
	if m.Repetitions[0].Verdict != "install_failed" || m.Repetitions[1].Verdict != "pass" {
		t.Errorf("repetition verdicts %q, %q", m.Repetitions[0].Verdict, m.Repetitions[1].Verdict)
	}
	// T1 of repetition 1 left no node_modules; repetition 2's is measured.
	if m.Static.InstalledSize != 1000 {
		t.Errorf("installed size %d", m.Static.InstalledSize)
	}
}

func TestRunDeviationsItemByItem(t *testing.T) {
	f := newFakeEngine()
	f.dsh = "0.2.2-rc.1"
	r, _ := testRunner(t, f)
	o := testOptions()
	o.T1WorkspaceRoot = false
	o.T4NoOpen = true
	o.Repeat = 1
	o.Window = 5 * time.Second
	res, err := r.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	got := deviationNames(res.Manifest)
	// The 5 s window also shortens T4's time limit (window + grace): both
	// are edition facts (SPEC.md "Edition facts").
	want := []string{assemble.DeviationCommand(rules.T4), assemble.DeviationRepeatCount, assemble.DeviationObservationWindow, assemble.DeviationTimeout(rules.T4)}
	if !slices.Equal(got, want) {
		t.Errorf("deviations %q, want %q", got, want)
	}
	for _, d := range res.Manifest.Deviations {
		if d.Standard == "" || d.ChangedTo == "" || d.Why == "" || d.Clause == "" {
			t.Errorf("deviation %+v is not complete (DSHIO/T 21 8.2 item 2)", d)
		}
	}
	if !slices.Equal(f.calls[4].Argv, []string{"dsh", "plugin", "--profile", "web", "add", "/pkgs/fx-plugin-1.0.0.tgz"}) {
		t.Errorf("T1 argv %q: -w only when asked", f.calls[4].Argv)
	}
}

func TestRunNoDeviationsAtBaseline(t *testing.T) {
	f := newFakeEngine()
	f.dsh = "0.2.2-rc.1"
	r, _ := testRunner(t, f)
	o := testOptions()
	o.T1WorkspaceRoot = false
	res, err := r.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	if len(m.Deviations) != 0 || !m.Claimed.UsableForCertification {
		t.Errorf("deviations %v usable %v: a run at the baseline with the standard commands deviates nowhere", deviationNames(m), m.Claimed.UsableForCertification)
	}
}

func TestRunRefusesUnpinnedImage(t *testing.T) {
	r, _ := testRunner(t, newFakeEngine())
	o := testOptions()
	o.Image = "localhost/dsh-sandbox:1"
	_, err := r.Run(context.Background(), o)
	if !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("err %v, want ErrOptions about the digest", err)
	}
}

func TestRunUnresolvable(t *testing.T) {
	f := newFakeEngine()
	r, _ := testRunner(t, f)
	r.Resolve = func(ctx context.Context, spec string) (*Package, error) {
		return nil, errors.Join(ErrUnresolvable, errors.New("package not found"))
	}
	_, err := r.Run(context.Background(), testOptions())
	if !errors.Is(err, ErrUnresolvable) {
		t.Fatalf("err %v, want ErrUnresolvable", err)
	}
	if len(f.calls) != 0 {
		t.Errorf("%d containers run for an unresolvable package", len(f.calls))
	}
}

func TestRunInterrupted(t *testing.T) {
	f := newFakeEngine()
	f.block = true
	f.started = make(chan struct{})
	r, tmp := testRunner(t, f)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-f.started; cancel() }()
	res, err := r.Run(ctx, testOptions())
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("res %v err %v, want context.Canceled", res, err)
	}
	assertEmptyDir(t, tmp)
}

func TestWriteBundleVerifies(t *testing.T) {
	f := newFakeEngine()
	f.fail[1] = map[rules.Stage]bool{rules.T4: true}
	f.fail[2] = map[rules.Stage]bool{rules.T4: true}
	r, _ := testRunner(t, f)
	res, err := r.Run(context.Background(), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	priv, pub, err := attest.GenerateKey(attest.Ed25519)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := attest.ParseSigner(priv)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := attest.ParsePublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), DefaultOutName("@fx/x", "1.0.0"))
	w, err := WriteBundle(context.Background(), out, res, signer)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(out) != "fx-x-1.0.0.dshaudit.tar.zst" {
		t.Errorf("default name %q", filepath.Base(out))
	}
	if !strings.Contains(w.Declaration, "Evidence bundle: "+w.SHA256) || !strings.Contains(w.Declaration, "static layer only") {
		t.Errorf("declaration:\n%s", w.Declaration)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Verify(context.Background(), out, bytes.NewReader(raw), verify.Options{Policy: attest.Policy{Key: pk}})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.DerivedVerdict != "boot_failed" || rep.ClaimedVerdict != "boot_failed" {
		t.Errorf("verify: status %s claimed %s derived %s findings %+v", rep.Status, rep.ClaimedVerdict, rep.DerivedVerdict, rep.Findings)
	}

	// A cancelled write leaves nothing behind.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out2 := filepath.Join(t.TempDir(), "x.dshaudit.tar.zst")
	if _, err := WriteBundle(ctx, out2, res, signer); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled write: %v", err)
	}
	assertEmptyDir(t, filepath.Dir(out2))

	// The --json object matches schema/run-result.schema.json.
	js, err := json.MarshalIndent(Summarize(res, w), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	schematest.Validate(t, "run-result", js)

	// Its text for a person is cmd/dshaudit's (TestRunSummaryText).
}

func TestProfileReadsStayInside(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte(`{"dependencies":{"x":"1"}}`), 0o600)
	web := filepath.Join(dir, "profiles", "web")
	os.MkdirAll(filepath.Join(web, "node_modules"), 0o755)
	os.Symlink(outside, filepath.Join(web, "package.json"))
	os.Symlink(filepath.Dir(outside), filepath.Join(web, "node_modules", "escape"))
	b, err := readProfilePackageJSON(dir)
	if err != nil || len(b) != 0 {
		t.Errorf("package.json symlinked outside the profile read as %q, %v; want empty", b, err)
	}
	n, err := installedSize(dir)
	if err != nil || n != 0 {
		t.Errorf("installed size %d, %v: a symlink out of the profile must not be followed", n, err)
	}
	if n, _ := installedSize(t.TempDir()); n != -1 {
		t.Errorf("no node_modules: size %d, want -1", n)
	}
}

func TestTarballFileName(t *testing.T) {
	for in, want := range map[string]string{"a": "a-1.0.0.tgz", "@s/b": "s-b-1.0.0.tgz"} {
		if got, err := TarballFileName(in, "1.0.0"); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", in, got, err, want)
		}
	}
	if _, err := TarballFileName("../x", "1.0.0"); err == nil {
		t.Error("a name with .. gives a tarball name")
	}
}

// TestProfileConditionNamesMount: the profile condition the runner records
// is the edition's own wording (assemble.Edition2026.Profile), which names
// the DSH_HOME the runner mounts the profile at.
func TestProfileConditionNamesMount(t *testing.T) {
	if p := assemble.Edition2026.Profile[0]; !strings.Contains(p, "DSH_HOME="+ProfileMount+",") {
		t.Errorf("the edition's profile %q does not name DSH_HOME=%s", p, ProfileMount)
	}
}
