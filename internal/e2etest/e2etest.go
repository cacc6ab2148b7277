// Package e2etest owns what the end-to-end tests of runner, replay and the
// CLI share: finding the real sandbox image that scripts/setup.sh built,
// the real podman engine, a signing key, and an exact one-byte edit of a
// bundle's evidence. It is imported by tests only. A missing real part is
// a test failure, never a skip.
package e2etest

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/klauspost/compress/zstd"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/engine"
)

// SandboxImage is the sandbox image reference: $DSHAUDIT_E2E_IMAGE, else
// the file scripts/setup.sh writes ($DSHAUDIT_CACHE, $XDG_CACHE_HOME/dshaudit
// or ~/.cache/dshaudit, then sandbox-image.ref). Missing is a failure.
func SandboxImage(t testing.TB) string {
	t.Helper()
	if ref := strings.TrimSpace(os.Getenv("DSHAUDIT_E2E_IMAGE")); ref != "" {
		return ref
	}
	p := filepath.Join(CacheDir(), "sandbox-image.ref")
	b, err := os.ReadFile(p)
	if err != nil || strings.TrimSpace(string(b)) == "" {
		t.Fatalf("end-to-end tests need the sandbox image: run scripts/setup.sh (it writes %s) or set DSHAUDIT_E2E_IMAGE=NAME@sha256:…: %v", p, err)
	}
	return strings.TrimSpace(string(b))
}

// CacheDir is scripts/setup.sh's cache directory.
func CacheDir() string {
	if c := os.Getenv("DSHAUDIT_CACHE"); c != "" {
		return c
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "dshaudit")
}

// Env is the real environment of an end-to-end test.
type Env struct {
	Image  string
	Engine engine.Engine
	Signer *attest.Signer
	Pub    *attest.PublicKey
}

var (
	once sync.Once
	env  *Env
	err  error
)

// Setup finds podman and the sandbox image in its store and makes one
// Ed25519 key for the test binary; it fails the test when any is missing.
func Setup(t testing.TB) *Env {
	t.Helper()
	img := SandboxImage(t)
	once.Do(func() { env, err = setup(img) })
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// EngineName is the engine the end-to-end tests run on:
// $DSHAUDIT_E2E_ENGINE (podman or docker), podman by default.
// scripts/test.sh runs the engine, runner and replay tests on both.
func EngineName() string {
	if e := os.Getenv("DSHAUDIT_E2E_ENGINE"); e != "" {
		return e
	}
	return "podman"
}

func setup(img string) (*Env, error) {
	ctx := context.Background()
	eng, err := engine.Detect(ctx, EngineName())
	if err != nil {
		return nil, fmt.Errorf("end-to-end tests need %s (podman: scripts/setup.sh; docker: scripts/setup-docker.sh start): %w", EngineName(), err)
	}
	if eng.Name() == "docker" {
		if img, err = dockerSandbox(ctx, eng, img); err != nil {
			return nil, err
		}
	}
	if _, err := eng.EnsureImage(ctx, img, engine.FromStore()); err != nil {
		return nil, fmt.Errorf("sandbox image %s not in %s (run scripts/setup.sh): %w", img, eng.Name(), err)
	}
	priv, pub, err := attest.GenerateKey(attest.Ed25519)
	if err != nil {
		return nil, err
	}
	s, err := attest.ParseSigner(priv)
	if err != nil {
		return nil, err
	}
	pk, err := attest.ParsePublicKey(pub)
	if err != nil {
		return nil, err
	}
	return &Env{Image: img, Engine: eng, Signer: s, Pub: pk}, nil
}

// EditEvidenceByte returns the bundle raw with one byte of the evidence
// file at path changed and nothing else: the tar stream inside is the
// original's with that one byte flipped (the entry's header, and so its
// recorded size, unchanged), compressed again with the bundle's own zstd
// settings. It fails the test when recompressing the unedited tar does
// not give back the same bytes, since the edit would then not be the only
// change.
func EditEvidenceByte(t testing.TB, raw []byte, path string) []byte {
	t.Helper()
	dec, err := zstd.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	tarBytes, err := io.ReadAll(dec)
	dec.Close()
	if err != nil {
		t.Fatal(err)
	}
	compress := func(b []byte) []byte {
		var buf bytes.Buffer
		enc, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(bundle.EncoderLevel), zstd.WithWindowSize(bundle.EncoderWindow),
			zstd.WithEncoderConcurrency(1), zstd.WithConcurrentBlocks(false), zstd.WithEncoderCRC(true),
			zstd.WithZeroFrames(true), zstd.WithLowerEncoderMem(false))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := enc.Write(b); err != nil {
			t.Fatal(err)
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	if !bytes.Equal(compress(tarBytes), raw) {
		t.Fatal("recompressing the unedited bundle does not give the same bytes: the edit would not be the only change")
	}
	br := bytes.NewReader(tarBytes)
	tr := tar.NewReader(br)
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("no entry %q with content in the bundle: %v", path, err)
		}
		if h.Name != path || h.Size == 0 {
			continue
		}
		// archive/tar reads headers exactly; the content starts here.
		at := len(tarBytes) - br.Len() + int(h.Size)/2
		edited := bytes.Clone(tarBytes)
		edited[at] ^= 0x20
		return compress(edited)
	}
}

var counterField = regexp.MustCompile(`"dshauditFixtureCounter": "[^"]*"`)

// CounterFixture copies the unstable fixture plugin from dir into a
// temporary directory with its dshauditFixtureCounter set to
// http://addr/, the counter server whose answers the fixture's
// postinstall obeys (testdata/plugins/README.md), and returns the copy.
func CounterFixture(t testing.TB, dir, addr string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "unstable")
	if err := os.CopyFS(dst, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	pj := filepath.Join(dst, "package.json")
	b, err := os.ReadFile(pj)
	if err != nil {
		t.Fatal(err)
	}
	if !counterField.Match(b) {
		t.Fatal("unstable/package.json has no dshauditFixtureCounter")
	}
	b = counterField.ReplaceAll(b, []byte(fmt.Sprintf(`"dshauditFixtureCounter": "http://%s/"`, addr)))
	if err := os.WriteFile(pj, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// dockerSandbox gives docker the sandbox image the way a docker user gets
// a published one: pulled by digest from a registry (go-containerregistry's,
// on loopback, serving the OCI layout image build left in the cache), so
// docker records the manifest digest and store lookups work as with
// podman. The registry stays up for the test binary's life. It returns
// the reference under the registry's name, with the same digest.
func dockerSandbox(ctx context.Context, eng engine.Engine, img string) (string, error) {
	p, err := engine.ParsePinned(img)
	if err != nil {
		return "", err
	}
	lay, err := CachedLayout(p.Digest)
	if err != nil {
		return "", err
	}
	lp, err := layout.FromPath(lay)
	if err != nil {
		return "", err
	}
	im, err := lp.Image(p.Digest)
	if err != nil {
		return "", err
	}
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	host := strings.TrimPrefix(srv.URL, "http://")
	tag := p.Tag
	if tag == "" {
		tag = "sandbox"
	}
	repo := host + "/dsh-sandbox"
	ref, err := name.ParseReference(repo+":"+tag, name.Insecure)
	if err != nil {
		return "", err
	}
	if err := remote.Write(ref, im, remote.WithContext(ctx)); err != nil {
		return "", fmt.Errorf("push the sandbox image to the loopback registry: %w", err)
	}
	pinned := repo + ":" + tag + "@" + p.Digest.String()
	if _, err := eng.EnsureImage(ctx, pinned, engine.FromRegistry(true)); err != nil {
		return "", fmt.Errorf("docker pull of the sandbox image: %w", err)
	}
	return pinned, nil
}

// CachedLayout returns the OCI layout in the image cache (images/<key>/,
// written by dshaudit image build) that holds the manifest digest d.
func CachedLayout(d v1.Hash) (string, error) {
	dirs, _ := filepath.Glob(filepath.Join(CacheDir(), "images", "*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, "index.json"))
		if err == nil && bytes.Contains(b, []byte(d.String())) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("no OCI layout of %s under %s (run scripts/setup.sh)", d, filepath.Join(CacheDir(), "images"))
}

// AssertNoContainers fails the test when the engine under test
// (EngineName) still has a container of one of the names.
func AssertNoContainers(t testing.TB, names []string) {
	t.Helper()
	out, err := exec.Command(EngineName(), "ps", "-a", "--format", "{{.Names}}").Output()
	if err != nil {
		t.Fatalf("%s ps -a: %v", EngineName(), err)
	}
	live := map[string]bool{}
	for _, n := range strings.Fields(string(out)) {
		live[n] = true
	}
	for _, n := range names {
		if live[n] {
			t.Errorf("container %s was left behind", n)
		}
	}
}
