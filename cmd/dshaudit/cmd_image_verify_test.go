package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/image"
	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
)

// TestImageVerifyCLI: the sandbox image written as an OCI archive verifies
// (exit 0: the rebuild from its recorded inputs has its digest); a copy
// with one file changed in one layer (the dsh wrapper in the last layer)
// is DIFFERENT (exit 1) naming that layer and that file with both sides'
// size, mode and sha256, and no other file. --cached reuses the layers
// this machine's cache built from the same inputs, so the test does not
// install dsh again; TestBuildHostIndependent covers full rebuilds.
func TestImageVerifyCLI(t *testing.T) {
	img := cliImage(t)
	pinned, err := engine.ParsePinned(img)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	archive, lay := publishSandbox(t, img, dir)
	code, out, errs := timedCLI(t, "image verify (same)", "image", "verify", img, "--oci-archive", archive, "--cache-dir", e2etest.CacheDir(), "--cached")
	if code != ExitOK || !strings.HasPrefix(out, "SAME "+pinned.Digest.String()) {
		t.Fatalf("image verify of the built image: exit %d\n%s\n%s", code, out, errs)
	}

	// One file changed in the last layer: the dsh wrapper.
	lp, err := layout.FromPath(lay)
	if err != nil {
		t.Fatal(err)
	}
	orig, err := lp.Image(pinned.Digest)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := orig.Layers()
	if err != nil {
		t.Fatal(err)
	}
	changed := editedLayer(t, ls[len(ls)-1], "usr/local/bin/dsh", "#!/bin/sh\necho not dsh\n")
	cf, err := orig.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	bad, err := mutate.AppendLayers(emptyOCI(), append(ls[:len(ls)-1:len(ls)-1], changed)...)
	if err != nil {
		t.Fatal(err)
	}
	if bad, err = mutate.ConfigFile(bad, withDiffIDs(t, cf, bad)); err != nil {
		t.Fatal(err)
	}
	badDigest, err := bad.Digest()
	if err != nil {
		t.Fatal(err)
	}
	badLay := filepath.Join(dir, "bad-layout")
	if err := image.WriteLayout(badLay, bad, "localhost/dsh-sandbox-tampered:1"); err != nil {
		t.Fatal(err)
	}
	badRef := "localhost/dsh-sandbox-tampered:1@" + badDigest.String()
	code, out, errs = timedCLI(t, "image verify (one file changed)", "image", "verify", badRef, "--oci-layout", badLay, "--cache-dir", e2etest.CacheDir(), "--cached", "--json")
	if code != ExitFindings {
		t.Fatalf("tampered image: exit %d, want %d\n%s\n%s", code, ExitFindings, out, errs)
	}
	var res imageVerifyResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Same || res.Rebuilt != pinned.Digest.String() || len(res.Layers) != 1 || res.Layers[0].Index != len(ls)-1 {
		t.Fatalf("result %+v, want one differing layer (the last), rebuilt %s", res, pinned.Digest)
	}
	fs := res.Layers[0].Files
	if len(fs) != 1 || fs[0].Path != "usr/local/bin/dsh" || fs[0].Given == nil || fs[0].Rebuilt == nil || fs[0].Given.SHA256 == fs[0].Rebuilt.SHA256 {
		t.Fatalf("files %+v, want only usr/local/bin/dsh with both sides", fs)
	}
	code, text, _ := runRunCLI(t, "image", "verify", badRef, "--oci-layout", badLay, "--cache-dir", e2etest.CacheDir(), "--cached")
	if code != ExitFindings || !strings.Contains(text, "DIFFERENT") || !strings.Contains(text, `"usr/local/bin/dsh"`) || !strings.Contains(text, "sha256 "+fs[0].Given.SHA256) {
		t.Fatalf("text output: exit %d\n%s", code, text)
	}
	t.Logf("verify of the tampered image:\n%s", text)

	// The archive does not hold another digest: a usage error.
	other := "localhost/dsh-sandbox:x@sha256:" + strings.Repeat("5", 64)
	if code, _, errs := runRunCLI(t, "image", "verify", other, "--oci-archive", archive); code != ExitUsage || !strings.Contains(errs, strings.Repeat("5", 64)) {
		t.Errorf("archive without the pinned digest: exit %d\n%s", code, errs)
	}
}

// publishSandbox writes the sandbox image img as an author publishes it,
// an OCI archive and an OCI layout in dir, with `image build` from the
// cache scripts/setup.sh filled (so the same digest as img).
func publishSandbox(t *testing.T, img, dir string) (archive, lay string) {
	t.Helper()
	archive = filepath.Join(dir, "dsh-sandbox.oci.tar")
	lay = filepath.Join(dir, "dsh-sandbox.oci")
	p, err := engine.ParsePinned(img)
	if err != nil {
		t.Fatal(err)
	}
	code, built, errs := timedCLI(t, "image build", "image", "build", "--cache-dir", e2etest.CacheDir(), "--name", p.Tagged(), "--oci-archive", archive, "--oci-layout", lay)
	if code != ExitOK || strings.TrimSpace(built) != img {
		t.Fatalf("image build: exit %d, built %q; the sandbox image is %s (run scripts/setup.sh)\n%s", code, built, img, errs)
	}
	return archive, lay
}

func emptyOCI() v1.Image {
	return mutate.MediaType(mutate.ConfigMediaType(empty.Image, types.OCIConfigJSON), types.OCIManifestSchema1)
}

// editedLayer is l with the file at path replaced by content (0755, root),
// every other entry as it was, written by the image package's tar rules.
func editedLayer(t *testing.T, l v1.Layer, path, content string) v1.Layer {
	t.Helper()
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	dir := t.TempDir()
	spool, err := os.Create(filepath.Join(dir, "spool"))
	if err != nil {
		t.Fatal(err)
	}
	defer spool.Close()
	tr := image.NewTree()
	if err := tr.AddTar(rc, spool, image.DirOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := tr.AddFile(path, 0o755, []byte(content)); err != nil {
		t.Fatal(err)
	}
	li, err := image.WriteLayerFile(tr, filepath.Join(dir, "layer.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	nl, err := li.Layer()
	if err != nil {
		t.Fatal(err)
	}
	return nl
}

// withDiffIDs is the original config with the rootfs diffIDs of img.
func withDiffIDs(t *testing.T, cf *v1.ConfigFile, img v1.Image) *v1.ConfigFile {
	t.Helper()
	got, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.DeepCopy()
	c.RootFS = got.RootFS
	return c
}
