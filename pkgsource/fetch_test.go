package pkgsource

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/internal/hosttool"
	"github.com/dshaudit/dshaudit/vsa"
)

// fakeRegistry serves packuments and tarballs by escaped path; a fake for
// unit tests only.
type fakeRegistry struct {
	srv    *httptest.Server
	files  map[string][]byte // escaped path → body
	status map[string]int    // escaped path → status override
	hits   atomic.Int64
}

func newFakeRegistry(t *testing.T) *fakeRegistry {
	f := &fakeRegistry{files: map[string][]byte{}, status: map[string]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.hits.Add(1)
		p := r.URL.EscapedPath()
		if st, ok := f.status[p]; ok {
			w.WriteHeader(st)
			return
		}
		b, ok := f.files[p]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// versionObject writes a version object by hand, with irregular spacing,
// so the test can check Fetch keeps the registry's exact bytes.
func versionObject(name, version, extra, tarball, integrity string) string {
	return fmt.Sprintf(`{ "name" : %q,"version":%q, %s "dist" : {"integrity": %q,
      "tarball":%q } }`, name, version, extra, integrity, tarball)
}

// publish adds name@version with tgz and returns the raw version object.
func (f *fakeRegistry) publish(name string, versions map[string][]byte, extra map[string]string, tags string) map[string]string {
	raws := map[string]string{}
	var vs []string
	for v, tgz := range versions {
		tb := fmt.Sprintf("%s/%s/-/%s-%s.tgz", f.srv.URL, name, filepath.Base(name), v)
		f.files[strings.TrimPrefix(tb, f.srv.URL)] = tgz
		raw := versionObject(name, v, extra[v], tb, vsa.TarballOf(tgz).Integrity())
		raws[v] = raw
		vs = append(vs, fmt.Sprintf("%q:%s", v, raw))
	}
	doc := fmt.Sprintf(`{"_id":%q,"name":%q,"dist-tags":%s,"versions":{%s},"time":{}}`, name, name, tags, strings.Join(vs, ",\n"))
	f.files["/"+strings.Replace(name, "/", "%2F", 1)] = []byte(doc)
	return raws
}

const helloDsh = `"type":"module","main":"lib/index.js","dsh":{"bundle":{"patch":"./cordis.patch.yml"}},`

// unreachableCDN is a template on a closed loopback port.
var unreachableCDN = []string{"http://127.0.0.1:1/{name}@{version}/{path}"}

func testOpts(reg string, cdns []string) Options {
	return Options{Registry: reg, NPMConfig: &NPMConfig{}, CDNTemplates: cdns, CDNTimeout: 2 * time.Second, Timeout: 5 * time.Second}
}

func mustSpec(t *testing.T, s string) Spec {
	t.Helper()
	sp, err := ParseSpec(s)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func condValue(f *Fetched, name string) string {
	for _, c := range f.Conditions {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

func TestFetchRegistryFallsBackToTarball(t *testing.T) {
	reg := newFakeRegistry(t)
	tgz := helloTgz(t)
	raws := reg.publish("hello-dsh-plugin", map[string][]byte{"1.0.0": tgz, "0.9.0": tgz}, map[string]string{"1.0.0": helloDsh, "0.9.0": helloDsh}, `{"latest":"1.0.0"}`)

	f, err := Fetch(context.Background(), mustSpec(t, "hello-dsh-plugin@^0.9 || ^1"), testOpts(reg.srv.URL, unreachableCDN))
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "hello-dsh-plugin" || f.Version != "1.0.0" || f.Source != SourceRegistry {
		t.Errorf("identity = %s@%s %s", f.Name, f.Version, f.Source)
	}
	if string(f.MetadataJSON) != raws["1.0.0"] {
		t.Errorf("metadata is not the registry's raw bytes:\n got %s\nwant %s", f.MetadataJSON, raws["1.0.0"])
	}
	if f.Integrity != vsa.TarballOf(tgz).Integrity() || f.TarballSHA256 != vsa.TarballOf(tgz).SHA256() || !bytes.Equal(f.Tarball, tgz) {
		t.Errorf("tarball digests wrong")
	}
	if string(f.Patch) != helloPatch || f.PatchSource != "tarball" || f.PatchPath != "cordis.patch.yml" || f.PatchDeclared != "./cordis.patch.yml" {
		t.Errorf("patch = %q from %q path %q", f.Patch, f.PatchSource, f.PatchPath)
	}
	ps := condValue(f, "patch_source")
	if !strings.HasPrefix(ps, "tarball (no CDN reachable: 127.0.0.1:1: unreachable: connection failed") {
		t.Errorf("patch_source condition = %q", ps)
	}
	if string(f.README) != "# hello\n" || f.ReadmePath != "README.md" {
		t.Errorf("README = %q %q", f.README, f.ReadmePath)
	}
	if !strings.Contains(condValue(f, "registry"), "from --registry") || !strings.Contains(condValue(f, "version_resolution"), `"latest" dist-tag satisfies`) {
		t.Errorf("conditions = %+v", f.Conditions)
	}
	if len(f.Warnings) != 0 {
		t.Errorf("warnings = %v", f.Warnings)
	}
}

// fakeCDN serves the patch for the paths in files, 404 otherwise.
func fakeCDN(t *testing.T, files map[string]string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.Write([]byte(b))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestFetchPatchFromCDN(t *testing.T) {
	reg := newFakeRegistry(t)
	reg.publish("hello-dsh-plugin", map[string][]byte{"1.0.0": helloTgz(t)}, map[string]string{"1.0.0": helloDsh}, `{"latest":"1.0.0"}`)
	cdn404 := fakeCDN(t, nil)
	cdnOK := fakeCDN(t, map[string]string{"/hello-dsh-plugin@1.0.0/cordis.patch.yml": helloPatch})
	cdnOther := fakeCDN(t, map[string]string{"/npm/hello-dsh-plugin@1.0.0/cordis.patch.yml": "- insert: []\n"})

	// The first CDN with the file wins, in template order.
	f, err := Fetch(context.Background(), mustSpec(t, "hello-dsh-plugin"), testOpts(reg.srv.URL, []string{
		unreachableCDN[0], cdn404.URL + "/{name}@{version}/{path}", cdnOK.URL + "/{name}@{version}/{path}",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if string(f.Patch) != helloPatch || f.PatchSource != cdnOK.URL+"/hello-dsh-plugin@1.0.0/cordis.patch.yml" {
		t.Errorf("patch %q from %q", f.Patch, f.PatchSource)
	}
	if condValue(f, "patch_source") != "" || len(f.Warnings) != 0 {
		t.Errorf("conditions %+v warnings %v", f.Conditions, f.Warnings)
	}
	if len(f.CDNAttempts) != 3 || f.CDNAttempts[1].Outcome != "HTTP 404" || f.CDNAttempts[2].Outcome != "ok" {
		t.Errorf("attempts = %+v", f.CDNAttempts)
	}

	// A CDN copy that differs from the verified tarball is used (it is
	// what the criterion reads) and warned about.
	f, err = Fetch(context.Background(), mustSpec(t, "hello-dsh-plugin"), testOpts(reg.srv.URL, []string{cdnOther.URL + "/npm/{name}@{version}/{path}"}))
	if err != nil {
		t.Fatal(err)
	}
	if string(f.Patch) != "- insert: []\n" || len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0], "differs from the verified tarball") {
		t.Errorf("patch %q warnings %v", f.Patch, f.Warnings)
	}

	// All CDNs answer 404 but the tarball has it: tarball, recorded.
	f, err = Fetch(context.Background(), mustSpec(t, "hello-dsh-plugin"), testOpts(reg.srv.URL, []string{cdn404.URL + "/{name}@{version}/{path}"}))
	if err != nil {
		t.Fatal(err)
	}
	if f.PatchSource != "tarball" || !strings.Contains(condValue(f, "patch_source"), "no CDN served the file") || len(f.Warnings) != 1 {
		t.Errorf("source %q conditions %+v warnings %v", f.PatchSource, f.Conditions, f.Warnings)
	}
}

func TestFetchPatchProblems(t *testing.T) {
	noPatchTgz := buildTgz(t, entry{Name: "package/package.json", Body: `{"name":"p","version":"1.0.0"}`})
	cases := []struct {
		name, extra, wantErr string
		tgz                  []byte
		noCDNAttempts        bool
	}{
		{"no dsh field", `"main":"x.js",`, "package.json has no dsh field", noPatchTgz, true},
		{"hostile path", `"dsh":{"bundle":{"patch":"../../etc/passwd"}},`, "unsafe patch path", noPatchTgz, true},
		{"absolute path", `"dsh":{"bundle":{"patch":"/etc/passwd"}},`, "absolute path", noPatchTgz, true},
		{"missing file", `"dsh":{"bundle":{"patch":"./cordis.patch.yml"}},`, `patch file "cordis.patch.yml" is not in the published package; no CDN reachable`, noPatchTgz, false},
		{"link", `"dsh":{"bundle":{"patch":"p.yml"}},`, "is a link in the tarball", buildTgz(t,
			entry{Name: "package/package.json", Body: `{"name":"p","version":"1.0.0","dsh":{"bundle":{"patch":"p.yml"}}}`},
			entry{Name: "package/p.yml", Type: '2', Linkname: "/etc/passwd"}), false},
	}
	for _, c := range cases {
		reg := newFakeRegistry(t)
		reg.publish("p", map[string][]byte{"1.0.0": c.tgz}, map[string]string{"1.0.0": c.extra}, `{"latest":"1.0.0"}`)
		f, err := Fetch(context.Background(), mustSpec(t, "p@1.0.0"), testOpts(reg.srv.URL, unreachableCDN))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if f.Patch != nil || !strings.Contains(f.PatchFetchError, c.wantErr) {
			t.Errorf("%s: patch %q error %q, want error %q", c.name, f.Patch, f.PatchFetchError, c.wantErr)
		}
		if c.noCDNAttempts && len(f.CDNAttempts) != 0 {
			t.Errorf("%s: asked CDNs for an unusable path: %+v", c.name, f.CDNAttempts)
		}
	}
}

func TestFetchRegistryErrors(t *testing.T) {
	tgz := helloTgz(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	cases := []struct {
		name    string
		spec    string
		setup   func(*fakeRegistry, *Options)
		want    []error
		notWant []error
		msg     string
	}{
		{"package 404", "nope", nil, []error{ErrUnresolvable, ErrPackageNotFound}, []error{ErrRegistryUnreachable}, `"nope"`},
		{"version 404", "hello-dsh-plugin@2.0.0", nil, []error{ErrUnresolvable, ErrVersionNotFound}, nil, "available: 1.0.0"},
		{"unreachable", "hello-dsh-plugin", func(r *fakeRegistry, o *Options) { o.Registry = closedURL }, []error{ErrUnresolvable, ErrRegistryUnreachable}, nil, "connection failed"},
		{"registry 503", "hello-dsh-plugin", func(r *fakeRegistry, o *Options) { r.status["/hello-dsh-plugin"] = 503 }, []error{ErrUnresolvable, ErrRegistryUnreachable}, nil, "HTTP 503"},
		{"oversize packument", "hello-dsh-plugin", func(r *fakeRegistry, o *Options) { o.Limits.MaxPackumentBytes = 100 }, []error{ErrUnresolvable, ErrTooLarge}, nil, "100"},
		{"oversize tarball", "hello-dsh-plugin", func(r *fakeRegistry, o *Options) { o.Limits.MaxTarballBytes = 100 }, []error{ErrTooLarge}, []error{ErrUnresolvable}, "100"},
		{"integrity mismatch", "hello-dsh-plugin", func(r *fakeRegistry, o *Options) {
			r.files["/hello-dsh-plugin/-/hello-dsh-plugin-1.0.0.tgz"] = append(bytes.Clone(tgz), 0)
		}, []error{ErrIntegrity}, []error{ErrUnresolvable}, "dist.integrity says"},
		{"tarball gone", "hello-dsh-plugin", func(r *fakeRegistry, o *Options) {
			delete(r.files, "/hello-dsh-plugin/-/hello-dsh-plugin-1.0.0.tgz")
		}, []error{ErrBadMetadata}, []error{ErrUnresolvable}, "HTTP 404"},
		{"packument names another package", "hello-dsh-plugin", func(r *fakeRegistry, o *Options) {
			r.files["/hello-dsh-plugin"] = bytes.Replace(r.files["/hello-dsh-plugin"], []byte(`"name":"hello-dsh-plugin"`), []byte(`"name":"evil"`), 1)
		}, []error{ErrUnresolvable, ErrBadMetadata}, nil, `"evil"`},
		{"packument not JSON", "hello-dsh-plugin", func(r *fakeRegistry, o *Options) { r.files["/hello-dsh-plugin"] = []byte("<html>") }, []error{ErrUnresolvable, ErrBadMetadata}, nil, "packument"},
		{"slow registry", "hello-dsh-plugin", func(r *fakeRegistry, o *Options) {
			slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { time.Sleep(2 * time.Second) }))
			o.Registry = slow.URL
			o.Timeout = 200 * time.Millisecond
			// Closed after the client gave up.
			go func() { time.Sleep(3 * time.Second); slow.Close() }()
		}, []error{ErrUnresolvable, ErrRegistryUnreachable}, nil, "timed out after 200ms"},
	}
	for _, c := range cases {
		reg := newFakeRegistry(t)
		reg.publish("hello-dsh-plugin", map[string][]byte{"1.0.0": tgz}, map[string]string{"1.0.0": helloDsh}, `{"latest":"1.0.0"}`)
		opts := testOpts(reg.srv.URL, unreachableCDN)
		if c.setup != nil {
			c.setup(reg, &opts)
		}
		f, err := Fetch(context.Background(), mustSpec(t, c.spec), opts)
		if err == nil {
			t.Errorf("%s: no error, got %s@%s", c.name, f.Name, f.Version)
			continue
		}
		for _, w := range c.want {
			if !errors.Is(err, w) {
				t.Errorf("%s: %v is not %v", c.name, err, w)
			}
		}
		for _, w := range c.notWant {
			if errors.Is(err, w) {
				t.Errorf("%s: %v is %v", c.name, err, w)
			}
		}
		if !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %q lacks %q", c.name, err, c.msg)
		}
	}
}

func TestFetchHostileTarballFromRegistry(t *testing.T) {
	reg := newFakeRegistry(t)
	evil := buildTgz(t, entry{Name: "package/package.json", Body: `{}`}, entry{Name: "package/../../root/.bashrc", Body: "x"})
	reg.publish("p", map[string][]byte{"1.0.0": evil}, map[string]string{"1.0.0": helloDsh}, `{"latest":"1.0.0"}`)
	_, err := Fetch(context.Background(), mustSpec(t, "p"), testOpts(reg.srv.URL, []string{}))
	if !errors.Is(err, ErrBadTarball) || !strings.Contains(err.Error(), "escapes") {
		t.Fatalf("got %v", err)
	}
}

func TestFetchManifestConfusionWarns(t *testing.T) {
	reg := newFakeRegistry(t)
	tgz := buildTgz(t,
		entry{Name: "package/package.json", Body: `{"name":"p","version":"1.0.0","dsh":{"bundle":{"patch":"other.yml"}}}`},
		entry{Name: "package/cordis.patch.yml", Body: helloPatch})
	reg.publish("p", map[string][]byte{"1.0.0": tgz}, map[string]string{"1.0.0": helloDsh}, `{"latest":"1.0.0"}`)
	f, err := Fetch(context.Background(), mustSpec(t, "p"), testOpts(reg.srv.URL, []string{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0], `dsh.bundle.patch differs`) {
		t.Fatalf("warnings = %v", f.Warnings)
	}
	if condValue(f, "patch_source") != "tarball (no CDN configured)" {
		t.Errorf("patch_source = %q", condValue(f, "patch_source"))
	}
}

func TestFetchScopedAndRewrittenTarballURL(t *testing.T) {
	reg := newFakeRegistry(t)
	tgz := helloTgz(t)
	reg.publish("@s/x", map[string][]byte{"1.0.0": tgz}, map[string]string{"1.0.0": helloDsh}, `{"latest":"1.0.0"}`)
	// Point dist.tarball at registry.npmjs.org, as mirrors often do.
	doc := reg.files["/@s%2Fx"]
	doc = bytes.ReplaceAll(doc, []byte(reg.srv.URL+"/"), []byte("https://registry.npmjs.org/"))
	doc = bytes.ReplaceAll(doc, []byte(`"name" : "hello-dsh-plugin"`), []byte(`"name" : "@s/x"`))
	reg.files["/@s%2Fx"] = doc
	f, err := Fetch(context.Background(), mustSpec(t, "@s/x@1.0.0"), testOpts(reg.srv.URL, []string{}))
	if err != nil {
		t.Fatal(err)
	}
	if f.TarballURL != reg.srv.URL+"/@s/x/-/x-1.0.0.tgz" || !strings.Contains(condValue(f, "tarball_url"), "replace-registry-host") {
		t.Errorf("tarball URL %q, conditions %+v", f.TarballURL, f.Conditions)
	}
}

func TestTarballURLRefusals(t *testing.T) {
	r := &Registry{Base: "https://registry.example/"}
	for _, u := range []string{"file:///etc/passwd", "http://registry.example/x.tgz", "/relative.tgz", "https://user:pw@host/x.tgz"} {
		if _, _, err := r.TarballURL(u); !errors.Is(err, ErrBadMetadata) {
			t.Errorf("%q: %v", u, err)
		}
	}
}

func TestFetchGitHubNotFetchable(t *testing.T) {
	_, err := Fetch(context.Background(), mustSpec(t, "github:owner/repo#main"), Options{})
	if !errors.Is(err, ErrNotFetchable) || !errors.Is(err, ErrUnresolvable) || !strings.Contains(err.Error(), `"github:owner/repo#main"`) {
		t.Fatalf("got %v", err)
	}
}

func TestFetchLocalTarballUnit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "hello-1.0.0.tgz")
	tgz := helloTgz(t)
	if err := os.WriteFile(p, tgz, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Fetch(context.Background(), mustSpec(t, p), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Source != SourceLocalTarball || f.Name != "hello-dsh-plugin" || f.Version != "1.0.0" || string(f.MetadataJSON) != helloPkgJSON {
		t.Errorf("got %s %s@%s", f.Source, f.Name, f.Version)
	}
	if string(f.Patch) != helloPatch || !strings.Contains(condValue(f, "patch_source"), "local source") || len(f.CDNAttempts) != 0 {
		t.Errorf("patch %q conditions %+v", f.Patch, f.Conditions)
	}

	bad := filepath.Join(dir, "bad-1.0.0.tgz")
	os.WriteFile(bad, buildTgz(t, entry{Name: "package/index.js", Body: "x"}), 0o644)
	if _, err := Fetch(context.Background(), mustSpec(t, bad), Options{}); !errors.Is(err, ErrUnresolvable) || !strings.Contains(err.Error(), "no package/package.json") {
		t.Errorf("no package.json: %v", err)
	}
	if _, err := Fetch(context.Background(), mustSpec(t, filepath.Join(dir, "missing.tgz")), Options{}); !errors.Is(err, ErrLocalSource) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Fetch(context.Background(), mustSpec(t, p), Options{Limits: Limits{MaxTarballBytes: 10}}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversize local tarball: %v", err)
	}
}

func TestFetchOversizeCDNAnswerIsRefused(t *testing.T) {
	reg := newFakeRegistry(t)
	reg.publish("hello-dsh-plugin", map[string][]byte{"1.0.0": helloTgz(t)}, map[string]string{"1.0.0": helloDsh}, `{"latest":"1.0.0"}`)
	huge := fakeCDN(t, map[string]string{"/hello-dsh-plugin@1.0.0/cordis.patch.yml": strings.Repeat("x", 4096)})
	opts := testOpts(reg.srv.URL, []string{huge.URL + "/{name}@{version}/{path}"})
	opts.Limits.MaxFileBytes = 1024
	f, err := Fetch(context.Background(), mustSpec(t, "hello-dsh-plugin"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if f.PatchSource != "tarball" || !strings.HasPrefix(f.CDNAttempts[0].Outcome, "refused: size limit exceeded") {
		t.Fatalf("source %q attempts %+v", f.PatchSource, f.CDNAttempts)
	}
	if !strings.Contains(condValue(f, "patch_source"), "no CDN served the file") {
		t.Errorf("patch_source = %q", condValue(f, "patch_source"))
	}
}

// A local directory without npm to pack it: hosttool.ErrMissing naming
// npm, not ErrUnresolvable or ErrLocalSource (the directory is fine).
func TestFetchLocalDirWithoutNPM(t *testing.T) {
	noNPM := filepath.Join(t.TempDir(), "npm")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"x","version":"1.0.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Fetch(context.Background(), mustSpec(t, dir), Options{NPM: noNPM, NPMConfig: &NPMConfig{Registry: DefaultRegistry}})
	if !errors.Is(err, hosttool.ErrMissing) || errors.Is(err, ErrUnresolvable) || errors.Is(err, ErrLocalSource) || !strings.Contains(err.Error(), noNPM) {
		t.Errorf("got %v, want hosttool.ErrMissing naming %s only", err, noNPM)
	}
}
