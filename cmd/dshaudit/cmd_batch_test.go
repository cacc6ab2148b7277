package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/batch"
	"github.com/dshaudit/dshaudit/internal/testutil/e2etest/sandbox"
)

func runBatchCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = execute(context.Background(), append([]string{"batch"}, args...), strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func batchKey(t *testing.T) string {
	priv, _, err := attest.GenerateKey(attest.Ed25519)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "k.key")
	if err := os.WriteFile(p, priv, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const batchImage = "localhost/dsh-sandbox:x@sha256:0000000000000000000000000000000000000000000000000000000000000000"

func TestBatchPlanLineNotASpec(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.txt")
	os.WriteFile(plan, []byte("# plan\nok-plugin@1.0.0\nhttps://example.com/x.tgz\nnot a spec\n"), 0o644)
	code, _, stderr := runBatchCLI(t, "", plan, "--image", batchImage, "--signing-key", batchKey(t), "--out", filepath.Join(dir, "out"))
	if code != ExitUsage {
		t.Fatalf("exit %d, want 2; stderr %s", code, stderr)
	}
	for _, want := range []string{plan + ":3: not a package spec", plan + ":4: not a package spec"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not name %q:\n%s", want, stderr)
		}
	}
}

func TestBatchPlanFromStdin(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runBatchCLI(t, "\n# only comments\n", "-", "--image", batchImage, "--signing-key", batchKey(t), "--out", dir)
	if code != ExitUsage || !strings.Contains(stderr, "stdin lists no package spec") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
}

func TestBatchUsageErrors(t *testing.T) {
	key := batchKey(t)
	out := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no image", []string{"x@1.0.0", "--signing-key", key, "--out", out}, "--image NAME@sha256:DIGEST, --signing-key KEY and --out DIR are required"},
		{"tag only", []string{"x@1.0.0", "--image", "dsh-sandbox:1", "--signing-key", key, "--out", out}, "a tag can be overwritten"},
		{"bad engine", []string{"x@1.0.0", "--image", batchImage, "--signing-key", key, "--out", out, "--on", "kubernetes"}, `--on "kubernetes": want local or slurm`},
		{"bad key", []string{"x@1.0.0", "--image", batchImage, "--signing-key", filepath.Join(out, "none.key"), "--out", out}, "--signing-key: "},
		{"repeat 0", []string{"x@1.0.0", "--image", batchImage, "--signing-key", key, "--out", out, "--repeat", "0"}, "--repeat must be at least 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runBatchCLI(t, "", c.args...)
			if code != ExitUsage || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr, c.want)
			}
		})
	}
}

// TestBatchTrustKey: batch verifies what it finds in --out and what its
// tasks write with verify's trust flags. With --signing-key the trusted
// key is its public half, and a --key given must be that half; with
// --keyless, --key is refused (keyless bundles verify with a trusted
// root). Each accepted case stops at a later usage error (--repeat 0),
// so the keys were read and agreed.
func TestBatchTrustKey(t *testing.T) {
	key, pub := runTestKey(t)
	_, otherPub := runTestKey(t)
	out := t.TempDir()
	base := []string{"x@1.0.0", "--image", batchImage, "--out", out}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"key is the public half", []string{"--signing-key", key, "--key", pub, "--repeat", "0"}, "--repeat must be at least 1"},
		{"key is another key", []string{"--signing-key", key, "--key", otherPub}, "is not the public half of --signing-key"},
		{"key unreadable", []string{"--signing-key", key, "--key", filepath.Join(out, "none.pub")}, "usage error: --key: "},
		{"key with keyless", []string{"--keyless", "--identity-token", pub, "--key", pub}, "--key verifies key-signed bundles"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runBatchCLI(t, "", append(slices.Clone(base), c.args...)...)
			if code != ExitUsage || stdout != "" || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 2 and %q", code, stdout, stderr, c.want)
			}
			if strings.Contains(stderr, "deprecated") {
				t.Errorf("--key with --signing-key or --keyless is the trusted key, not the old spelling: %q", stderr)
			}
		})
	}
}

func TestBatchTaskArgsAreTheRunFlagsGiven(t *testing.T) {
	o := &batchOptions{}
	if err := batchCommand(o, &streams{}).ParseFlags([]string{"--repeat", "1", "--t1-workspace-root", "--window=15s", "--registry", "http://127.0.0.1:1/", "--on", "slurm", "--retries", "4"}); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(o.taskArgs(), " ")
	want := "--registry=http://127.0.0.1:1/ --repeat=1 --t1-workspace-root=true --window=15s"
	if got != want {
		t.Fatalf("task args %q, want %q (batch's own flags never reach the run)", got, want)
	}
}

// TestBatchLocalMissingImage: with --on local the image is checked once,
// on this machine, before any task: a missing image is exit 3 naming it.
// Real podman (e2etest fails the test when it is missing).
func TestBatchLocalMissingImage(t *testing.T) {
	sandbox.Setup(t)
	dir := t.TempDir()
	code, stdout, stderr := runBatchCLI(t, "", "../../testdata/plugins/pass", "--image", batchImage, "--signing-key", batchKey(t), "--out", dir)
	if code != ExitCouldNotRun || !strings.Contains(stderr, "image "+batchImage) || !strings.Contains(stderr, "not found") {
		t.Fatalf("exit %d, stderr %q; want 3 naming the image", code, stderr)
	}
	if stdout != "" {
		t.Fatalf("stdout %q, want nothing", stdout)
	}
}

// TestBatchExitCodesAreTheCommands: package batch reads the exit codes a
// task's `dshaudit run` ends with; they are this command's.
func TestBatchExitCodesAreTheCommands(t *testing.T) {
	if batch.ExitOK != ExitOK || batch.ExitFindings != ExitFindings || batch.ExitUsage != ExitUsage ||
		batch.ExitCouldNotRun != ExitCouldNotRun || batch.ExitInterrupted != ExitInterrupted {
		t.Fatal("batch's exit codes differ from cmd/dshaudit/exitcodes.go")
	}
}
