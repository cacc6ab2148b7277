package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/internal/testutil/schematest"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/runner"
	"github.com/dshaudit/dshaudit/verify"
)

// Every result object's media type is versioned and is the const of the
// media_type property of its schema in schema/.
func TestMediaTypesMatchSchemas(t *testing.T) {
	for name, mt := range map[string]string{
		"static-result":      StaticResultMediaType,
		"run-result":         runner.SummaryMediaType,
		"verify-result":      verify.ResultMediaType,
		"verify-summary":     SummaryMediaType,
		"replay-result":      ReplayMediaType,
		"image-build-result": ImageBuildMediaType,
	} {
		if !strings.HasSuffix(mt, ".v1+json") {
			t.Errorf("%s: media type %q has no version", name, mt)
		}
		b, err := os.ReadFile(filepath.Join(schematest.Dir(), name+".schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Properties struct {
				MediaType struct {
					Const string `json:"const"`
				} `json:"media_type"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s.Properties.MediaType.Const != mt {
			t.Errorf("schema/%s.schema.json media_type const %q, the code says %q", name, s.Properties.MediaType.Const, mt)
		}
		schematest.Schema(t, name) // compiles
	}
}

// verify --json of every test vector, alone, with a claim, and all at
// once, matches its schema.
func TestVerifyJSONMatchesSchema(t *testing.T) {
	vecs, err := filepath.Glob(vecDir + "*" + manifest.BundleSuffix)
	if err != nil || len(vecs) < 10 {
		t.Fatalf("test vectors: %v %v", vecs, err)
	}
	for _, v := range vecs {
		_, out, errOut := runCLI(t, "verify", v, "--key", vecKey, "--json")
		if out == "" {
			t.Fatalf("%s: no output; stderr %s", v, errOut)
		}
		schematest.Validate(t, "verify-result", []byte(out))
	}
	for _, c := range []string{"backed-readme.md", "wrong-date.md", "none.md", "malformed.md"} {
		_, out, errOut := runCLI(t, "verify", vecDir+"pass.dshaudit.tar.zst", "--key", vecKey, "--json", "--claim", "../../testdata/claims/"+c)
		if out == "" {
			t.Fatalf("claim %s: no output; stderr %s", c, errOut)
		}
		schematest.Validate(t, "verify-result", []byte(out))
	}
	_, out, errOut := runCLI(t, append(append([]string{"verify"}, vecs...), "--key", vecKey, "--json")...)
	if out == "" {
		t.Fatalf("many: no output; stderr %s", errOut)
	}
	schematest.Validate(t, "verify-summary", []byte(out))
}

// replay --json when no engine can be found: the could-not-run object.
func TestReplayCouldNotRunJSONMatchesSchema(t *testing.T) {
	dir := t.TempDir()
	key, _ := runTestKey(t)
	t.Setenv("PATH", dir) // no podman, no docker
	code, out, errOut := runCLI(t, "replay", vecDir+"pass.dshaudit.tar.zst", "--key", vecKey, "--signing-key", key, "--json",
		"--out", filepath.Join(dir, "r"+manifest.BundleSuffix))
	if code != ExitCouldNotRun || out == "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want %d and a result object", code, out, errOut, ExitCouldNotRun)
	}
	schematest.Validate(t, "replay-result", []byte(out))
	if !strings.Contains(out, `"outcome": "could-not-run"`) {
		t.Errorf("outcome not could-not-run:\n%s", out)
	}
}

// static --json of a resolved package (fake registry) and of an
// unresolvable one matches its schema (decodeStatic validates).
func TestStaticJSONMatchesSchema(t *testing.T) {
	tgz := staticTgz(t, map[string]string{"package.json": `{"name":"plain","version":"1.0.0","main":"index.js"}`, "index.js": ""})
	srv := staticFakeRegistry(t, "plain", "1.0.0", `"main":"index.js",`, tgz)
	_, out, errOut := runStaticCLI(t, "plain@^1", "--registry", srv.URL, "--no-cdn", "--json")
	r := decodeStatic(t, out)
	if r.Package == nil || r.Package.Name != "plain" || r.Package.Spec != "plain@^1" || r.Fetch == nil {
		t.Errorf("package %+v fetch %v; stderr %s", r.Package, r.Fetch != nil, errOut)
	}
	_, out, _ = runStaticCLI(t, "absent-pkg", "--registry", srv.URL, "--json")
	decodeStatic(t, out)
}

// image build --json needs the network and a full build, so its object's
// shape is checked here from the type it is encoded from (the end-to-end
// build tests exercise the values).
func TestImageBuildResultShapeMatchesSchema(t *testing.T) {
	r := imageBuildResult{MediaType: ImageBuildMediaType, SchemaVersion: 1,
		Ref: "localhost/dsh-sandbox:0.1.0-rc.8@sha256:" + strings.Repeat("a", 64), Name: "localhost/dsh-sandbox:0.1.0-rc.8",
		Digest: "sha256:" + strings.Repeat("a", 64), Loaded: true, OCILayout: "/tmp/l", OCIArchive: "/tmp/a.tar", CacheLayout: "/c",
		Cached: true, Size: 1, UncompressedSize: 2, Seconds: 1.5}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	schematest.Validate(t, "image-build-result", b)
}

// Every test vector's manifest that decodes is valid against
// schema/manifest.schema.json (the canonical encoding is stricter).
func TestVectorManifestsMatchSchema(t *testing.T) {
	vecs, err := filepath.Glob(vecDir + "*" + manifest.BundleSuffix)
	if err != nil || len(vecs) < 10 {
		t.Fatalf("test vectors: %v %v", vecs, err)
	}
	checked := 0
	for _, v := range vecs {
		f, err := os.Open(v)
		if err != nil {
			t.Fatal(err)
		}
		arc, err := bundle.Read(f, bundle.DefaultLimits())
		f.Close()
		if err != nil {
			continue // a broken vector the reader refuses
		}
		if _, err := manifest.Decode(arc.RawManifest); err != nil {
			continue // a broken vector whose manifest is refused
		}
		schematest.Validate(t, "manifest", arc.RawManifest)
		checked++
	}
	if checked < 10 {
		t.Errorf("only %d manifests checked", checked)
	}
}
