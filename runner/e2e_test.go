package runner

// End-to-end tests: real dsh in the real sandbox image, real podman, real
// signatures, every bundle verified with package verify. They need the
// image scripts/setup.sh builds and FAIL when it is missing. DESIGN.md
// "Running a test".

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
	"github.com/dshaudit/dshaudit/internal/testutil/e2etest/sandbox"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/pkgsource"
	"github.com/dshaudit/dshaudit/verify"
)

// recordingEngine remembers the name of every container it ran.
type recordingEngine struct {
	engine.Engine
	mu    sync.Mutex
	names []string
}

func (r *recordingEngine) note(res *engine.Result) {
	if res != nil && res.Container != "" {
		r.mu.Lock()
		r.names = append(r.names, res.Container)
		r.mu.Unlock()
	}
}

func (r *recordingEngine) Run(ctx context.Context, s engine.RunSpec) (*engine.Result, error) {
	res, err := r.Engine.Run(ctx, s)
	r.note(res)
	return res, err
}

func (r *recordingEngine) Observe(ctx context.Context, s engine.RunSpec, w time.Duration) (*engine.Result, error) {
	res, err := r.Engine.Observe(ctx, s, w)
	r.note(res)
	return res, err
}

// e2eCase is one real run and what it must reach.
type e2eCase struct {
	name    string
	spec    string // a local directory
	verdict string // expected overall verdict
	// repVerdicts, when set, are the expected verdicts per repetition.
	repVerdicts     []string
	repeat          int
	workspaceRoot   bool
	wantDeviations  []string
	containerPrefix string
}

// runAndVerify runs c for real, writes the bundle, verifies it with
// package verify and checks verify re-derives what the run claimed.
func runAndVerify(t *testing.T, env *sandbox.Env, c e2eCase) (*Result, *verify.Report) {
	t.Helper()
	rec := &recordingEngine{Engine: env.Engine}
	tmp := t.TempDir()
	r := &Runner{Engine: rec, Resolve: PkgsourceResolver(pkgsource.Options{}), TempDir: tmp,
		Progress: func(e Event) {
			if e.Phase == PhaseStage && e.Done {
				t.Logf("%s: repetition %d %s %s %s (%.1fs) %s", c.name, e.Repetition, e.Stage, e.Status, e.Verdict, e.Elapsed.Seconds(), e.Message)
			}
		}}
	start := time.Now()
	res, err := r.Run(context.Background(), Options{
		Spec: c.spec, Image: env.Image, Repeat: c.repeat, T1WorkspaceRoot: c.workspaceRoot,
		CACert: hostCACert(), Tool: manifest.Tool{Name: "dshaudit", Version: "e2e"},
	})
	if err != nil {
		t.Fatalf("%s: run: %v", c.name, err)
	}
	out := filepath.Join(t.TempDir(), DefaultOutName(res.Manifest.Subject.Name, res.Manifest.Subject.Version))
	w, err := WriteBundle(context.Background(), out, res, env.Signer)
	if err != nil {
		t.Fatalf("%s: write bundle: %v", c.name, err)
	}
	t.Logf("%s: %s in %.1fs, bundle %s (%d bytes)", c.name, res.Manifest.Claimed.Verdict, time.Since(start).Seconds(), w.SHA256, w.Size)
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("%s: %d temporary directories left", c.name, len(ents))
	}
	assertRanAndRemoved(t, rec.names)

	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The verifier's mutation harness mutates real bundles too
	// (verify.TestMutations -mutate.dir): keep a copy where it is asked.
	if dir := os.Getenv("DSHAUDIT_E2E_BUNDLES"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, c.name+"-"+filepath.Base(out)), raw, 0o644); err != nil {
			t.Errorf("%s: keep the bundle for the mutation harness: %v", c.name, err)
		}
	}
	rep, err := verify.Verify(context.Background(), out, bytes.NewReader(raw), verify.Options{Policy: attest.Policy{Key: env.Pub}})
	if err != nil {
		t.Fatalf("%s: verify: %v", c.name, err)
	}
	if !rep.OK() {
		t.Errorf("%s: verify status %s, findings %+v", c.name, rep.Status, rep.Findings)
	}
	m := res.Manifest
	if rep.ClaimedVerdict != m.Claimed.Verdict || rep.DerivedVerdict != m.Claimed.Verdict {
		t.Errorf("%s: run claimed %q, verify read %q and re-derived %q", c.name, m.Claimed.Verdict, rep.ClaimedVerdict, rep.DerivedVerdict)
	}
	for i, rv := range rep.Repetitions {
		for _, sv := range rv.Stages {
			if sv.ClaimedStatus != sv.DerivedStatus || sv.ClaimedVerdict != sv.DerivedVerdict {
				t.Errorf("%s: repetition %d %s: claimed %s/%s, re-derived %s/%s", c.name, i+1, sv.Stage, sv.ClaimedStatus, sv.ClaimedVerdict, sv.DerivedStatus, sv.DerivedVerdict)
			}
		}
	}
	if m.Claimed.Verdict != c.verdict {
		for _, rp := range m.Repetitions {
			for _, st := range rp.Stages {
				t.Logf("%s: repetition %d %s %s %s exit=%v first_error=%q", c.name, rp.Index, st.Stage, st.Status, st.Verdict, derefInt(st.ExitCode), st.FirstError)
			}
		}
		t.Errorf("%s: verdict %q, want %q", c.name, m.Claimed.Verdict, c.verdict)
	}
	var got []string
	for _, rp := range m.Repetitions {
		got = append(got, rp.Verdict)
	}
	if c.repVerdicts != nil && strings.Join(got, ",") != strings.Join(c.repVerdicts, ",") {
		t.Errorf("%s: repetition verdicts %q, want %q", c.name, got, c.repVerdicts)
	}
	var devs []string
	for _, d := range m.Deviations {
		devs = append(devs, d.What)
	}
	if strings.Join(devs, ",") != strings.Join(c.wantDeviations, ",") {
		t.Errorf("%s: deviations %q, want %q", c.name, devs, c.wantDeviations)
	}
	if m.Claimed.UsableForCertification != (len(devs) == 0 && c.verdict == "pass") {
		t.Errorf("%s: usable for certification %v", c.name, m.Claimed.UsableForCertification)
	}
	return res, rep
}

func derefInt(p *int) any {
	if p == nil {
		return "-"
	}
	return *p
}

func hostCACert() string {
	const p = "/etc/ssl/certs/ca-certificates.crt"
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return ""
}

// verdictTable reads "| key | … | verdict | …" rows of a markdown table
// whose header names the key column and the verdict column.
func verdictTable(t *testing.T, path, keyCol, verdictCol string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string][]string{}
	var header []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "|") {
			header = nil
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.Trim(strings.TrimSpace(cells[i]), "`")
		}
		if header == nil {
			header = cells
			continue
		}
		if strings.HasPrefix(cells[0], "---") {
			continue
		}
		k, v := -1, -1
		for i, h := range header {
			if h == keyCol {
				k = i
			}
			if h == verdictCol {
				v = i
			}
		}
		if k >= 0 && v >= 0 && v < len(cells) {
			// row[0] is the verdict, then every cell.
			rows[cells[k]] = append([]string{cells[v]}, cells...)
		}
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no table with columns %q and %q", path, keyCol, verdictCol)
	}
	return rows
}

// TestE2EFixtures runs the fixture plugins of testdata/plugins, each to
// the verdict its README row names, with the standard two repetitions.
func TestE2EFixtures(t *testing.T) {
	env := sandbox.Setup(t)
	table := verdictTable(t, "../testdata/plugins/README.md", "dir", "verdict")
	for _, dir := range []string{"pass", "install-failed", "config-failed", "not-registered", "boot-failed", "unstable"} {
		row, ok := table[dir]
		if !ok {
			t.Fatalf("testdata/plugins/README.md has no row for %s", dir)
		}
		c := e2eCase{name: dir, spec: filepath.Join("..", "testdata", "plugins", dir), verdict: row[0], repeat: 2,
			workspaceRoot: true, wantDeviations: []string{"dsh version", "T1 command"}}
		t.Run(dir, func(t *testing.T) {
			t.Parallel()
			if dir == "unstable" {
				c.spec = unstableFixture(t)
				c.repVerdicts = []string{"install_failed", "pass"}
			}
			abs, err := filepath.Abs(c.spec)
			if err != nil {
				t.Fatal(err)
			}
			c.spec = abs
			runAndVerify(t, env, c)
		})
	}
}

// unstableFixture copies testdata/plugins/unstable to a temporary
// directory with the URL of a counter that answers "fail" to the first
// request and "ok" to every later one.
func unstableFixture(t *testing.T) string {
	t.Helper()
	var n atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			fmt.Fprint(w, "fail")
			return
		}
		fmt.Fprint(w, "ok")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() {
		srv.Close()
		if n.Load() != 2 {
			t.Errorf("the counter was asked %d times, want 2 (once per T1)", n.Load())
		}
	})
	return e2etest.CounterFixture(t, filepath.Join("..", "testdata", "plugins", "unstable"), ln.Addr().String())
}

// TestE2ESharedEvidence runs the plugins of testdata/dsh-evidence (the
// same as ../shared/dsh-evidence) for real and checks each reaches the
// verdict its README lists. One repetition each, recorded as a repeat
// count deviation: these runs check verdicts, the fixtures above check
// the two-repetition sequence.
func TestE2ESharedEvidence(t *testing.T) {
	env := sandbox.Setup(t)
	table := verdictTable(t, "../testdata/dsh-evidence/README.md", "case", "expected verdict")
	cases := []string{"hello", "noflag", "throws", "badyaml", "noinsert", "hang", "exits"}
	for _, name := range cases {
		row, ok := table[name]
		if !ok {
			t.Fatalf("dsh-evidence README has no row for %s", name)
		}
		c := e2eCase{name: name, verdict: row[0], repeat: 1, workspaceRoot: true,
			wantDeviations: []string{"dsh version", "T1 command", "repeat count"}}
		plugin := name
		// "hello, T1 without `-w`": the plugin is hello, run without -w.
		if desc := strings.ReplaceAll(row[2], "`", ""); strings.Contains(desc, "without -w") {
			plugin = strings.TrimSpace(strings.Split(desc, ",")[0])
			c.workspaceRoot = false
			c.wantDeviations = []string{"dsh version", "repeat count"}
		}
		abs, err := filepath.Abs(filepath.Join("..", "testdata", "dsh-evidence", "plugins", plugin))
		if err != nil {
			t.Fatal(err)
		}
		c.spec = abs
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, rep := runAndVerify(t, env, c)
			if name == "noflag" && (len(rep.Repetitions) == 0 || !strings.Contains(rep.Repetitions[0].Stages[0].FirstError, "ERR_PNPM_ADDING_TO_ROOT")) {
				t.Errorf("noflag: first_error %+v, want the ERR_PNPM_ADDING_TO_ROOT line", rep.Repetitions)
			}
		})
	}
}

// TestE2EInterrupt cancels a run in the middle of T1 and checks that it
// leaves no bundle, no temporary file next to it, no temporary directory
// and no container.
func TestE2EInterrupt(t *testing.T) {
	env := sandbox.Setup(t)
	rec := &recordingEngine{Engine: env.Engine}
	tmp := t.TempDir()
	outDir := t.TempDir()
	out := filepath.Join(outDir, "interrupted"+manifest.BundleSuffix)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &Runner{Engine: rec, Resolve: PkgsourceResolver(pkgsource.Options{}), TempDir: tmp,
		Progress: func(e Event) {
			if e.Phase == PhaseStage && e.Stage == "T1" && !e.Done {
				time.AfterFunc(2*time.Second, cancel) // mid-T1: the container is up
			}
		}}
	spec, _ := filepath.Abs("../testdata/plugins/pass")
	start := time.Now()
	res, err := r.Run(ctx, Options{Spec: spec, Image: env.Image, T1WorkspaceRoot: true, CACert: hostCACert(),
		Tool: manifest.Tool{Name: "dshaudit", Version: "e2e"}})
	if err == nil {
		// Too late to interrupt the run: interrupt the write instead.
		_, err = WriteBundle(ctx, out, res, env.Signer)
	}
	if err == nil || ctx.Err() == nil {
		t.Fatalf("run not interrupted: %v", err)
	}
	t.Logf("interrupted after %.1fs: %v", time.Since(start).Seconds(), err)
	if ents, _ := os.ReadDir(outDir); len(ents) != 0 {
		t.Errorf("files left next to --out: %v", ents)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("temporary directories left: %v", ents)
	}
	assertRanAndRemoved(t, rec.names)
	// Every container this test's runs created had the engine's prefix.
	out2, _ := exec.Command(e2etest.EngineName(), "ps", "-a", "--filter", "name=^"+engine.ContainerPrefix, "--format", "{{json .Names}}").Output()
	var left []string
	for _, l := range strings.Split(strings.TrimSpace(string(out2)), "\n") {
		var ns []string
		var one string
		if json.Unmarshal([]byte(l), &one) == nil { // docker: one name as a string
			ns = []string{one}
		}
		if json.Unmarshal([]byte(l), &ns) == nil || one != "" {
			for _, n := range ns {
				for _, mine := range rec.names {
					if n == mine {
						left = append(left, n)
					}
				}
			}
		}
	}
	if len(left) > 0 {
		t.Errorf("containers left: %v", left)
	}
}

// TestE2ERegistryPackage runs a published package from the registry npm
// is configured with: T0 fetches the registry's metadata and T1 installs
// NAME@VERSION, the exact version T0 resolved, from the same registry. The
// verdict is whatever dsh gives; the test checks the path and that verify
// re-derives the same verdicts.
func TestE2ERegistryPackage(t *testing.T) {
	env := sandbox.Setup(t)
	const spec = "@deepseek-ai/dsh-base@0.1.0-rc.8"
	rec := &recordingEngine{Engine: env.Engine}
	r := &Runner{Engine: rec, Resolve: PkgsourceResolver(pkgsource.Options{}), TempDir: t.TempDir()}
	res, err := r.Run(context.Background(), Options{Spec: spec, Image: env.Image, Repeat: 1, T1WorkspaceRoot: true,
		CACert: hostCACert(), Tool: manifest.Tool{Name: "dshaudit", Version: "e2e"}})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	if m.Subject.Source != SourceRegistry || m.Subject.Spec != spec || !strings.HasPrefix(m.Subject.Integrity, "sha512-") {
		t.Errorf("subject %+v", m.Subject)
	}
	t1 := m.Repetitions[0].Stages[0]
	if strings.Join(t1.Argv, " ") != "dsh plugin --profile web add -w "+spec || t1.Network != "on" {
		t.Errorf("T1 argv %q network %q", t1.Argv, t1.Network)
	}
	t.Logf("%s: %s, installed size %d", spec, m.Claimed.Verdict, m.Static.InstalledSize)
	out := filepath.Join(t.TempDir(), "r"+manifest.BundleSuffix)
	w, err := WriteBundle(context.Background(), out, res, env.Signer)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(w.Path)
	rep, err := verify.Verify(context.Background(), out, bytes.NewReader(raw), verify.Options{Policy: attest.Policy{Key: env.Pub}})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.DerivedVerdict != m.Claimed.Verdict {
		t.Errorf("verify: %s, claimed %s derived %s, findings %+v", rep.Status, m.Claimed.Verdict, rep.DerivedVerdict, rep.Findings)
	}
	assertRanAndRemoved(t, rec.names)
}

// assertRanAndRemoved checks that containers ran and none was left.
func assertRanAndRemoved(t *testing.T, names []string) {
	t.Helper()
	if len(names) == 0 {
		t.Error("no container name was recorded")
	}
	e2etest.AssertNoContainers(t, names)
}
