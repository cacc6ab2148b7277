package image

import (
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// The build's registry client trusts npm's cafile, as T0's does: a
// registry whose certificate only that file vouches for is read with it
// and refused without it.
func TestNewRegistryClientUsesNPMCAFile(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/pnpm" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `{"name":"pnpm","versions":{"9.15.9":{"name":"pnpm","version":"9.15.9","dist":{"tarball":"https://example.invalid/p.tgz","integrity":"sha512-aARhQYk8ZvrQHAeSMRKOmvuJ74fiaR1p5NQO7iKJiClf1GghgbrlW1hBjDolO95lpQXsfF+UA+zlzDzTfc8lMQ=="}}},"time":{"9.15.9":"2025-05-04T02:32:41.198Z"}}`)
	}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir()) // no npm: its configuration comes from the environment
	t.Setenv("NODE_EXTRA_CA_CERTS", "")
	t.Setenv("npm_config_cafile", "")
	t.Setenv("NPM_CONFIG_CAFILE", "")
	ctx := context.Background()

	c, err := NewRegistryClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&NPM{Registry: srv.URL, Client: c}).Version(ctx, "pnpm", "9.15.9"); !errors.Is(err, ErrRegistry) {
		t.Fatalf("without the cafile: %v, want ErrRegistry (certificate not trusted)", err)
	}

	t.Setenv("npm_config_cafile", ca)
	c, err = NewRegistryClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	vi, err := (&NPM{Registry: srv.URL, Client: c}).Version(ctx, "pnpm", "9.15.9")
	if err != nil || vi.PublishedAt.IsZero() || vi.Integrity == "" {
		t.Fatalf("with npm's cafile: %+v, %v", vi, err)
	}
	if _, err := (&NPM{Registry: srv.URL, Client: c}).Version(ctx, "pnpm", "1.0.0"); !errors.Is(err, ErrVersionNotPublished) {
		t.Errorf("unpublished version: %v, want ErrVersionNotPublished", err)
	}
}
