// Package sandbox sets up the real environment of an end-to-end test: the
// podman engine holding the sandbox image scripts/setup.sh built, and a
// signing key. It is apart from package e2etest so that the engine's own
// tests can use e2etest.Require without an import cycle. Imported by tests
// only.
package sandbox

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/internal/e2etest"
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
	eng, err := engine.Detect(context.Background(), "podman")
	if err != nil {
		return nil, fmt.Errorf("end-to-end tests need podman (scripts/setup.sh installs it): %w", err)
	}
	if _, err := eng.EnsureImage(context.Background(), img, engine.FromStore()); err != nil {
		return nil, fmt.Errorf("sandbox image %s not in podman (run scripts/setup.sh): %w", img, err)
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
