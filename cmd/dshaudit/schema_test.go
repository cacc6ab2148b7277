package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/dshaudit/dshaudit/batch"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/image"
	"github.com/dshaudit/dshaudit/internal/testutil/schematest"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/runner"
	"github.com/dshaudit/dshaudit/verify"
)

// Every result object's media type is versioned and is the const of the
// media_type property of its schema in schema/.
func TestMediaTypesMatchSchemas(t *testing.T) {
	for name, mt := range map[string]string{
		"static-result":        StaticResultMediaType,
		"run-result":           runner.SummaryMediaType,
		"verify-result":        verify.ResultMediaType,
		"verify-summary":       SummaryMediaType,
		"replay-result":        ReplayMediaType,
		"image-build-result":   ImageBuildMediaType,
		"image-verify-result":  ImageVerifyMediaType,
		"batch-result":         BatchMediaType,
		"inspect-result":       InspectMediaType,
		"report-result":        ReportMediaType,
		"key-result":           KeyMediaType,
		"summary-check-result": SummaryCheckMediaType,
		"cleanup-result":       CleanupMediaType,
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

// inspect --json of every test vector the reader accepts matches its
// schema; every listed file has a role, and a mutated object is refused.
func TestInspectJSONMatchesSchema(t *testing.T) {
	vecs, err := filepath.Glob(vecDir + "*" + manifest.BundleSuffix)
	if err != nil || len(vecs) < 10 {
		t.Fatalf("test vectors: %v %v", vecs, err)
	}
	checked := 0
	for _, v := range vecs {
		code, out, errOut := runCLI(t, "inspect", v, "--json")
		if code != 0 {
			continue // a broken vector the reader refuses
		}
		schematest.Validate(t, "inspect-result", []byte(out))
		checked++
		if !strings.HasSuffix(v, "/boot_failed.dshaudit.tar.zst") {
			continue
		}
		var r inspectResult
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		roles := map[string]inspectFile{}
		for _, f := range r.Files {
			roles[f.Role] = f
			if f.Listed && (f.Role == "" || !f.Present || !f.Matches) {
				t.Errorf("boot_failed: %+v", f)
			}
		}
		if m := roles["1/T4/merged"]; m.Path != "repetitions/1/T4/merged" || m.Repetition != 1 || m.Stage != "T4" {
			t.Errorf("1/T4/merged: %+v (stderr %s)", m, errOut)
		}
		if !r.Signed || roles["manifest"].Path != "manifest.json" || roles["signature"].Path == "" || roles["static/metadata"].Path == "" {
			t.Errorf("roles %v", roles)
		}
		// The same --stage and --role print that file.
		_, merged, _ := runCLI(t, "inspect", v, "--stage", "1/T4", "--raw")
		_, file, _ := runCLI(t, "inspect", v, "--file", roles["1/T4/merged"].Path, "--raw")
		if merged == "" || merged != file {
			t.Error("the role's path is not the --stage 1/T4 file")
		}
		mutated := strings.Replace(out, `"listed": true`, `"listed": "yes"`, 1)
		if sch := schematest.Schema(t, "inspect-result"); sch.Validate(mustJSON(t, mutated)) == nil {
			t.Error("the schema accepts a mutated inspect object")
		}
	}
	if checked < 10 {
		t.Errorf("only %d bundles inspected", checked)
	}
	if code, _, _ := runCLI(t, "inspect", vecDir+"pass.dshaudit.tar.zst", "--json", "--manifest"); code != ExitUsage {
		t.Errorf("--json --manifest: exit %d, want %d", code, ExitUsage)
	}
}

// batch --json needs an engine and runs; its object's shape is checked
// here from the type it is encoded from, with a task in every state (the
// batch end-to-end test validates what a real batch prints).
func TestBatchResultShapeMatchesSchema(t *testing.T) {
	var outs []batch.Outcome
	for i, st := range []string{batch.StateDone, batch.StateSkipped, batch.StateUnresolvable, batch.StateDuplicate, batch.StateFailed, batch.StateCancelled} {
		outs = append(outs, batch.Outcome{Task: batch.Task{Line: i + 1, Spec: "p@1", RunSpec: "p@1.0.0", Package: "p@1.0.0", Bundle: "/b/p-1.0.0.dshaudit.tar.zst"},
			State: st, Verdict: "pass", Exit: i - 1, Attempts: i, Why: "because"})
	}
	_, out, _ := runCLI(t, append(append([]string{"verify"}, vecDir+"pass.dshaudit.tar.zst", vecDir+"edited_stdout.dshaudit.tar.zst"), "--key", vecKey, "--json")...)
	var many struct {
		Summary verify.Summary `json:"summary"`
		Bundles []verify.Item  `json:"bundles"`
	}
	if err := json.Unmarshal([]byte(out), &many); err != nil {
		t.Fatal(err)
	}
	for _, r := range []batchResult{
		{BatchMediaType, 1, "podman", "localhost/x@sha256:" + strings.Repeat("a", 64), "/b", outs, many.Summary, many.Bundles},
		{BatchMediaType, 1, "slurm", "i", "/b", nil, verify.Summarise(nil), nil}, // nothing to run
	} {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		schematest.Validate(t, "batch-result", b)
	}
	b, _ := json.Marshal(batchResult{BatchMediaType, 1, "podman", "i", "/b", []batch.Outcome{{State: "finished"}}, many.Summary, many.Bundles})
	if schematest.Schema(t, "batch-result").Validate(mustJSON(t, string(b))) == nil {
		t.Error("the schema accepts a task state batch does not have")
	}
}

// image verify --json: the shape of a same, a different (with a layer
// and file difference) and a could-not-run object.
func TestImageVerifyResultShapeMatchesSchema(t *testing.T) {
	d := "sha256:" + strings.Repeat("b", 64)
	for _, r := range []imageVerifyResult{
		{MediaType: ImageVerifyMediaType, SchemaVersion: 1, Ref: "x@" + d, Want: d, Rebuilt: d, Same: true},
		{MediaType: ImageVerifyMediaType, SchemaVersion: 1, Ref: "x@" + d, Want: d, Rebuilt: "sha256:" + strings.Repeat("c", 64),
			Layers: []image.LayerDiff{{Index: 2, History: "dsh", GivenDiffID: d, RebuiltDiffID: d, FilesTruncated: true,
				Files: []image.FileDiff{{Path: "a", Given: &image.FileRec{Path: "a", Type: "file", Size: 1, Mode: "0644", SHA256: "x"}}}}},
			Notes: []string{"n"}},
		{MediaType: ImageVerifyMediaType, SchemaVersion: 1, Ref: "x@" + d, Want: d, Error: "no network"},
	} {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		schematest.Validate(t, "image-verify-result", b)
	}
}

func mustJSON(t *testing.T, s string) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// report -o --json, of one page and of a site with a bundle that cannot
// be read, and key generate --json match their schemas.
func TestReportAndKeyJSONMatchSchema(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "report", vecDir+"boot_failed.dshaudit.tar.zst", "--key", vecKey, "-o", filepath.Join(dir, "b.html"), "--json")
	if code != 0 {
		t.Fatalf("report --json: exit %d: %s", code, errOut)
	}
	schematest.Validate(t, "report-result", []byte(out))
	if !strings.Contains(out, `"verdict": "boot_failed"`) {
		t.Errorf("one page: %s", out)
	}
	in := filepath.Join(dir, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{"pass": "pass", "edited": "edited_stdout"} {
		b, err := os.ReadFile(vecDir + src + manifest.BundleSuffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(in, name+manifest.BundleSuffix), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(in, "junk"+manifest.BundleSuffix), []byte("not zstd"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, errOut = runCLI(t, "report", in, "--key", vecKey, "-o", filepath.Join(dir, "site"), "--json")
	schematest.Validate(t, "report-result", []byte(out))
	var r reportResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Pages) != 3 || r.Index == "" || !strings.Contains(errOut, "unreadable") {
		t.Errorf("site: %s\nstderr %s", out, errOut)
	}
	if code, _, _ := runCLI(t, "report", vecDir+"pass.dshaudit.tar.zst", "--key", vecKey, "--json"); code != ExitUsage {
		t.Errorf("--json without -o: exit %d, want %d", code, ExitUsage)
	}
	for _, kt := range []string{"ed25519", "ecdsa-p256"} {
		code, out, errOut := runCLI(t, "key", "generate", "--out-dir", dir, "--name", kt, "--type", kt, "--json")
		if code != 0 {
			t.Fatalf("key generate --json: exit %d: %s", code, errOut)
		}
		schematest.Validate(t, "key-result", []byte(out))
	}
}
