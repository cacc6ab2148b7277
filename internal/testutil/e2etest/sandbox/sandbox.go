// Package sandbox sets up the real environment of an end-to-end test: the
// podman engine holding the sandbox image scripts/setup.sh built, and a
// signing key. It is apart from package e2etest so that the engine's own
// tests can use e2etest.Require without an import cycle. Imported by tests
// only.
package sandbox

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
)

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
	img := e2etest.SandboxImage(t)
	once.Do(func() { env, err = setup(img) })
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func setup(img string) (*Env, error) {
	ctx := context.Background()
	name := e2etest.EngineName()
	eng, err := engine.Detect(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("end-to-end tests need %s (podman: scripts/setup.sh; docker: scripts/setup-docker.sh start): %w", name, err)
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
	lay, err := e2etest.CachedLayout(p.Digest)
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
