package engine

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// removeFromEngine makes sure the engine does not hold the image.
func removeFromEngine(t *testing.T, id string) {
	t.Helper()
	args := []string{"rmi", "--force", "--ignore", id}
	if testEngineName() == "docker" {
		args = []string{"rmi", "--force", id}
	}
	out, err := exec.Command(testEngineName(), args...).CombinedOutput()
	if err != nil && !strings.Contains(string(out), "No such image") {
		t.Fatalf("%s rmi %s: %v: %s", testEngineName(), id, err, out)
	}
}

func marker(t *testing.T, e *CLI, id string) string {
	t.Helper()
	res, err := e.Run(ctxT(t), RunSpec{Image: id, Argv: []string{"cat", "/marker"}, Timeout: time.Minute})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("cat /marker in %s: %v %+v", id, err, res)
	}
	return strings.TrimSpace(string(res.Stdout))
}

func digestOf(t *testing.T, img v1.Image) (v1.Hash, v1.Hash) {
	t.Helper()
	d, err := img.Digest()
	must(t, err)
	c, err := img.ConfigName()
	must(t, err)
	return d, c
}

func TestEnsureImageRefusesUnpinned(t *testing.T) {
	f := base(t)
	for _, ref := range []string{
		testRepo + ":base",
		testRepo,
		testRepo + "@sha512:" + strings.Repeat("a", 128),
		testRepo + "@sha256:abc",
	} {
		_, err := f.eng.EnsureImage(ctxT(t), ref, FromStore())
		if !errors.Is(err, ErrNotPinned) && !strings.Contains(fmtErr(err), "parse image reference") {
			t.Errorf("%q: %v, want ErrNotPinned or a parse error", ref, err)
		}
		if err == nil {
			t.Errorf("%q accepted", ref)
		}
	}
	if _, err := f.eng.EnsureImage(ctxT(t), testRepo+":base", FromOCIArchive(f.archive)); !errors.Is(err, ErrNotPinned) {
		t.Errorf("tag without digest from an archive: %v, want ErrNotPinned", err)
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestEnsureImageOCIArchive(t *testing.T) {
	f := base(t)
	img := buildTestImage(t, "archive")
	d, c := digestOf(t, img)
	dir := filepath.Join(t.TempDir(), "layout")
	writeLayout(t, dir, img)
	archive := filepath.Join(t.TempDir(), "img.oci.tar")
	writeArchive(t, dir, archive)
	removeFromEngine(t, c.Hex)

	// The wrong digest is refused before anything is loaded.
	_, err := f.eng.EnsureImage(ctxT(t), testRepo+":archive@"+f.digest.String(), FromOCIArchive(archive))
	var dm *DigestMismatchError
	if !errors.As(err, &dm) || !errors.Is(err, ErrDigestMismatch) {
		t.Fatalf("wrong digest: %v, want DigestMismatchError", err)
	}
	if !strings.Contains(err.Error(), f.digest.String()) || !strings.Contains(err.Error(), d.String()) {
		t.Errorf("mismatch error does not name both digests: %v", err)
	}
	if _, err := f.eng.inspectImage(ctxT(t), c.Hex); !errors.Is(err, ErrImageNotFound) {
		t.Errorf("image was loaded despite the mismatch: %v", err)
	}

	ref := testRepo + ":archive@" + d.String()
	got, err := f.eng.EnsureImage(ctxT(t), ref, FromOCIArchive(archive))
	if err != nil {
		t.Fatalf("EnsureImage archive: %v", err)
	}
	noteLoaded(got.ID)
	if got.ID != c.Hex || got.Digest != d.String() || got.Ref != ref {
		t.Errorf("image %+v, want ID %s digest %s", got, c.Hex, d)
	}
	if m := marker(t, f.eng, got.ID); m != "archive" {
		t.Errorf("marker %q", m)
	}
	ei, err := f.eng.inspectImage(ctxT(t), got.ID)
	must(t, err)
	if f.eng.podman {
		// The engine's own record agrees; the store source accepts it now.
		if _, err := f.eng.EnsureImage(ctxT(t), ref, FromStore()); err != nil {
			t.Errorf("store after load: %v", err)
		}
		if ei.Digest != d.String() {
			t.Errorf("podman records digest %s, want %s", ei.Digest, d)
		}
	} else {
		// docker keeps no manifest digest for a loaded image: the store
		// source cannot vouch for it, only a new load (checked by
		// config digest) can.
		if _, err := f.eng.EnsureImage(ctxT(t), ref, FromStore()); !errors.Is(err, ErrImageNotFound) && !errors.Is(err, ErrDigestMismatch) {
			t.Errorf("docker store lookup of a loaded image: %v, want not found or mismatch", err)
		}
		if ei.ID != c.Hex {
			t.Errorf("docker image ID %s, want config digest %s", ei.ID, c.Hex)
		}
	}
	for _, tag := range ei.RepoTags {
		if strings.Contains(tag, "dshaudit-stage-") {
			t.Errorf("staging name left on the image: %s", tag)
		}
	}
	// A second EnsureImage (already present) is a no-op that still checks.
	if _, err := f.eng.EnsureImage(ctxT(t), ref, FromOCIArchive(archive)); err != nil {
		t.Errorf("repeat: %v", err)
	}
}

func TestEnsureImageStore(t *testing.T) {
	f := base(t)
	if !f.eng.podman {
		// docker records a manifest digest only for images it pulled: pull
		// the base from a registry on loopback so the store has it.
		_, host := startRegistry(t, nil)
		ref := host + "/enginetest/store@" + f.digest.String()
		push(t, ref, f.img)
		if _, err := f.eng.EnsureImage(ctxT(t), ref, FromRegistry(true)); err != nil {
			t.Fatal(err)
		}
		f = &fixture{eng: f.eng, ref: ref, config: f.config}
	}
	got, err := f.eng.EnsureImage(ctxT(t), f.ref, FromStore())
	if err != nil || got.ID != f.config.Hex {
		t.Fatalf("store: %+v %v, want ID %s", got, err, f.config.Hex)
	}
	absent := testRepo + "@sha256:" + strings.Repeat("1", 64)
	if _, err := f.eng.EnsureImage(ctxT(t), absent, FromStore()); !errors.Is(err, ErrImageNotFound) {
		t.Errorf("absent digest: %v, want ErrImageNotFound", err)
	}
}

func TestEnsureImageLayoutMismatch(t *testing.T) {
	f := base(t)
	wrong := testRepo + "@sha256:" + strings.Repeat("2", 64)
	_, err := f.eng.EnsureImage(ctxT(t), wrong, FromOCILayout(f.layout))
	if !errors.Is(err, ErrDigestMismatch) || !strings.Contains(err.Error(), f.digest.String()) {
		t.Errorf("layout with another digest: %v, want ErrDigestMismatch naming %s", err, f.digest)
	}
}

// startRegistry serves go-containerregistry's registry on 127.0.0.1.
func startRegistry(t *testing.T, wrap func(http.Handler) http.Handler) (*httptest.Server, string) {
	t.Helper()
	var h http.Handler = registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, strings.TrimPrefix(srv.URL, "http://")
}

func push(t *testing.T, ref string, img v1.Image) {
	t.Helper()
	r, err := name.ParseReference(ref, name.Insecure)
	must(t, err)
	must(t, remote.Write(r, img))
}

func TestEnsureImageRegistryByDigest(t *testing.T) {
	f := base(t)
	_, host := startRegistry(t, nil)
	repo := host + "/enginetest/img"
	imgA, imgB := buildTestImage(t, "A"), buildTestImage(t, "B")
	dA, cA := digestOf(t, imgA)
	dB, cB := digestOf(t, imgB)
	removeFromEngine(t, cA.Hex)
	removeFromEngine(t, cB.Hex)

	push(t, repo+":v1", imgA)
	push(t, repo+":v1", imgB) // the tag is re-pointed to B

	// Pull by A's digest still gives A, though the tag now names B.
	ref := repo + ":v1@" + dA.String()
	got, err := f.eng.EnsureImage(ctxT(t), ref, FromRegistry(true))
	if err != nil {
		t.Fatalf("pull by digest: %v", err)
	}
	noteLoaded(got.ID)
	if got.ID != cA.Hex || got.Digest != dA.String() {
		t.Errorf("got %+v, want A (ID %s, digest %s; B is %s)", got, cA.Hex, dA, dB)
	}
	if m := marker(t, f.eng, got.ID); m != "A" {
		t.Errorf("marker %q, want A", m)
	}
	// A digest the registry does not have is refused.
	absent := repo + "@sha256:" + strings.Repeat("3", 64)
	if _, err := f.eng.EnsureImage(ctxT(t), absent, FromRegistry(true)); !errors.Is(err, ErrImageNotFound) {
		t.Errorf("absent digest: %v, want ErrImageNotFound", err)
	}
	// Insecure access is refused for a non-loopback registry before any
	// connection is made.
	if _, err := f.eng.EnsureImage(ctxT(t), "registry.example:5000/x@"+dA.String(), FromRegistry(true)); !errors.Is(err, ErrInsecureNotLoopback) {
		t.Errorf("non-loopback insecure: %v, want ErrInsecureNotLoopback", err)
	}
}

func TestEnsureImageRegistryLies(t *testing.T) {
	f := base(t)
	imgA, imgB := buildTestImage(t, "lieA"), buildTestImage(t, "lieB")
	dA, cA := digestOf(t, imgA)
	dB, cB := digestOf(t, imgB)
	// A registry that answers a request for A's digest with B's manifest.
	_, host := startRegistry(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/manifests/"+dA.String()) {
				r = r.Clone(r.Context())
				r.URL.Path = strings.TrimSuffix(r.URL.Path, dA.String()) + dB.String()
			}
			h.ServeHTTP(w, r)
		})
	})
	repo := host + "/enginetest/liar"
	push(t, repo+"@"+dB.String(), imgB)
	removeFromEngine(t, cA.Hex)
	removeFromEngine(t, cB.Hex)
	_, err := f.eng.EnsureImage(ctxT(t), repo+"@"+dA.String(), FromRegistry(true))
	if !errors.Is(err, ErrDigestMismatch) {
		t.Fatalf("lying registry: %v, want ErrDigestMismatch", err)
	}
	if _, err := f.eng.inspectImage(ctxT(t), cB.Hex); !errors.Is(err, ErrImageNotFound) {
		t.Errorf("the substituted image reached the engine: %v", err)
	}
}

func TestEnsureImageRegistryDown(t *testing.T) {
	f := base(t)
	srv, host := startRegistry(t, nil)
	img := buildTestImage(t, "down")
	d, c := digestOf(t, img)
	push(t, host+"/enginetest/down@"+d.String(), img)
	removeFromEngine(t, c.Hex)
	srv.Close()
	_, err := f.eng.EnsureImage(ctxT(t), host+"/enginetest/down@"+d.String(), FromRegistry(true))
	if !errors.Is(err, ErrRegistryUnreachable) {
		t.Fatalf("closed registry: %v, want ErrRegistryUnreachable", err)
	}
}

func TestFindManifestDetectsTamperedBlob(t *testing.T) {
	img := buildTestImage(t, "tamper")
	d, _ := digestOf(t, img)
	dir := t.TempDir()
	writeLayout(t, dir, img)
	blob := filepath.Join(dir, "blobs", "sha256", d.Hex)
	b, err := os.ReadFile(blob)
	must(t, err)
	must(t, os.WriteFile(blob, append(b, ' '), 0o644))
	if _, err := findManifest(dir, d); !errors.Is(err, ErrDigestMismatch) {
		t.Errorf("tampered manifest blob: %v, want ErrDigestMismatch", err)
	}
}
