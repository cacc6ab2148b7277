package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
	"github.com/dshaudit/dshaudit/internal/testutil/schematest"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/runner"
)

func runRunCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = execute(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func runTestKey(t *testing.T) (priv, pub string) {
	t.Helper()
	dir := t.TempDir()
	if code, _, errs := runRunCLI(t, "key", "generate", "--out-dir", dir, "--name", "k"); code != 0 {
		t.Fatalf("key generate: %d %s", code, errs)
	}
	return filepath.Join(dir, "k.key"), filepath.Join(dir, "k.pub")
}

const fakePinned = "localhost/x:1@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestRunUsageErrors(t *testing.T) {
	key, _ := runTestKey(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unpinned image", []string{"run", "./x", "--image", "localhost/x:1", "--signing-key", key}, "sha256"},
		{"no image", []string{"run", "./x", "--signing-key", key}, "--image"},
		{"no key", []string{"run", "./x", "--image", fakePinned}, "--signing-key is required"},
		{"bad key", []string{"run", "./x", "--image", fakePinned, "--signing-key", "/nonexistent"}, "--signing-key: "},
		{"two specs", []string{"run", "a", "b", "--image", fakePinned, "--signing-key", key}, "exactly one"},
		{"out dir missing", []string{"run", "./x", "--image", fakePinned, "--signing-key", key, "--out", "/nonexistent/dir/b.tar.zst"}, "not writable"},
		{"bad progress", []string{"run", "./x", "--image", fakePinned, "--signing-key", key, "--progress", "sometimes"}, "--progress"},
	} {
		code, out, errs := runRunCLI(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout %q; want exit %d mentioning %q", tc.name, code, errs, out, ExitUsage, tc.want)
		}
	}
}

// TestRunEngineMissing: docker's client is installed here but no daemon
// runs, so the docker engine cannot be used: exit 3, no bundle.
func TestRunEngineMissing(t *testing.T) {
	// scripts/test.sh runs a docker daemon for the docker tests: point the
	// client at a socket where none listens.
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no-docker.sock"))
	key, _ := runTestKey(t)
	out := filepath.Join(t.TempDir(), "b.dshaudit.tar.zst")
	code, _, errs := runRunCLI(t, "run", "../../testdata/plugins/pass", "--image", fakePinned, "--signing-key", key, "--engine", "docker", "--out", out)
	if code != ExitCouldNotRun || !strings.Contains(errs, "engine") {
		t.Errorf("exit %d stderr %q, want %d naming the engine", code, errs, ExitCouldNotRun)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a bundle was written")
	}
}

// cliImage is the sandbox image scripts/setup.sh builds; missing is a
// failure.
func cliImage(t *testing.T) string { return e2etest.SandboxImage(t) }

// TestRunCLIEndToEnd runs the install-failed fixture for real through the
// CLI with --json, then verifies the bundle with `dshaudit verify`.
func TestRunCLIEndToEnd(t *testing.T) {
	img := cliImage(t)
	key, pub := runTestKey(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "if.dshaudit.tar.zst")
	code, stdout, errs := runRunCLI(t, "run", "../../testdata/plugins/install-failed", "--image", img, "--signing-key", key,
		"--t1-workspace-root", "--repeat", "1", "--out", out, "--json")
	if code != ExitFindings {
		t.Fatalf("exit %d, want %d (bundle written, verdict not pass); stderr:\n%s", code, ExitFindings, errs)
	}
	schematest.Validate(t, "run-result", []byte(stdout))
	var sum runner.Summary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("--json output: %v\n%s", err, stdout)
	}
	if sum.MediaType != runner.SummaryMediaType || sum.SchemaVersion != 1 || sum.Verdict != "install_failed" || sum.Usable {
		t.Errorf("summary %+v", sum)
	}
	if len(sum.Deviations) != 3 || sum.Bundle != out || !strings.HasPrefix(sum.BundleSHA256, "sha256:") {
		t.Errorf("deviations %+v bundle %q %q", sum.Deviations, sum.Bundle, sum.BundleSHA256)
	}
	if len(sum.Repetitions) != 1 || sum.Repetitions[0].Stages[0].Status != "failed" || sum.Repetitions[0].Stages[1].Status != "not_executed" {
		t.Errorf("stage table %+v", sum.Repetitions)
	}
	if !strings.Contains(sum.Repetitions[0].Stages[0].FirstError, "nonexistent-pkg-dshaudit-xyz") {
		t.Errorf("first_error %q does not name the missing dependency", sum.Repetitions[0].Stages[0].FirstError)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("files next to --out: %v", ents)
	}
	code, vout, verrs := runRunCLI(t, "verify", out, "--key", pub)
	if code != 0 || !strings.Contains(vout, "claimed install_failed, re-derived install_failed") {
		t.Errorf("verify: exit %d\n%s\n%s", code, vout, verrs)
	}
	// The declaration run prints is one its own bundle backs (a static
	// layer declaration: the dynamic layer failed).
	claimFile := filepath.Join(t.TempDir(), "README.md")
	os.WriteFile(claimFile, []byte("# plugin\n\n"+sum.Declaration), 0o644)
	code, vout, verrs = runRunCLI(t, "verify", out, "--key", pub, "--claim", claimFile)
	if code != 0 || !strings.Contains(sum.Declaration, "static layer only") || !strings.Contains(vout, "CLAIM: claim backed") {
		t.Errorf("declaration %q not backed: exit %d\n%s\n%s", sum.Declaration, code, vout, verrs)
	}
}

// TestRunCtrlC sends SIGINT to a real `dshaudit run` process in the middle
// of T1: it must exit 130 and leave no bundle, no temporary file next to
// --out and no container of the sandbox image.
func TestRunCtrlC(t *testing.T) {
	img := cliImage(t)
	key, _ := runTestKey(t)
	bin := filepath.Join(t.TempDir(), "dshaudit")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	imageID, err := exec.Command("podman", "image", "inspect", "--format", "{{.Id}}", img).Output()
	if err != nil {
		t.Fatalf("podman image inspect %s: %v", img, err)
	}
	containers := func() []string {
		out, err := exec.Command("podman", "ps", "-a", "--filter", "ancestor="+strings.TrimSpace(string(imageID)), "--format", "{{.Names}}").Output()
		if err != nil {
			t.Fatalf("podman ps: %v", err)
		}
		return strings.Fields(string(out))
	}
	before := map[string]bool{}
	for _, n := range containers() {
		before[n] = true
	}
	outDir := t.TempDir()
	cmd := exec.Command(bin, "run", "../../testdata/plugins/pass", "--image", img, "--signing-key", key,
		"--t1-workspace-root", "--out", filepath.Join(outDir, "b"+manifest.BundleSuffix), "--progress", "always")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var seen []string
	for sc.Scan() {
		seen = append(seen, sc.Text())
		if strings.Contains(sc.Text(), "repetition 1 T1 …") {
			time.Sleep(time.Second) // the T1 container is up
			cmd.Process.Signal(os.Interrupt)
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != ExitInterrupted {
		t.Errorf("exit %d (%v), want %d; stderr so far:\n%s", code, err, ExitInterrupted, strings.Join(seen, "\n"))
	}
	if ents, _ := os.ReadDir(outDir); len(ents) != 0 {
		t.Errorf("left next to --out: %v", ents)
	}
	for _, n := range containers() {
		if !before[n] {
			t.Errorf("container %s left behind", n)
		}
	}
}

// TestRunImageMissing: a pinned image the engine does not hold and no
// source to load it from: exit 3, before any fetching, no bundle.
func TestRunImageMissing(t *testing.T) {
	e2etest.Require(t, "podman")
	key, _ := runTestKey(t)
	out := filepath.Join(t.TempDir(), "b.dshaudit.tar.zst")
	code, _, errs := runRunCLI(t, "run", "../../testdata/plugins/pass", "--image", fakePinned, "--signing-key", key, "--out", out)
	if code != ExitCouldNotRun || !strings.Contains(errs, fakePinned) {
		t.Errorf("exit %d stderr %q, want %d naming the image", code, errs, ExitCouldNotRun)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a bundle was written")
	}
}

// TestRunUnresolvable: an unknown package is T0 "unresolvable": exit 1,
// the reason on stderr, no bundle (needs the registry npm is configured
// with and the sandbox image).
func TestRunUnresolvable(t *testing.T) {
	img := cliImage(t)
	key, _ := runTestKey(t)
	dir := t.TempDir()
	code, out, errs := runRunCLI(t, "run", "nonexistent-pkg-dshaudit-xyz@1.0.0", "--image", img, "--signing-key", key, "--out", filepath.Join(dir, "b"+manifest.BundleSuffix))
	if code != ExitFindings || !strings.Contains(errs, "unresolvable") || out != "" {
		t.Errorf("exit %d stdout %q stderr %q, want %d and unresolvable", code, out, errs, ExitFindings)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files written: %v", ents)
	}
}
