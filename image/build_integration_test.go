package image

// End-to-end tests with real parts: the npm registry, pnpm, the Debian
// mirror and mmdebstrap (when the base layer is not cached) and podman
// with runc. They run under DSHAUDIT_E2E=1 and then fail, never skip, when
// a part is missing: run scripts/setup.sh first.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
)

type logWriter struct{ t testing.TB }

func (w logWriter) Write(p []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if strings.HasPrefix(l, "image:") {
			w.t.Log(l)
		}
	}
	return len(p), nil
}

// TestUnpublishedDshVersion: the DSHIO baseline is not published here; the
// build says so, naming what to do.
func TestUnpublishedDshVersion(t *testing.T) {
	e2etest.Require(t)
	_, err := Build(context.Background(), Options{CacheDir: e2etest.CacheDir(), DshVersion: "0.2.2-rc.1", Log: logWriter{t}})
	if err == nil {
		t.Fatal("built an unpublished dsh")
	}
	if !strings.Contains(err.Error(), "0.2.2-rc.1") || !strings.Contains(err.Error(), "--dsh-version") {
		t.Fatalf("error does not name the version and the way out: %v", err)
	}
	if !errors.Is(err, ErrVersionNotPublished) {
		t.Fatalf("error class: %v", err)
	}
	t.Log(err)
}

var podmanRunLimits = []string{"--runtime", "runc", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"}

func podman(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("podman", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// TestImageRunsAndBootsInPodman loads the built image into podman by
// digest, checks `dsh --version` prints the version built in, and that
// `dsh --profile web --no-open` with no network serves and stays alive
// 12 s (DSHIO/T 21 5.1.6).
func TestImageRunsAndBootsInPodman(t *testing.T) {
	e2etest.Require(t, "podman")
	ctx := context.Background()
	r, err := Build(ctx, Options{CacheDir: e2etest.CacheDir(), Log: logWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	// A name of its own, so the load really happens (podman may already
	// hold the default name) and other users of the default are untouched.
	name := fmt.Sprintf("localhost/dshaudit-image-test:%d", time.Now().UnixNano())
	defer podman(t, "rmi", name)
	archive := filepath.Join(t.TempDir(), "image.oci.tar")
	t0 := time.Now()
	if err := WriteArchive(archive, r.Image, name); err != nil {
		t.Fatal(err)
	}
	if err := LoadPodman(ctx, archive, name, r.Digest); err != nil {
		t.Fatal(err)
	}
	t.Logf("archive + load into podman: %.1fs", time.Since(t0).Seconds())
	ref := "localhost/dshaudit-image-test@" + r.Digest.String()

	out, err := podman(t, append(append([]string{"run", "--rm", "--network", "none"}, podmanRunLimits...), ref, "dsh", "--version")...)
	if err != nil {
		t.Fatalf("podman run dsh --version: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(out); got != DefaultDshVersion {
		t.Fatalf("dsh --version printed %q, want %q", got, DefaultDshVersion)
	}
	out, err = podman(t, append(append([]string{"run", "--rm", "--network", "none"}, podmanRunLimits...), ref, "sh", "-c", "pnpm --version; node --version; cat /opt/dshaudit/inputs.json")...)
	if err != nil || !strings.Contains(out, DefaultPNPMVersion+"\nv"+DefaultNodeVersion+"\n") || !strings.Contains(out, r.Inputs.Resolution.LockfileSHA256) {
		t.Fatalf("pnpm/node/inputs in the image: %v\n%s", err, out)
	}

	home := t.TempDir()
	cname := fmt.Sprintf("dshaudit-image-test-%d", time.Now().UnixNano())
	args := append([]string{"run", "-d", "--name", cname, "--network", "none", "-v", home + ":" + ImageDshHome}, podmanRunLimits...)
	args = append(args, ref, "dsh", "--profile", "web", "--no-open")
	if out, err := podman(t, args...); err != nil {
		t.Fatalf("podman run dsh --profile web: %v\n%s", err, out)
	}
	defer func() {
		if out, err := podman(t, "rm", "-f", "-t", "0", cname); err != nil {
			t.Errorf("remove container %s: %v\n%s", cname, err, out)
		}
	}()
	deadline := time.Now().Add(90 * time.Second)
	var logs string
	for {
		logs, _ = podman(t, "logs", cname)
		if strings.Contains(logs, "dsh web: http://") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no \"dsh web: http://\" within 90 s; logs:\n%s", logs)
		}
		if st, _ := podman(t, "inspect", "-f", "{{.State.Running}}", cname); strings.TrimSpace(st) != "true" {
			t.Fatalf("dsh exited before serving; logs:\n%s", logs)
		}
		time.Sleep(500 * time.Millisecond)
	}
	served := time.Now()
	time.Sleep(12 * time.Second)
	st, _ := podman(t, "inspect", "-f", "{{.State.Running}} {{.State.ExitCode}}", cname)
	logs, _ = podman(t, "logs", cname)
	if !strings.HasPrefix(strings.TrimSpace(st), "true") {
		t.Fatalf("dsh did not stay alive 12 s after serving (state %q); logs:\n%s", st, logs)
	}
	t.Logf("dsh %s served and stayed alive %.1fs with --network none; first log lines:\n%s", DefaultDshVersion, time.Since(served).Seconds(), head(logs, 5))
	if _, err := os.Stat(filepath.Join(home, "profiles", "web", "package.json")); err != nil {
		t.Errorf("profile not created in the DSH_HOME mount: %v", err)
	}
}

func head(s string, n int) string {
	ls := strings.Split(s, "\n")
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, "\n")
}

// BenchmarkBuildCached measures a build whose inputs are all cached
// (input pinning against the registry, rootfs diffID, cache lookup).
func BenchmarkBuildCached(b *testing.B) {
	e2etest.Require(b)
	ctx := context.Background()
	o := Options{CacheDir: e2etest.CacheDir()}
	r, err := Build(ctx, o)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Build(ctx, o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(r.Size)/(1<<20), "MiB-compressed")
	b.ReportMetric(float64(r.UncompressedSize)/(1<<20), "MiB-uncompressed")
}
