package main

// Tests of `dshaudit replay` through the CLI: exit codes, --json, and the
// year-old case end to end (real podman, real dsh, a real OCI registry on
// loopback). The library-level end-to-end tests are in ../../replay.

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
	"github.com/dshaudit/dshaudit/internal/testutil/schematest"
	"github.com/dshaudit/dshaudit/manifest"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/replay"
	"github.com/dshaudit/dshaudit/replay/compare"
)

// replayJSON is the --json object of `dshaudit replay`.
type replayJSON struct {
	MediaType     string `json:"media_type"`
	SchemaVersion int    `json:"schema_version"`
	compare.Result
}

func decodeReplay(t *testing.T, stdout string) replayJSON {
	t.Helper()
	schematest.Validate(t, "replay-result", []byte(stdout))
	var r replayJSON
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("--json output: %v\n%s", err, stdout)
	}
	if r.MediaType != ReplayMediaType || r.SchemaVersion != 1 {
		t.Errorf("media type %q version %d", r.MediaType, r.SchemaVersion)
	}
	return r
}

func timedCLI(t *testing.T, what string, args ...string) (int, string, string) {
	t.Helper()
	start := time.Now()
	code, out, errs := runRunCLI(t, args...)
	t.Logf("%s: exit %d in %.1fs", what, code, time.Since(start).Seconds())
	return code, out, errs
}

func assertAbsent(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s exists (%v): nothing should have been written", path, err)
	}
}

// TestReplayUsageErrors: flags that cannot work are usage errors (exit
// 2), found before any engine is used.
func TestReplayUsageErrors(t *testing.T) {
	key, pub := runTestKey(t)
	dir := t.TempDir()
	b := filepath.Join(dir, "b"+manifest.BundleSuffix)
	if err := os.WriteFile(b, []byte("not a bundle"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no key", []string{"replay", b, "--key", pub}, "--signing-key is required"},
		{"no trust", []string{"replay", b, "--signing-key", key}, "give exactly one of --key or --trusted-root"},
		{"unreadable pub", []string{"replay", b, "--signing-key", key, "--key", key}, "--key: "},
		{"bad image source", []string{"replay", b, "--key", pub, "--signing-key", key, "--image-from", "tarball:x"}, "--image-from"},
		{"archive without path", []string{"replay", b, "--key", pub, "--signing-key", key, "--image-from", "oci-archive"}, "--image-from"},
		{"out dir missing", []string{"replay", b, "--key", pub, "--signing-key", key, "--out", "/nonexistent/dir/r.tar.zst"}, "not writable"},
		{"unreadable bundle", []string{"replay", b, "--key", pub, "--signing-key", key, "--out", filepath.Join(dir, "r"+manifest.BundleSuffix)}, "original bundle unreadable"},
		{"two bundles", []string{"replay", b, b, "--key", pub, "--signing-key", key}, "arg"},
	} {
		code, out, errs := runRunCLI(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout %q; want exit %d mentioning %q", tc.name, code, errs, out, ExitUsage, tc.want)
		}
	}
	assertAbsent(t, filepath.Join(dir, "r"+manifest.BundleSuffix))
}

// TestReplayCLIDifferent: the unstable fixture's postinstall asks a
// counter server on the host loopback (T1 has the host network). The
// original runs while the server answers "ok" (pass); the replay, with
// the same package bytes (same URL and port), while it answers "fail":
// T1 is install_failed, so the replay is DIFFERENT (exit 1), naming
// repetition 1 T1; it still writes a signed bundle that verifies.
func TestReplayCLIDifferent(t *testing.T) {
	img := cliImage(t)
	key, pub := runTestKey(t)
	var answer atomic.Value
	answer.Store("ok")
	var asked atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		fmt.Fprint(w, answer.Load().(string))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	pkg := e2etest.CounterFixture(t, "../../testdata/plugins/unstable", ln.Addr().String())

	dir := t.TempDir()
	orig := filepath.Join(dir, "unstable"+manifest.BundleSuffix)
	code, _, errs := timedCLI(t, "original", "run", pkg, "--image", img, "--signing-key", key, "--t1-workspace-root", "--repeat", "1", "--out", orig)
	if code != ExitOK || asked.Load() != 1 {
		t.Fatalf("original: exit %d, counter asked %d times; want %d (pass), once\n%s", code, asked.Load(), ExitOK, errs)
	}

	answer.Store("fail")
	out := filepath.Join(dir, "unstable.replay"+manifest.BundleSuffix)
	code, stdout, errs := timedCLI(t, "replay", "replay", orig, "--key", pub, "--signing-key", key, "--package-file", pkg, "--out", out, "--json")
	if code != ExitFindings {
		t.Fatalf("replay: exit %d, want %d (DIFFERENT)\nstdout %s\nstderr %s", code, ExitFindings, stdout, errs)
	}
	if asked.Load() != 2 {
		t.Errorf("counter asked %d times, want 2", asked.Load())
	}
	r := decodeReplay(t, stdout)
	c := r.Comparison
	if r.Outcome != compare.Different || c == nil {
		t.Fatalf("outcome %s, want %s:\n%s", r.Outcome, compare.Different, stdout)
	}
	if c.FirstDifferent != "repetition 1 T1" || c.OldVerdict != "pass" || c.NewVerdict != "install_failed" {
		t.Errorf("first different %q, verdict %s → %s; want repetition 1 T1, pass → install_failed", c.FirstDifferent, c.OldVerdict, c.NewVerdict)
	}
	if len(c.Rows) == 0 || c.Rows[0].Stage != "T1" || c.Rows[0].Same || c.Rows[0].NewVerdict != "install_failed" {
		t.Errorf("first row %+v", c.Rows)
	}
	if !strings.Contains(strings.Join(c.Diff, "\n"), "counter answered fail") {
		t.Errorf("the diff does not show the postinstall's output:\n%s", strings.Join(c.Diff, "\n"))
	}
	if r.Written == nil || r.Written.Path != out {
		t.Fatalf("written %+v", r.Written)
	}
	code, vout, verrs := runRunCLI(t, "verify", out, "--key", pub)
	if code != 0 || !strings.Contains(vout, "claimed install_failed, re-derived install_failed") {
		t.Errorf("verify of the replay: exit %d\n%s\n%s", code, vout, verrs)
	}
}

// emptyPodmanStore makes a podman storage configuration whose graph root
// and run root are new, empty directories, and sets
// CONTAINERS_STORAGE_CONF to it for the rest of the test (podman honours
// it: every podman the engine runs then sees that store only). The
// shared store and its sandbox image are not touched. Cleanup removes
// every container and image of that store, then the directories.
func emptyPodmanStore(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	conf := filepath.Join(root, "storage.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("[storage]\ndriver = \"overlay\"\ngraphroot = %q\nrunroot = %q\n",
		filepath.Join(root, "graph"), filepath.Join(root, "run"))), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, args := range [][]string{{"rm", "-a", "-f"}, {"rmi", "-a", "-f"}} {
			cmd := exec.Command("podman", args...)
			cmd.Env = append(os.Environ(), "CONTAINERS_STORAGE_CONF="+conf)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("podman %s in the test store: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
	})
	t.Setenv("CONTAINERS_STORAGE_CONF", conf)
	out, err := exec.Command("podman", "info", "--format", "{{.Store.GraphRoot}}").Output()
	if err != nil || strings.TrimSpace(string(out)) != filepath.Join(root, "graph") {
		t.Fatalf("podman does not use the test store %s: %q %v", conf, out, err)
	}
	return conf
}

// TestReplayCLIYearOld is the year-old case of the replay issue. The
// author built the sandbox image and attached it to the release as an
// OCI archive (`dshaudit image build --oci-archive`, from the cache
// scripts/setup.sh filled: the same digest as the image in podman), and
// published it in a registry (a go-containerregistry registry on
// 127.0.0.1, so the bundle names it: 127.0.0.1:PORT/dsh-sandbox). The
// original runs the pass fixture against it.
//
// A year later the registry is gone (the server is closed) and the
// engine never held the image: the replay runs against a new, empty
// podman store (CONTAINERS_STORAGE_CONF; the shared store and its image,
// which other tests use, are left alone — podman's lookup by digest
// ignores the name, so a name change alone would not hide it). There:
//
//   - --image-from registry: the registry is down → COULD-NOT-RUN, exit 3;
//   - --image-from engine: the engine lacks the digest → COULD-NOT-RUN, exit 3;
//   - --image-from oci-archive:FILE, the bundle and that archive alone →
//     REPRODUCED, exit 0, and the new bundle verifies.
//
// Exit 3 is distinct from DIFFERENT's 1 (TestReplayCLIDifferent). Last,
// another package than the recorded subject is refused (exit 1), and a
// copy of the original with one evidence byte changed is refused (exit
// 1, "does not verify") before anything runs.
func TestReplayCLIYearOld(t *testing.T) {
	img := cliImage(t)
	pinned, err := engine.ParsePinned(img)
	if err != nil {
		t.Fatal(err)
	}
	key, pub := runTestKey(t)
	dir := t.TempDir()
	pass, err := filepath.Abs("../../testdata/plugins/pass")
	if err != nil {
		t.Fatal(err)
	}

	// The author's artefacts: an OCI archive and a layout of the image.
	archive, lay := publishSandbox(t, img, dir)

	// The registry the author published it in.
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	repo := host + "/dsh-sandbox"
	tag := "0.1.0-rc.8"
	if pinned.Tag != "" {
		tag = pinned.Tag
	}
	lp, err := layout.FromPath(lay)
	if err != nil {
		t.Fatal(err)
	}
	im, err := lp.Image(v1.Hash{Algorithm: pinned.Digest.Algorithm, Hex: pinned.Digest.Hex})
	if err != nil {
		t.Fatal(err)
	}
	tagRef, err := name.ParseReference(repo+":"+tag, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := remote.Write(tagRef, im); err != nil {
		t.Fatalf("push to the loopback registry: %v", err)
	}
	digestRef, err := name.NewDigest(repo+"@"+pinned.Digest.String(), name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	if desc, err := remote.Get(digestRef); err != nil || desc.Digest.String() != pinned.Digest.String() {
		t.Fatalf("the registry does not serve %s: %v", digestRef, err)
	}
	t.Logf("pushed to %s in %.1fs", repo, time.Since(start).Seconds())
	published := repo + ":" + tag + "@" + pinned.Digest.String()

	// The original.
	orig := filepath.Join(dir, "pass"+manifest.BundleSuffix)
	code, _, errs := timedCLI(t, "original", "run", pass, "--image", published, "--pull", "--insecure-loopback-registry",
		"--signing-key", key, "--t1-workspace-root", "--repeat", "1", "--out", orig)
	if code != ExitOK {
		t.Fatalf("original: exit %d, want %d (pass)\n%s", code, ExitOK, errs)
	}
	// The pass fixture's real bundle: its verification summary passes the
	// anchors' tools (SPEC.md "Verification summary").
	checkSummaryAnchors(t, orig, pub, "pkg:npm/dshaudit-fixture-pass@1.0.0")

	// A year later: the registry is gone, the engine never had the image.
	srv.Close()
	if _, err := remote.Get(digestRef); err == nil {
		t.Fatal("the registry still answers")
	}
	emptyPodmanStore(t)
	if out, err := exec.Command("podman", "images", "-q").Output(); err != nil || strings.TrimSpace(string(out)) != "" {
		t.Fatalf("the test store is not empty: %q %v", out, err)
	}
	if out, err := exec.Command("podman", "image", "inspect", img).CombinedOutput(); err == nil {
		t.Fatalf("the test store has %s:\n%s", img, out)
	}

	out := filepath.Join(dir, "pass.replay"+manifest.BundleSuffix)
	for _, tc := range []struct{ from, why string }{
		{"registry", engine.ErrRegistryUnreachable.Error()},
		{"engine", engine.ErrImageNotFound.Error()},
	} {
		args := []string{"replay", orig, "--key", pub, "--signing-key", key, "--package-file", pass, "--out", out, "--json", "--image-from", tc.from}
		if tc.from == "registry" {
			args = append(args, "--insecure-loopback-registry")
		}
		code, stdout, errs := timedCLI(t, "replay --image-from "+tc.from, args...)
		if code != ExitCouldNotRun {
			t.Errorf("--image-from %s: exit %d, want %d\nstdout %s\nstderr %s", tc.from, code, ExitCouldNotRun, stdout, errs)
			continue
		}
		r := decodeReplay(t, stdout)
		if r.Outcome != compare.CouldNotRun || !strings.Contains(r.Why, tc.why) || !strings.Contains(r.Why, pinned.Digest.String()) || r.Comparison != nil {
			t.Errorf("--image-from %s: outcome %s why %q, want %s naming %q and the digest", tc.from, r.Outcome, r.Why, compare.CouldNotRun, tc.why)
		}
		assertAbsent(t, out)
	}

	// No --package-file: the package is the tarball the original holds
	// (SPEC.md "The tested tarball"), so a year-old replay needs no copy.
	code, stdout, errs := timedCLI(t, "replay --image-from oci-archive", "replay", orig, "--key", pub, "--signing-key", key,
		"--out", out, "--image-from", "oci-archive:"+archive)
	if code != ExitOK || !strings.Contains(stdout, "\nRESULT: REPRODUCED\n") || !strings.Contains(stdout, "fingerprints equal: true") {
		t.Fatalf("replay from the archive: exit %d, want %d (REPRODUCED)\nstdout %s\nstderr %s", code, ExitOK, stdout, errs)
	}
	t.Logf("replay output:\n%s", stdout)
	if strings.Contains(stdout, "condition changed: variable condition "+compare.ConditionReplayOf) {
		t.Error("the replay's own marker is listed as a changed condition")
	}
	// The replay put the image, by its digest, in the store that lacked it.
	if out, err := exec.Command("podman", "image", "inspect", "--format", "{{.Digest}}", img).Output(); err != nil || strings.TrimSpace(string(out)) != pinned.Digest.String() {
		t.Errorf("test store after the replay: %q %v, want the image %s", out, err, pinned.Digest)
	}
	code, vout, verrs := runRunCLI(t, "verify", out, "--key", pub)
	if code != 0 || !strings.Contains(vout, "claimed pass, re-derived pass") {
		t.Errorf("verify of the replay: exit %d\n%s\n%s", code, vout, verrs)
	}

	// Another package than the one the original tested: exit 1, said on
	// stderr, no bundle.
	other, err := filepath.Abs("../../testdata/plugins/boot-failed")
	if err != nil {
		t.Fatal(err)
	}
	out3 := filepath.Join(dir, "other.replay"+manifest.BundleSuffix)
	code, stdout, errs = timedCLI(t, "replay with another package", "replay", orig, "--key", pub, "--signing-key", key,
		"--package-file", other, "--out", out3, "--image-from", "engine")
	if code != ExitFindings || !strings.Contains(errs, replay.ErrSubjectMismatch.Error()) {
		t.Errorf("another package: exit %d, want %d naming %q\nstdout %s\nstderr %s", code, ExitFindings, replay.ErrSubjectMismatch, stdout, errs)
	}
	assertAbsent(t, out3)

	// An edited original is refused before anything runs: exit 1.
	raw, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	bad := editEvidenceByte(t, raw, "repetitions/1/T1/stdout")
	edited := filepath.Join(dir, "edited"+manifest.BundleSuffix)
	if err := os.WriteFile(edited, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(dir, "edited.replay"+manifest.BundleSuffix)
	code, stdout, errs = timedCLI(t, "replay of an edited original", "replay", edited, "--key", pub, "--signing-key", key,
		"--package-file", pass, "--out", out2, "--image-from", "oci-archive:"+archive)
	if code != ExitFindings || !strings.Contains(errs, "does not verify") || !strings.Contains(errs, "nothing was run") {
		t.Errorf("edited original: exit %d, want %d\nstdout %s\nstderr %s", code, ExitFindings, stdout, errs)
	}
	assertAbsent(t, out2)
}

func editEvidenceByte(t *testing.T, raw []byte, path string) []byte {
	return e2etest.EditEvidenceByte(t, raw, path)
}
