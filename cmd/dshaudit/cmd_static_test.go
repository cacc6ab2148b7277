package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
	"github.com/dshaudit/dshaudit/internal/testutil/schematest"

	"github.com/dshaudit/dshaudit/pkgsource"
	"github.com/dshaudit/dshaudit/vsa"
)

func runStaticCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = execute(context.Background(), append([]string{"static"}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// staticTgz builds a package tarball (unit-test fake input).
func staticTgz(t *testing.T, files map[string]string) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: "package/" + name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// staticFakeRegistry serves one package with one version (a unit-test
// fake; the real registry is exercised in pkgsource's tests).
func staticFakeRegistry(t *testing.T, name, version, pkgFields string, tgz []byte) *httptest.Server {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/" + name:
			fmt.Fprintf(w, `{"name":%q,"dist-tags":{"latest":%q},"versions":{%q:{"name":%q,"version":%q,%s"dist":{"tarball":%q,"integrity":%q}}}}`,
				name, version, version, name, version, pkgFields, srv.URL+"/t.tgz", vsa.TarballOf(tgz).Integrity())
		case "/t.tgz":
			w.Write(tgz)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func decodeStatic(t *testing.T, out string) staticResult {
	t.Helper()
	schematest.Validate(t, "static-result", []byte(out))
	var r staticResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("--json output is not a staticResult: %v\n%s", err, out)
	}
	if r.MediaType != StaticResultMediaType || r.SchemaVersion != staticSchemaVersion {
		t.Errorf("media_type %q schema_version %d", r.MediaType, r.SchemaVersion)
	}
	return r
}

// The real hello plugin directory, packed with the real npm: the exit
// code must follow the report's own conforming_static.
func TestStaticLocalDirJSON(t *testing.T) {
	e2etest.Require(t, "npm")
	dir, _ := filepath.Abs("../../testdata/dsh-evidence/plugins/hello")
	code, out, errOut := runStaticCLI(t, dir, "--json", "--baseline", "0.1.0-rc.8")
	r := decodeStatic(t, out)
	if r.Baseline != "0.1.0-rc.8" {
		t.Errorf("baseline %q", r.Baseline)
	}
	if r.Package == nil || r.Package.Name != "hello-dsh-plugin" || r.Package.Version != "1.0.0" || r.Package.Source != string(pkgsource.SourceLocalDir) || r.Fetch == nil || r.Fetch.Source != pkgsource.SourceLocalDir {
		t.Fatalf("package = %+v (stderr %s)", r.Package, errOut)
	}
	if len(r.Clauses) == 0 || r.Clauses[0].Clause != "5.1.1" || r.ConformingStatic == nil {
		t.Fatalf("clauses %+v conforming_static %v", r.Clauses, r.ConformingStatic)
	}
	want := ExitFindings
	if *r.ConformingStatic {
		want = ExitOK
	}
	if code != want {
		t.Errorf("exit %d with conforming_static=%v", code, *r.ConformingStatic)
	}
	if !strings.Contains(out, `"patch_source": "tarball"`) || !strings.Contains(out, `"name": "patch_source"`) {
		t.Errorf("patch source not recorded:\n%s", out)
	}
}

func TestStaticRegistryNoDshField(t *testing.T) {
	tgz := staticTgz(t, map[string]string{"package.json": `{"name":"plain","version":"1.0.0","main":"index.js"}`, "index.js": ""})
	srv := staticFakeRegistry(t, "plain", "1.0.0", `"main":"index.js",`, tgz)
	code, out, errOut := runStaticCLI(t, "plain@^1", "--registry", srv.URL, "--no-cdn")
	if code != ExitFindings {
		t.Fatalf("exit %d, stderr %s\n%s", code, errOut, out)
	}
	for _, want := range []string{"package:   plain@1.0.0 (registry " + srv.URL + "/)", "patch:     none: package.json has no dsh field",
		"CLAUSE  SEVERITY", "5.1.1", "non-conforming", "conforming_static: false", "condition: version_resolution = range \"^1\""} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

func TestStaticUnresolvable(t *testing.T) {
	srv := staticFakeRegistry(t, "plain", "1.0.0", "", staticTgz(t, nil))
	code, out, _ := runStaticCLI(t, "absent-pkg", "--registry", srv.URL, "--json")
	r := decodeStatic(t, out)
	if code != ExitFindings || !r.Unresolvable || r.ConformingStatic != nil || r.Package != nil || !strings.Contains(r.Reason, "package not found") {
		t.Fatalf("exit %d, result %+v", code, r)
	}
	code, out, _ = runStaticCLI(t, "plain@2", "--registry", srv.URL)
	if code != ExitFindings || !strings.Contains(out, "unresolvable") || !strings.Contains(out, "available: 1.0.0") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestStaticExitCodes(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	// A registry whose tarball does not match its integrity.
	good := staticTgz(t, map[string]string{"package.json": `{"name":"p","version":"1.0.0"}`})
	tampered := staticFakeRegistry(t, "p", "1.0.0", "", good)
	tamperedTgz := staticTgz(t, map[string]string{"package.json": `{"name":"p","version":"1.0.0","x":1}`})
	tamperedSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/t.tgz" {
			w.Write(tamperedTgz)
			return
		}
		resp, err := http.Get(tampered.URL + r.URL.Path)
		if err != nil {
			w.WriteHeader(500)
			return
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		w.WriteHeader(resp.StatusCode)
		w.Write(bytes.ReplaceAll(b.Bytes(), []byte(tampered.URL), []byte("http://"+r.Host)))
	}))
	defer tamperedSrv.Close()
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"x", "--registry", closed.URL}, ExitCouldNotRun, "registry unreachable"},
		{[]string{"github:owner/repo"}, ExitCouldNotRun, "cannot be fetched here"},
		{[]string{"p", "--registry", tamperedSrv.URL, "--no-cdn"}, ExitCouldNotRun, "integrity check failed"},
		{[]string{"owner/repo"}, ExitUsage, "github:owner/repo"},
		{[]string{}, ExitUsage, "expected one PACKAGE-SPEC"},
		{[]string{"x", "y"}, ExitUsage, "expected one PACKAGE-SPEC"},
		{[]string{"x", "--cdn", "https://cdn/{name}"}, ExitUsage, "lacks {version}"},
		{[]string{"x", "--cdn", "https://c/{name}@{version}/{path}", "--no-cdn"}, ExitUsage, "contradict"},
		{[]string{"./does-not-exist-dir"}, ExitUsage, "no such file"},
		{[]string{"x", "--registry", "ftp://r/"}, ExitUsage, "expected http(s)"},
	}
	for _, c := range cases {
		code, _, errOut := runStaticCLI(t, c.args...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d mentioning %q", c.args, code, errOut, c.code, c.msg)
		}
	}
}

func TestStaticHelp(t *testing.T) {
	code, out, _ := runStaticCLI(t, "--help")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"PACKAGE-SPEC", "github:owner/repo", "Exit codes:", "dshaudit static hello-dsh-plugin@1.0.0", "--registry", "--baseline", "--cdn", "--json"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// TestStaticLocalDirWithoutNPM: packing a directory needs npm; without it
// the command could not run (exit 3) and says npm is missing — not a
// usage error, not "unresolvable".
func TestStaticLocalDirWithoutNPM(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir, _ := filepath.Abs("../../testdata/dsh-evidence/plugins/hello")
	code, out, errOut := runStaticCLI(t, dir, "--json")
	if code != ExitCouldNotRun || !strings.Contains(errOut, "npm") || !strings.Contains(errOut, "not installed") || out != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit %d naming npm as not installed", code, out, errOut, ExitCouldNotRun)
	}
}
