package faulttest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/runner"
)

// fault is what the registry does to one kind of request.
type fault string

const (
	fine        fault = ""
	status503   fault = "503"
	reset       fault = "reset"
	stallMidway fault = "stall"
)

// registry is an npm registry on loopback serving one package, the pass
// fixture, that fails on demand: for dshaudit's own requests (T0) and
// for pnpm's (T1) apart, for the metadata and the tarball apart.
type registry struct {
	url                string
	name, ver          string
	packument, tarball []byte
	mu                 sync.Mutex
	faults             map[string]fault // "t0 metadata", "t1 tarball", …
	seen               []string
	stop               chan struct{}
}

func newRegistry(t *testing.T) *registry {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &registry{url: "http://" + ln.Addr().String() + "/", name: "dshaudit-fixture-pass", ver: "1.0.0",
		faults: map[string]fault{}, stop: make(chan struct{})}
	r.tarball = packFixture(t, fixture("pass"))
	sum512 := sha512.Sum512(r.tarball)
	sum1 := sha1.Sum(r.tarball)
	var pj map[string]any
	raw, err := os.ReadFile(filepath.Join(fixture("pass"), "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &pj); err != nil {
		t.Fatal(err)
	}
	pj["dist"] = map[string]any{
		"tarball":   r.url + r.name + "/-/" + r.name + "-" + r.ver + ".tgz",
		"integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum512[:]),
		"shasum":    hex.EncodeToString(sum1[:]),
	}
	r.packument, _ = json.Marshal(map[string]any{
		"name": r.name, "dist-tags": map[string]string{"latest": r.ver},
		"versions": map[string]any{r.ver: pj},
		"time":     map[string]string{"created": "2026-01-01T00:00:00.000Z", "modified": "2026-01-01T00:00:00.000Z", r.ver: "2026-01-01T00:00:00.000Z"},
	})
	srv := &http.Server{Handler: r}
	go srv.Serve(ln)
	t.Cleanup(func() { close(r.stop); srv.Close() })
	return r
}

func (r *registry) set(kind string, f fault) {
	r.mu.Lock()
	r.faults[kind] = f
	r.mu.Unlock()
}

func (r *registry) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

func (r *registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	who := "t0"
	if strings.Contains(req.UserAgent(), "pnpm/") {
		who = "t1"
	}
	what, body := "metadata", r.packument
	switch req.URL.Path {
	case "/" + r.name:
	case "/" + r.name + "/-/" + r.name + "-" + r.ver + ".tgz":
		what, body = "tarball", r.tarball
	default:
		http.NotFound(w, req)
		return
	}
	kind := who + " " + what
	r.mu.Lock()
	f := r.faults[kind]
	r.seen = append(r.seen, kind+" "+string(f))
	r.mu.Unlock()
	switch f {
	case status503:
		http.Error(w, "registry overloaded", http.StatusServiceUnavailable)
	case reset:
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.(*net.TCPConn).SetLinger(0) // RST, not FIN
			conn.Close()
		}
	case stallMidway:
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		select { // half the body, then nothing until the client gives up
		case <-req.Context().Done():
		case <-r.stop:
		}
	default:
		w.Write(body)
	}
}

// packFixture is `npm pack` of a fixture directory without npm: its
// files under package/, gzipped.
func packFixture(t *testing.T, dir string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = tw.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// TestFaultRegistryT0 makes the registry fail T0's requests: a 503, a
// reset connection and a tarball that stalls half-way each stop T0 with
// exit 3 naming the cause, within the request time limit; no bundle, no
// container (T0 runs before any).
func TestFaultRegistryT0(t *testing.T) {
	s := setup(t)
	reg := newRegistry(t)
	spec := reg.name + "@" + reg.ver
	// The registry serves the package: T0 passes.
	if code, out, errs := s.run(t, "static", spec, "--registry", reg.url, "--no-cdn", "--timeout", "3s"); code != 0 {
		t.Fatalf("static against the healthy registry: exit %d\n%s%s", code, out, errs)
	}
	for _, c := range []struct {
		kind string
		f    fault
		want string
	}{
		{"t0 metadata", status503, "HTTP 503"},
		{"t0 metadata", reset, "connection reset"},
		{"t0 tarball", reset, "connection reset"},
		{"t0 tarball", stallMidway, "3s"},
		{"t0 metadata", stallMidway, "3s"},
	} {
		t.Run(strings.ReplaceAll(c.kind, " ", "-")+"-"+string(c.f), func(t *testing.T) {
			reg.set("t0 metadata", fine)
			reg.set("t0 tarball", fine)
			reg.set(c.kind, c.f)
			start := time.Now()
			code, out, errs := s.run(t, "static", spec, "--registry", reg.url, "--no-cdn", "--timeout", "3s")
			took := time.Since(start)
			lines := strings.Split(strings.TrimSpace(errs), "\n")
			t.Logf("%s %s: exit %d after %.1fs: %s", c.kind, c.f, code, took.Seconds(), strings.TrimSpace(errs))
			if code != 3 || out != "" || len(lines) != 1 || !strings.Contains(errs, c.want) || !strings.Contains(errs, "registry") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 3, one line naming the registry and %q", code, out, errs, c.want)
			}
			if took > 20*time.Second {
				t.Errorf("took %v: a stall must end at the 3s request limit", took)
			}
		})
	}
	// The same through run: the fault stops T0 before any container.
	reg.set("t0 tarball", fine)
	reg.set("t0 metadata", status503)
	out := t.TempDir()
	p := s.start(t, "run", spec, "--registry", reg.url, "--image", s.image, "--signing-key", s.key, "--out", filepath.Join(out, "b"+manifest.BundleSuffix))
	code := p.wait(t, 2*time.Minute)
	if errs := p.errorLines(); code != 3 || len(errs) != 1 || !strings.Contains(errs[0], "HTTP 503") {
		t.Errorf("run, metadata 503: exit %d, stderr %q; want 3 and one line naming HTTP 503", code, errs)
	}
	if got := dirEntries(t, out); len(got) != 0 {
		t.Errorf("beside --out: %v", got)
	}
	if c := containersOf(t, p.pid()); len(c) != 0 {
		t.Errorf("containers left: %v", c)
	}
}

// TestFaultRegistryT1 lets T0 through and stalls pnpm's tarball download
// in T1 half-way: T1 ends at its time limit, recorded as what the run
// observed (install_failed, timed out), with the registry T1 used in the
// bundle's conditions; the bundle is written whole and verifies.
func TestFaultRegistryT1(t *testing.T) {
	s := setup(t)
	reg := newRegistry(t)
	reg.set("t1 tarball", stallMidway)
	spec := reg.name + "@" + reg.ver
	outDir := t.TempDir()
	out := filepath.Join(outDir, "b"+manifest.BundleSuffix)
	start := time.Now()
	code, stdout, stderr := s.run(t, "run", spec, "--registry", reg.url, "--image", s.image, "--signing-key", s.key,
		"--t1-workspace-root", "--repeat", "1", "--timeout-t1", "20s", "--out", out, "--json")
	t.Logf("exit %d after %.1fs; registry saw %q", code, time.Since(start).Seconds(), reg.requests())
	if code != 1 {
		t.Fatalf("exit %d, want 1 (bundle written, install_failed)\n%s", code, stderr)
	}
	stalled := false
	for _, r := range reg.requests() {
		stalled = stalled || r == "t1 tarball stall"
	}
	if !stalled {
		t.Fatalf("the fault was not injected: pnpm never asked for the tarball (%q)", reg.requests())
	}
	var sum runner.Summary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	t1 := sum.Repetitions[0].Stages[0]
	if sum.Verdict != "install_failed" || !t1.TimedOut || !strings.HasPrefix(t1.FirstError, "timeout") {
		t.Errorf("verdict %s, T1 %+v; want install_failed, timed out", sum.Verdict, t1)
	}
	if code, o, e := s.run(t, "verify", out, "--key", s.pub); code != 0 {
		t.Errorf("the bundle does not verify: exit %d\n%s%s", code, o, e)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	arc, err := bundle.Read(bytes.NewReader(raw), bundle.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Decode(arc.RawManifest)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range m.Conditions.Variable {
		if c.Name == "T1 registry" && strings.HasPrefix(c.Value, reg.url) {
			found = true
		}
	}
	if !found {
		t.Errorf("the bundle's conditions do not name the registry T1 used (%s): %+v", reg.url, m.Conditions.Variable)
	}
	if got := dirEntries(t, outDir); len(got) != 1 {
		t.Errorf("beside --out: %v", got)
	}
}
