package pkgsource

// Tests against real parts: the npm registry this machine is configured
// with, and the real npm CLI. They run under DSHAUDIT_E2E=1 and then fail,
// never skip, when a part is missing or unreachable.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
	"github.com/dshaudit/dshaudit/vsa"
)

// helloDir is the hello plugin's source, a byte copy of the project's
// shared dsh evidence.
const helloDir = "../testdata/dsh-evidence/plugins/hello"

func npmOutput(t *testing.T, args ...string) []byte {
	t.Helper()
	e2etest.Require(t, "npm")
	cmd := exec.Command("npm", args...)
	cmd.Dir = t.TempDir()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

func TestRealRegistryIsNumber(t *testing.T) {
	e2etest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	f, err := Fetch(ctx, mustSpec(t, "is-number@7.0.0"), Options{})
	if err != nil {
		t.Fatalf("fetching is-number@7.0.0 from the real registry (this test needs it reachable): %v", err)
	}
	wantIntegrity := strings.TrimSpace(string(npmOutput(t, "view", "is-number@7.0.0", "dist.integrity")))
	if f.Name != "is-number" || f.Version != "7.0.0" || f.Integrity != wantIntegrity {
		t.Errorf("got %s@%s %s; npm view says integrity %s", f.Name, f.Version, f.Integrity, wantIntegrity)
	}
	wantReg := strings.TrimSpace(string(npmOutput(t, "config", "get", "registry")))
	if f.Registry != wantReg || !strings.Contains(condValue(f, "registry"), "from npm config") {
		t.Errorf("registry %q (%s), npm config says %q", f.Registry, condValue(f, "registry"), wantReg)
	}

	// The tarball is the one npm itself downloads.
	dir := t.TempDir()
	var packed []packResult
	cmd := exec.Command("npm", "pack", "is-number@7.0.0", "--json", "--pack-destination", dir)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil || json.Unmarshal(out, &packed) != nil || len(packed) != 1 {
		t.Fatalf("npm pack is-number@7.0.0: %v %s", err, out)
	}
	npmTgz, err := os.ReadFile(filepath.Join(dir, packed[0].Filename))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(npmTgz, f.Tarball) || f.TarballSHA256 != vsa.TarballOf(npmTgz).SHA256() {
		t.Errorf("tarball differs from npm's download of it")
	}

	// The metadata is the registry's own bytes: they occur verbatim in
	// the packument fetched independently.
	resp, err := http.Get(f.Registry + "is-number")
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(doc, f.MetadataJSON) || !json.Valid(f.MetadataJSON) {
		t.Errorf("MetadataJSON is not a verbatim slice of the packument: %.200s", f.MetadataJSON)
	}
	var meta struct{ Name, Version string }
	json.Unmarshal(f.MetadataJSON, &meta)
	if meta.Name != "is-number" || meta.Version != "7.0.0" {
		t.Errorf("metadata names %s@%s", meta.Name, meta.Version)
	}

	// No dsh field: no patch path, so clause 5.1.1 fails downstream.
	if f.Patch != nil || f.PatchPath != "" || f.PatchFetchError != "package.json has no dsh field" || len(f.CDNAttempts) != 0 {
		t.Errorf("patch %q path %q error %q attempts %v", f.Patch, f.PatchPath, f.PatchFetchError, f.CDNAttempts)
	}
	if f.ReadmePath != "README.md" || !bytes.Contains(f.README, []byte("is-number")) {
		t.Errorf("README %q (%d bytes)", f.ReadmePath, len(f.README))
	}
	t.Logf("is-number@7.0.0: %d tarball bytes, sha256 %s, conditions %+v", len(f.Tarball), f.TarballSHA256, f.Conditions)
}

// The real CDNs named by DSHIO/T 10 5.1.2: each either serves the same
// bytes as the verified tarball, or cannot be reached. A CDN that
// answers something else fails the test.
func TestRealCDNsServeTarballBytesOrAreUnreachable(t *testing.T) {
	e2etest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	f, err := Fetch(ctx, mustSpec(t, "is-number@7.0.0"), Options{})
	if err != nil {
		t.Fatalf("real registry: %v", err)
	}
	client, err := NewHTTPClient(NPMConfig{ExtraCAFile: os.Getenv("NODE_EXTRA_CA_CERTS")})
	if err != nil {
		t.Fatal(err)
	}
	idx, err := ReadTarball(f.Tarball, Limits{}, func(rel string) bool { return rel == "package.json" })
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	attempts := FetchFromCDNs(ctx, client, DefaultCDNTemplates, "is-number", "7.0.0", "package.json", DefaultCDNTimeout, DefaultLimits.MaxFileBytes)
	for _, a := range attempts {
		switch {
		case a.Outcome == "ok" && bytes.Equal(a.Body, idx.Read["package.json"]):
		case !a.Answered():
		default:
			t.Errorf("%s: %s", a.URL, a.Outcome)
		}
	}
	t.Logf("CDN probe took %s: %s", time.Since(start).Round(time.Millisecond), summarizeAttempts(attempts))
}

func TestRealLocalTarballAndDir(t *testing.T) {
	e2etest.Require(t, "npm")
	if _, err := os.Stat(filepath.Join(helloDir, "package.json")); err != nil {
		t.Fatalf("the hello plugin source is missing: %v", err)
	}
	abs, _ := filepath.Abs(helloDir)
	dir := t.TempDir()
	var packed []packResult
	if err := json.Unmarshal(npmOutput(t, "pack", "--json", "--ignore-scripts", "--pack-destination", dir, abs), &packed); err != nil || len(packed) != 1 {
		t.Fatalf("npm pack: %v", err)
	}
	tgzPath := filepath.Join(dir, packed[0].Filename)
	wantPkg, _ := os.ReadFile(filepath.Join(helloDir, "package.json"))
	wantPatch, _ := os.ReadFile(filepath.Join(helloDir, "cordis.patch.yml"))

	ctx := context.Background()
	tf, err := Fetch(ctx, mustSpec(t, tgzPath), Options{})
	if err != nil {
		t.Fatal(err)
	}
	df, err := Fetch(ctx, mustSpec(t, abs), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []*Fetched{tf, df} {
		if f.Name != "hello-dsh-plugin" || f.Version != "1.0.0" || !bytes.Equal(f.MetadataJSON, wantPkg) || !bytes.Equal(f.Patch, wantPatch) {
			t.Errorf("%s: %s@%s metadata %q patch %q", f.Source, f.Name, f.Version, f.MetadataJSON, f.Patch)
		}
		if f.Integrity != packed[0].Integrity || f.PatchSource != "tarball" || f.README != nil {
			t.Errorf("%s: integrity %s (npm pack: %s) patch source %q readme %q", f.Source, f.Integrity, packed[0].Integrity, f.PatchSource, f.README)
		}
	}
	if tf.Source != SourceLocalTarball || df.Source != SourceLocalDir {
		t.Errorf("sources %s, %s", tf.Source, df.Source)
	}
	if v := condValue(df, "local_source"); !strings.Contains(v, "npm pack --ignore-scripts (npm ") {
		t.Errorf("local_source = %q", v)
	}

	// A directory without package.json is unresolvable.
	if _, err := Fetch(ctx, mustSpec(t, t.TempDir()), Options{}); !errors.Is(err, ErrUnresolvable) || !strings.Contains(err.Error(), "no package.json") {
		t.Errorf("empty dir: %v", err)
	}
}

func TestRealReadNPMConfig(t *testing.T) {
	e2etest.Require(t, "npm")
	cfg, err := ReadNPMConfig(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(npmOutput(t, "config", "get", "registry")))
	if cfg.Registry != want || cfg.RegistryFrom != "npm config" {
		t.Errorf("got %+v, npm says %q", cfg, want)
	}
	cafile := strings.TrimSpace(string(npmOutput(t, "config", "get", "cafile")))
	if cafile == "null" || cafile == "undefined" {
		cafile = ""
	}
	if cfg.CAFile != cafile {
		t.Errorf("cafile %q, npm says %q", cfg.CAFile, cafile)
	}
	// Without npm: the environment, then npm's default.
	t.Setenv("npm_config_registry", "http://env.example:4873")
	cfg, err = ReadNPMConfig(context.Background(), filepath.Join(t.TempDir(), "no-npm"))
	if err != nil || cfg.Registry != "http://env.example:4873/" || !strings.HasPrefix(cfg.RegistryFrom, "environment") {
		t.Errorf("env fallback: %+v %v", cfg, err)
	}
}
