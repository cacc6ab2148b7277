package replay_test

// End-to-end tests of replay: real dsh in the real sandbox image, real
// podman, real signatures, every new bundle verified with package verify.
// They need the image scripts/setup.sh builds and FAIL when it is missing.
// SPEC.md "Replay". The year-old case (a replay from an OCI archive into
// an engine store that never held the image) and the CLI exit codes are
// in ../cmd/dshaudit/cmd_replay_test.go.

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/random"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
	"github.com/dshaudit/dshaudit/internal/testutil/e2etest/sandbox"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/pkgsource"
	"github.com/dshaudit/dshaudit/replay"
	"github.com/dshaudit/dshaudit/replay/compare"
	"github.com/dshaudit/dshaudit/runner"
	"github.com/dshaudit/dshaudit/verify"
)

var tool = manifest.Tool{Name: "dshaudit", Version: "e2e"}

func hostCACert() string {
	const p = "/etc/ssl/certs/ca-certificates.crt"
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return ""
}

// recordingEngine remembers every call that touches an image or a
// container, and the name of every container it ran.
type recordingEngine struct {
	engine.Engine
	mu         sync.Mutex
	calls      []string
	containers []string
}

func (r *recordingEngine) record(call string, res *engine.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, call)
	if res != nil && res.Container != "" {
		r.containers = append(r.containers, res.Container)
	}
}

func (r *recordingEngine) EnsureImage(ctx context.Context, ref string, src engine.Source) (engine.Image, error) {
	r.record("EnsureImage "+ref+" from "+src.Kind.String(), nil)
	return r.Engine.EnsureImage(ctx, ref, src)
}

func (r *recordingEngine) Run(ctx context.Context, s engine.RunSpec) (*engine.Result, error) {
	res, err := r.Engine.Run(ctx, s)
	r.record("Run", res)
	return res, err
}

func (r *recordingEngine) Observe(ctx context.Context, s engine.RunSpec, w time.Duration) (*engine.Result, error) {
	res, err := r.Engine.Observe(ctx, s, w)
	r.record("Observe", res)
	return res, err
}

// ran reports the Run and Observe calls made.
func (r *recordingEngine) ran() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, c := range r.calls {
		if c == "Run" || c == "Observe" {
			out = append(out, c)
		}
	}
	return out
}

// fixtureVerdicts reads the dir → verdict table of testdata/plugins/README.md.
func fixtureVerdicts(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("../testdata/plugins/README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(strings.Trim(strings.TrimSpace(sc.Text()), "|"), "|")
		if len(cells) < 2 {
			continue
		}
		dir, verdict := strings.TrimSpace(cells[0]), strings.Trim(strings.TrimSpace(cells[1]), "`")
		if dir != "" && dir != "dir" && !strings.HasPrefix(dir, "---") {
			out[dir] = verdict
		}
	}
	if len(out) == 0 {
		t.Fatal("testdata/plugins/README.md: no dir | verdict table")
	}
	return out
}

// original is a real run written as a signed bundle.
type original struct {
	path     string
	spec     string // the package directory, given again as --package-file
	sha256   string
	manifest *manifest.Manifest
}

// originalsDir holds the originals shared by the tests (TestMain).
var originalsDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dshaudit-replay-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	originalsDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	originalsMu sync.Mutex
	originals   = map[string]*originalOnce{}
)

type originalOnce struct {
	once sync.Once
	o    *original
	err  error
}

// fixtureOriginal runs testdata/plugins/NAME once for the whole test
// binary (one repetition: recorded as a repeat count deviation, which the
// replay repeats) and returns its bundle.
func fixtureOriginal(t *testing.T, env *sandbox.Env, name string) *original {
	t.Helper()
	originalsMu.Lock()
	oo := originals[name]
	if oo == nil {
		oo = &originalOnce{}
		originals[name] = oo
	}
	originalsMu.Unlock()
	oo.once.Do(func() {
		spec, err := filepath.Abs(filepath.Join("..", "testdata", "plugins", name))
		if err != nil {
			oo.err = err
			return
		}
		oo.o, oo.err = runOriginal(t, env, name, spec)
	})
	if oo.err != nil {
		t.Fatalf("original run of %s: %v", name, oo.err)
	}
	return oo.o
}

func runOriginal(t *testing.T, env *sandbox.Env, name, spec string) (*original, error) {
	rec := &recordingEngine{Engine: env.Engine}
	tmp := t.TempDir()
	r := runner.Runner{Engine: rec, Resolve: runner.PkgsourceResolver(pkgsource.Options{}), TempDir: tmp}
	start := time.Now()
	res, err := r.Run(context.Background(), runner.Options{Spec: spec, Image: env.Image, Repeat: 1, T1WorkspaceRoot: true,
		CACert: hostCACert(), Tool: tool})
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	out := filepath.Join(originalsDir, name+manifest.BundleSuffix)
	w, err := runner.WriteBundle(context.Background(), out, res, env.Signer)
	if err != nil {
		return nil, fmt.Errorf("write bundle: %w", err)
	}
	t.Logf("original %s: %s in %.1fs (%s)", name, res.Manifest.Claimed.Verdict, time.Since(start).Seconds(), w.SHA256)
	e2etest.AssertNoContainers(t, rec.containers)
	raw, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	return &original{path: out, spec: spec, sha256: "sha256:" + hex.EncodeToString(sum[:]), manifest: res.Manifest}, nil
}

// replayOf replays o with a fresh recording engine.
func replayOf(t *testing.T, env *sandbox.Env, o *original, src engine.Source, out string) (*compare.Result, *recordingEngine, error) {
	t.Helper()
	rec := &recordingEngine{Engine: env.Engine}
	tmp := t.TempDir()
	r := runner.Runner{Engine: rec, Resolve: runner.PkgsourceResolver(pkgsource.Options{}), TempDir: tmp}
	start := time.Now()
	res, err := replay.Run(context.Background(), r, replay.Options{
		Original: o.path, Policy: attest.Policy{Key: env.Pub}, ImageSource: src,
		PackageFile: o.spec, Out: out, Signer: env.Signer, CACert: hostCACert(), Tool: tool,
	})
	outcome := "-"
	if res != nil {
		outcome = string(res.Outcome)
	}
	t.Logf("replay of %s: %s in %.1fs (err %v)", filepath.Base(o.path), outcome, time.Since(start).Seconds(), err)
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("replay left %d temporary directories", len(ents))
	}
	e2etest.AssertNoContainers(t, rec.containers)
	return res, rec, err
}

// readBundle reads and verifies the bundle at path.
func readBundle(t *testing.T, env *sandbox.Env, path string) (*manifest.Manifest, *verify.Report) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Verify(context.Background(), path, bytes.NewReader(raw), verify.Options{Policy: attest.Policy{Key: env.Pub}})
	if err != nil {
		t.Fatalf("verify %s: %v", path, err)
	}
	a, err := bundle.Read(bytes.NewReader(raw), bundle.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Decode(a.RawManifest)
	if err != nil {
		t.Fatal(err)
	}
	return m, rep
}

func condition(cs []manifest.Condition, name string) (string, bool) {
	for _, c := range cs {
		if c.Name == name {
			return c.Value, true
		}
	}
	return "", false
}

func logComparison(t *testing.T, c *compare.Comparison) {
	t.Helper()
	if c == nil {
		return
	}
	for _, r := range c.Rows {
		t.Logf("  repetition %d %s: %s %s → %s %s; %s", r.Repetition, r.Stage, r.OldStatus, r.OldVerdict, r.NewStatus, r.NewVerdict, strings.Join(r.Differences, "; "))
	}
	for _, d := range c.Diff {
		t.Logf("  %s", d)
	}
	t.Logf("  fingerprints equal %v, changed conditions %q", c.FingerprintsEqual, c.ChangedConditions)
}

// TestReplayE2EFixtures: replaying the bundle of each fixture plugin of
// the runner's tests (local subjects, given again with --package-file)
// gives REPRODUCED, and the new bundle verifies and names the original by
// the sha256 of its file. The unstable fixture, made to behave
// differently on the replay, is TestReplayCLIDifferent in ../cmd/dshaudit.
func TestReplayE2EFixtures(t *testing.T) {
	env := sandbox.Setup(t)
	verdicts := fixtureVerdicts(t)
	for _, name := range []string{"pass", "install-failed", "config-failed", "not-registered", "boot-failed"} {
		want, ok := verdicts[name]
		if !ok {
			t.Fatalf("testdata/plugins/README.md has no row for %s", name)
		}
		// One at a time: on 2 cores, parallel containers (--cpus 1 each)
		// can slow a boot enough to change a verdict, and a replay must
		// not differ for that reason (scripts/test.sh runs packages with
		// -p 1 for the same reason).
		t.Run(name, func(t *testing.T) {
			o := fixtureOriginal(t, env, name)
			if o.manifest.Claimed.Verdict != want {
				t.Fatalf("original verdict %q, README says %q", o.manifest.Claimed.Verdict, want)
			}
			out := filepath.Join(t.TempDir(), name+".replay"+manifest.BundleSuffix)
			res, rec, err := replayOf(t, env, o, engine.FromStore(), out)
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			if !res.Verified || res.Unsafe || res.OriginalSHA256 != o.sha256 {
				t.Errorf("result verified %v unsafe %v original %s, want verified, safe, %s", res.Verified, res.Unsafe, res.OriginalSHA256, o.sha256)
			}
			if res.Outcome != compare.Reproduced || res.Comparison == nil || res.Comparison.Outcome != compare.Reproduced {
				logComparison(t, res.Comparison)
				t.Fatalf("outcome %s, want %s", res.Outcome, compare.Reproduced)
			}
			c := res.Comparison
			if c.OldVerdict != want || c.NewVerdict != want || c.FirstDifferent != "" || len(c.Diff) != 0 {
				t.Errorf("comparison %s → %s, first different %q, diff %q", c.OldVerdict, c.NewVerdict, c.FirstDifferent, c.Diff)
			}
			if len(c.Rows) != 4 {
				t.Errorf("%d stage rows, want 4 (one repetition, T1–T4)", len(c.Rows))
			}
			for _, r := range c.Rows {
				if !r.Same || r.OldStatus != r.NewStatus || r.OldVerdict != r.NewVerdict {
					t.Errorf("row %+v", r)
				}
			}
			// The runner on the same host with the same engine: the
			// fingerprints are equal.
			if !c.FingerprintsEqual {
				t.Errorf("fingerprints differ; changed conditions %q", c.ChangedConditions)
			}
			for _, ch := range c.ChangedConditions {
				if strings.Contains(ch, compare.ConditionReplayOf) {
					t.Errorf("the replay's own marker is listed as a changed condition: %s", ch)
				}
			}
			if res.Written == nil || res.Written.Path != out {
				t.Fatalf("written %+v, want %s", res.Written, out)
			}
			if len(rec.ran()) == 0 {
				t.Error("the replay ran no container")
			}
			m, rep := readBundle(t, env, out)
			if !rep.OK() || rep.DerivedVerdict != want {
				t.Errorf("new bundle: verify %s, derived %s, findings %+v", rep.Status, rep.DerivedVerdict, rep.Findings)
			}
			if v, ok := condition(m.Conditions.Variable, compare.ConditionReplayOf); !ok || v != o.sha256 {
				t.Errorf("replay_of = %q (%v), want %s", v, ok, o.sha256)
			}
			if _, ok := condition(m.Conditions.Variable, compare.ConditionReplayOfUnverified); ok {
				t.Error("a verified original is recorded as unverified")
			}
			if m.Settings.Repeat != o.manifest.Settings.Repeat || m.Subject != o.manifest.Subject || m.Image != o.manifest.Image {
				t.Errorf("replay settings %+v subject %+v image %+v, original %+v %+v %+v",
					m.Settings, m.Subject, m.Image, o.manifest.Settings, o.manifest.Subject, o.manifest.Image)
			}
			var od, nd []string
			for _, d := range o.manifest.Deviations {
				od = append(od, d.What)
			}
			for _, d := range m.Deviations {
				nd = append(nd, d.What)
			}
			if !slices.Equal(od, nd) {
				t.Errorf("deviations %q, original %q", nd, od)
			}
		})
	}
}

// TestReplayE2EOtherDigest: the original is valid; the image offered
// (an OCI archive of another image) has another manifest digest. It is
// refused before anything runs: the replay could not run (COULD-NOT-RUN,
// never a plugin result), the error names the digest mismatch, no
// container ran and no bundle was written.
func TestReplayE2EOtherDigest(t *testing.T) {
	env := sandbox.Setup(t)
	o := fixtureOriginal(t, env, "pass")
	img, err := random.Image(1024, 1)
	if err != nil {
		t.Fatal(err)
	}
	other, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	lp, err := layout.Write(filepath.Join(dir, "layout"), empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := lp.AppendImage(img); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(dir, "other.oci.tar")
	tarDir(t, filepath.Join(dir, "layout"), archive)

	out := filepath.Join(t.TempDir(), "other.replay"+manifest.BundleSuffix)
	res, rec, err := replayOf(t, env, o, engine.FromOCIArchive(archive), out)
	if !errors.Is(err, engine.ErrDigestMismatch) || !errors.Is(err, replay.ErrCouldNotRun) {
		t.Fatalf("err %v, want a digest mismatch that stops the replay", err)
	}
	var dm *engine.DigestMismatchError
	if !errors.As(err, &dm) || dm.Want != o.manifest.Image.Digest || !strings.Contains(dm.Got, other.String()) {
		t.Errorf("mismatch %+v, want %s wanted and %s found", dm, o.manifest.Image.Digest, other)
	}
	if res == nil || res.Outcome != compare.CouldNotRun || res.Comparison != nil || res.Written != nil || !strings.Contains(res.Why, "digest") {
		t.Errorf("result %+v", res)
	}
	if ran := rec.ran(); len(ran) != 0 {
		t.Errorf("containers ran: %q", ran)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a bundle was written: %v", err)
	}
}

// TestReplayE2EEditedEvidence: one byte of one evidence file
// (repetition 1's T1 stdout) is changed and the bundle rewritten with
// everything else as it was. The original no longer verifies, so the
// replay is refused before anything runs: no image is looked at, no
// container runs, no bundle is written.
func TestReplayE2EEditedEvidence(t *testing.T) {
	env := sandbox.Setup(t)
	o := fixtureOriginal(t, env, "pass")
	raw, err := os.ReadFile(o.path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := bundle.Read(bytes.NewReader(raw), bundle.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	const stdout = "repetitions/1/T1/stdout"
	if p := o.manifest.Repetitions[0].Stages[0].Evidence["stdout"]; p != stdout {
		t.Fatalf("repetition 1 T1 stdout is %q, want %q", p, stdout)
	}
	edited := editEvidenceByte(t, raw, stdout)
	// Read as a bundle, the edit is exactly one byte of that one file.
	ea, err := bundle.Read(bytes.NewReader(edited), bundle.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	for p, b := range a.Files {
		diff := 0
		for i := range min(len(b), len(ea.Files[p])) {
			if b[i] != ea.Files[p][i] {
				diff++
			}
		}
		if want := map[bool]int{true: 1, false: 0}[p == stdout]; diff != want || len(b) != len(ea.Files[p]) {
			t.Fatalf("%s: %d bytes changed, want %d", p, diff, want)
		}
	}
	if !bytes.Equal(a.RawManifest, ea.RawManifest) || !bytes.Equal(a.RawSignature, ea.RawSignature) || len(a.Files) != len(ea.Files) {
		t.Fatal("the edit changed the manifest, the signature or the file list")
	}
	bad := &original{path: filepath.Join(t.TempDir(), "edited"+manifest.BundleSuffix), spec: o.spec, manifest: o.manifest}
	if err := os.WriteFile(bad.path, edited, 0o644); err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(t.TempDir(), "edited.replay"+manifest.BundleSuffix)
	res, rec, err := replayOf(t, env, bad, engine.FromStore(), out)
	if !errors.Is(err, replay.ErrNotVerified) || errors.Is(err, replay.ErrCouldNotRun) {
		t.Fatalf("err %v, want %v", err, replay.ErrNotVerified)
	}
	if res == nil || res.Verified || res.Outcome == compare.Reproduced || res.Outcome == compare.CouldNotRun || res.Written != nil || res.Comparison != nil {
		t.Errorf("result %+v", res)
	}
	rec.mu.Lock()
	calls := slices.Clone(rec.calls)
	rec.mu.Unlock()
	if len(calls) != 0 {
		t.Errorf("the engine was used before the refusal: %q", calls)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a bundle was written: %v", err)
	}
	// verify names the edited file.
	_, rep := readBundle(t, env, bad.path)
	named := false
	for _, f := range rep.Findings {
		named = named || f.File == stdout
	}
	if rep.OK() || !named {
		t.Errorf("verify of the edited bundle: %s, findings %+v; want a finding naming %s", rep.Status, rep.Findings, stdout)
	}
}

// tarDir tars the directory dir deterministically into file (an OCI
// archive is a tar of a layout).
func tarDir(t *testing.T, dir, file string) {
	t.Helper()
	var names []string
	if err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != dir {
			names = append(names, p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range names {
		rel, _ := filepath.Rel(dir, p)
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.IsDir() {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: filepath.ToSlash(rel) + "/", Mode: 0o755}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(b))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func editEvidenceByte(t *testing.T, raw []byte, path string) []byte {
	return e2etest.EditEvidenceByte(t, raw, path)
}

// TestReplayNormaliseStackFrames: two real dsh T4 outputs of the
// boot-failed fixture (shortened) whose async stack traces differ by a
// processTicksAndRejections frame normalise to the same bytes; a
// different error message still differs.
func TestReplayNormaliseStackFrames(t *testing.T) {
	const a = `Error: boot failed
    at async runProfile (file:///opt/dsh/lib/profile-boot.js:247:14)
    at async file:///opt/dsh/lib/bin.js:133:3 {
  [cause]: Error: apply throws on purpose
      at updateError (file:///opt/dsh/loader/index.js:299:9)
      at Entry._init (file:///opt/dsh/loader/index.js:519:10) {
    [cause]: Error: dshaudit-fixture-boot-failed: apply throws on purpose
        at updateError (file:///opt/dsh/loader/index.js:299:9)
        at async Entry.init (file:///opt/dsh/loader/index.js:495:4)
  }
}
`
	const b = `Error: boot failed
    at process.processTicksAndRejections (node:internal/process/task_queues:103:5)
    at async runProfile (file:///opt/dsh/lib/profile-boot.js:247:14)
    at async file:///opt/dsh/lib/bin.js:133:3 {
  [cause]: Error: apply throws on purpose
      at updateError (file:///opt/dsh/loader/index.js:299:9)
      at Entry._init (file:///opt/dsh/loader/index.js:519:10)
      at process.processTicksAndRejections (node:internal/process/task_queues:103:5) {
    [cause]: Error: dshaudit-fixture-boot-failed: apply throws on purpose
        at updateError (file:///opt/dsh/loader/index.js:299:9)
  }
}
`
	na, nb := compare.Normalise([]byte(a)), compare.Normalise([]byte(b))
	if !bytes.Equal(na, nb) {
		t.Errorf("stack traces differing in frames only still differ:\n%s\n---\n%s", na, nb)
	}
	if !bytes.Contains(na, []byte("[cause]: Error: dshaudit-fixture-boot-failed: apply throws on purpose")) || bytes.Contains(na, []byte("updateError")) {
		t.Errorf("normalised:\n%s", na)
	}
	c := strings.Replace(b, "apply throws on purpose\n  ", "apply throws differently\n  ", 1)
	if bytes.Equal(compare.Normalise([]byte(c)), nb) {
		t.Error("a different error message normalises away")
	}
	if !slices.Contains(compare.RuleNames(), "stack frames") {
		t.Errorf("rules %q", compare.RuleNames())
	}
}

// TestReplayNormalisePnpmNotice: pnpm's update notice, with its blank
// lines, printed before "Packages: +1" in one real T1 and after it in the
// next, normalises to the same bytes.
func TestReplayNormalisePnpmNotice(t *testing.T) {
	const box = "   ╭────────────╮\n   │  Update available! 9.15.9 → 12.21.0.  │\n   ╰────────────╯\n"
	const tail = "Progress: resolved 1, reused 0, downloaded 1, added 1, done\n\ndependencies:\n+ dshaudit-fixture-not-registered 1.0.0\n\nDone in 830ms using pnpm v9.15.9\n"
	a := "\n" + box + "\nProgress: resolved 0, reused 0, downloaded 1, added 0\nPackages: +1\n+\n" + tail
	b := "Progress: resolved 0, reused 0, downloaded 1, added 0\nPackages: +1\n+\n\n" + box + "\n" + strings.Replace(tail, "830ms", "797ms", 1)
	na, nb := compare.Normalise([]byte(a)), compare.Normalise([]byte(b))
	if !bytes.Equal(na, nb) {
		t.Errorf("differ:\n%s\n---\n%s", na, nb)
	}
	if want := "Packages: +1\n+\ndependencies:\n+ dshaudit-fixture-not-registered 1.0.0\nDone in <DURATION> using pnpm v9.15.9\n"; string(na) != want {
		t.Errorf("normalised %q, want %q", na, want)
	}
}

// TestReplayE2ERegistryPackage: a published package (the subject is in
// the registry npm is configured with, not in a local file): the replay
// fetches the exact recorded version again, checks its integrity against
// the recorded one, re-runs and reproduces the original. No
// --package-file is given.
func TestReplayE2ERegistryPackage(t *testing.T) {
	env := sandbox.Setup(t)
	const spec = "@deepseek-ai/dsh-base@0.1.0-rc.8"
	o, err := runOriginal(t, env, "registry-dsh-base", spec)
	if err != nil {
		t.Fatal(err)
	}
	if o.manifest.Subject.Source != runner.SourceRegistry || !strings.HasPrefix(o.manifest.Subject.Integrity, "sha512-") {
		t.Fatalf("subject %+v, want a registry subject with an integrity", o.manifest.Subject)
	}
	o.spec = "" // a registry subject needs no --package-file
	out := filepath.Join(t.TempDir(), "registry.replay"+manifest.BundleSuffix)
	res, _, err := replayOf(t, env, o, engine.FromStore(), out)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if res.Outcome != compare.Reproduced {
		logComparison(t, res.Comparison)
		t.Fatalf("outcome %s, want %s", res.Outcome, compare.Reproduced)
	}
	m, rep := readBundle(t, env, out)
	if !rep.OK() || rep.DerivedVerdict != o.manifest.Claimed.Verdict || m.Subject != o.manifest.Subject {
		t.Errorf("new bundle: verify %s, derived %s (original %s), subject %+v (original %+v)",
			rep.Status, rep.DerivedVerdict, o.manifest.Claimed.Verdict, m.Subject, o.manifest.Subject)
	}
	if v, _ := condition(m.Conditions.Variable, compare.ConditionReplayOf); v != o.sha256 {
		t.Errorf("replay_of = %q, want %s", v, o.sha256)
	}
}

// TestReplayNormaliseLifecycleOrder: pnpm's lifecycle lines of two
// dependencies, interleaved in two orders in two real T1 runs of
// @deepseek-ai/dsh-base, normalise to the same bytes; one package's own
// lines keep their order, and other lines stay where they were.
func TestReplayNormaliseLifecycleOrder(t *testing.T) {
	const head = "Packages: +266\n++++\n.../node_modules/protobufjs postinstall$ node scripts/postinstall\n.../node_modules/node-pty install$ node scripts/prebuild.js || node-gyp rebuild\n"
	const tail = ".../node_modules/node-pty install: Done\n.../node_modules/node-pty postinstall$ node scripts/post-install.js\n.../node_modules/node-pty postinstall: Done\ndependencies:\n+ @deepseek-ai/dsh-base 0.1.0-rc.8"
	a := head + ".../node_modules/node-pty install: \x1b[32m> Checking prebuilds...\x1b[0m\n.../node_modules/protobufjs postinstall: Done\n" + tail
	b := head + ".../node_modules/protobufjs postinstall: Done\n.../node_modules/node-pty install: \x1b[32m> Checking prebuilds...\x1b[0m\n" + tail
	na, nb := compare.Normalise([]byte(a)), compare.Normalise([]byte(b))
	if !bytes.Equal(na, nb) {
		t.Fatalf("differ:\n%s\n---\n%s", na, nb)
	}
	want := "Packages: +266\n++++\n" +
		".../node_modules/node-pty install$ node scripts/prebuild.js || node-gyp rebuild\n" +
		".../node_modules/node-pty install: \x1b[32m> Checking prebuilds...\x1b[0m\n" +
		".../node_modules/node-pty install: Done\n" +
		".../node_modules/node-pty postinstall$ node scripts/post-install.js\n" +
		".../node_modules/node-pty postinstall: Done\n" +
		".../node_modules/protobufjs postinstall$ node scripts/postinstall\n" +
		".../node_modules/protobufjs postinstall: Done\n" +
		"dependencies:\n+ @deepseek-ai/dsh-base 0.1.0-rc.8"
	if string(na) != want {
		t.Errorf("normalised\n%q\nwant\n%q", na, want)
	}
	// A line that differs is still a difference.
	c := strings.Replace(b, "protobufjs postinstall: Done", "protobufjs postinstall: failed", 1)
	if bytes.Equal(compare.Normalise([]byte(c)), nb) {
		t.Error("a changed lifecycle line normalises away")
	}
}

// TestReplayNormalisePeerTree: pnpm's unmet-peer report of two real T1
// runs of @deepseek-ai/dsh-base reaches the same packages by other paths
// from the root; normalised, both are the same list of "PACKAGE: issue"
// lines. A tree line starting with │ is not taken for the update notice.
func TestReplayNormalisePeerTree(t *testing.T) {
	const warn = "\u2009WARN\u2009 Issues with peer dependencies found\n.\n└─┬ @deepseek-ai/dsh-base 0.1.0-rc.8\n  └─┬ @deepseek-ai/dsh-session-telemetry-otel 0.1.0-rc.8\n"
	a := warn + "    ├─┬ @opentelemetry/otlp-exporter-base 0.220.0\n" +
		"    │ └─┬ @opentelemetry/core 2.9.0\n" +
		"    │   └── ✕ unmet peer @opentelemetry/api@\">=1.0.0 <1.10.0\": found 1.10.0\n" +
		"    └─┬ @opentelemetry/sdk-trace 2.9.0\n" +
		"      └── ✕ unmet peer @opentelemetry/api@\">=1.3.0 <1.10.0\": found 1.10.0\n" +
		"Done in 12.5s using pnpm v9.15.9\n"
	b := warn + "    ├─┬ @opentelemetry/sdk-trace 2.9.0\n" +
		"    │ └── ✕ unmet peer @opentelemetry/api@\">=1.3.0 <1.10.0\": found 1.10.0\n" +
		"    └─┬ @opentelemetry/exporter-logs-otlp-http 0.220.0\n" +
		"      └─┬ @opentelemetry/core 2.9.0\n" +
		"        └── ✕ unmet peer @opentelemetry/api@\">=1.0.0 <1.10.0\": found 1.10.0\n" +
		"Done in 11.9s using pnpm v9.15.9\n"
	na, nb := compare.Normalise([]byte(a)), compare.Normalise([]byte(b))
	if !bytes.Equal(na, nb) {
		t.Fatalf("differ:\n%s\n---\n%s", na, nb)
	}
	want := "\u2009WARN\u2009 Issues with peer dependencies found\n" +
		"@opentelemetry/core 2.9.0: ✕ unmet peer @opentelemetry/api@\">=1.0.0 <1.10.0\": found 1.10.0\n" +
		"@opentelemetry/sdk-trace 2.9.0: ✕ unmet peer @opentelemetry/api@\">=1.3.0 <1.10.0\": found 1.10.0\n" +
		"Done in <DURATION> using pnpm v9.15.9\n"
	if string(na) != want {
		t.Errorf("normalised\n%s\nwant\n%s", na, want)
	}
	c := strings.Replace(b, "found 1.10.0\n    └─┬", "found 1.11.0\n    └─┬", 1)
	if bytes.Equal(compare.Normalise([]byte(c)), nb) {
		t.Error("another unmet peer version normalises away")
	}
}
