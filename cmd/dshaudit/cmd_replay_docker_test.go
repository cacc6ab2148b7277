package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
	"github.com/dshaudit/dshaudit/manifest"
)

// dockerForTest returns the docker engine (scripts/test.sh starts a daemon
// of its own with scripts/setup-docker.sh and exports DOCKER_HOST), or
// fails the test: docker is a real part of these tests, never skipped.
func dockerForTest(t *testing.T) *engine.CLI {
	t.Helper()
	e2etest.Require(t, "docker")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := engine.Detect(ctx, "docker")
	if err != nil {
		t.Fatalf("this test needs a docker daemon (sh scripts/setup-docker.sh start; export DOCKER_HOST=unix:///run/dshaudit-docker.sock): %v", err)
	}
	return d
}

// TestDockerRunAndReplayFromArchive is the docker user's path with a
// published OCI archive and no registry: `run --engine docker
// --image-archive FILE` of the pass fixture gives pass; then docker loses
// the image (docker rmi, as on another machine a year later), and
// `replay --engine docker --image-from oci-archive:FILE` from the bundle
// and the archive alone gives REPRODUCED, and the replay bundle verifies.
// docker 20.10 cannot load OCI archives: dshaudit writes the verified
// image as a docker-archive and checks docker's image ID against the
// config digest of the pinned manifest.
func TestDockerRunAndReplayFromArchive(t *testing.T) {
	d := dockerForTest(t)
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
	archive, _ := publishSandbox(t, img, dir)
	ctx := context.Background()
	loaded, err := d.EnsureImage(ctx, img, engine.FromOCIArchive(archive))
	if err != nil {
		t.Fatalf("load into docker: %v", err)
	}
	removeDockerImage := func() {
		out, err := exec.Command("docker", "rmi", "--force", loaded.ID).CombinedOutput()
		if err != nil && !strings.Contains(string(out), "No such image") {
			t.Fatalf("docker rmi %s: %v\n%s", loaded.ID, err, out)
		}
	}
	removeDockerImage()
	t.Cleanup(removeDockerImage)

	orig := filepath.Join(dir, "pass"+manifest.BundleSuffix)
	code, runOut, errs := timedCLI(t, "run --engine docker", "run", pass, "--engine", "docker", "--image", img, "--image-archive", archive,
		"--signing-key", key, "--t1-workspace-root", "--repeat", "1", "--out", orig)
	if code != ExitOK {
		t.Fatalf("run --engine docker: exit %d, want %d (pass)\nstdout %s\nstderr %s", code, ExitOK, runOut, errs)
	}
	code, vout, verrs := runRunCLI(t, "verify", orig, "--key", pub)
	if code != 0 || !strings.Contains(vout, "claimed pass, re-derived pass") {
		t.Errorf("verify of the docker run: exit %d\n%s\n%s", code, vout, verrs)
	}

	removeDockerImage() // another machine: docker never had the image
	if out, err := exec.Command("docker", "image", "inspect", loaded.ID).CombinedOutput(); err == nil {
		t.Fatalf("docker still has %s:\n%s", loaded.ID, out)
	}
	out := filepath.Join(dir, "pass.replay"+manifest.BundleSuffix)
	code, stdout, errs := timedCLI(t, "replay --engine docker --image-from oci-archive", "replay", orig, "--engine", "docker", "--key", pub, "--signing-key", key,
		"--package-file", pass, "--out", out, "--image-from", "oci-archive:"+archive)
	if code != ExitOK || !strings.Contains(stdout, "\nRESULT: REPRODUCED\n") {
		t.Fatalf("replay from the archive on docker: exit %d, want %d (REPRODUCED)\nstdout %s\nstderr %s", code, ExitOK, stdout, errs)
	}
	t.Logf("replay output:\n%s", stdout)
	if id, err := exec.Command("docker", "image", "inspect", "--format", "{{.Id}}", loaded.ID).Output(); err != nil || strings.TrimSpace(string(id)) != "sha256:"+loaded.ID {
		t.Errorf("docker after the replay: %q %v, want image %s (config of %s)", id, err, loaded.ID, pinned.Digest)
	}
	code, vout, verrs = runRunCLI(t, "verify", out, "--key", pub)
	if code != 0 || !strings.Contains(vout, "claimed pass, re-derived pass") {
		t.Errorf("verify of the replay: exit %d\n%s\n%s", code, vout, verrs)
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
}
