package image

import (
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dshaudit/dshaudit/pkgsource"
)

// DESIGN.md "Sandbox image", inputs: Node, pnpm and dsh come from the npm
// registry and are identified by their integrity strings.

// DefaultRegistry is the npm registry the build reads unless --registry
// names another. npm's configured registry is not used: the registry is an
// input of the image's cache key.
const DefaultRegistry = pkgsource.DefaultRegistry

const (
	maxPackumentBytes = 64 << 20
	maxTarballBytes   = 512 << 20
	requestTimeout    = 10 * time.Minute
)

// NPM reads package metadata and tarballs through pkgsource's registry
// client (the one npm registry client; T0 uses it too) and caches
// tarballs by integrity.
type NPM struct {
	Registry string       // base URL with trailing slash
	Client   *http.Client // nil: NewRegistryClient's
	CacheDir string       // tarball cache; "" disables it
}

// NewRegistryClient is the HTTP client of the build: the system roots
// plus npm's cafile and NODE_EXTRA_CA_CERTS, exactly as T0's client
// (pkgsource.NewHTTPClient after pkgsource.ReadNPMConfig).
func NewRegistryClient(ctx context.Context) (*http.Client, error) {
	cfg, err := pkgsource.ReadNPMConfig(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("%w: npm configuration: %w", ErrRegistry, err)
	}
	c, err := pkgsource.NewHTTPClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRegistry, err)
	}
	return c, nil
}

// VersionInfo is what the registry says about one published version.
type VersionInfo struct {
	Name        string
	Version     string
	Tarball     string
	Integrity   string // SRI, sha512-…
	PublishedAt time.Time
}

func (n *NPM) client() *http.Client {
	if n.Client != nil {
		return n.Client
	}
	return http.DefaultClient
}

func (n *NPM) registry() *pkgsource.Registry {
	r := n.Registry
	if r == "" {
		r = DefaultRegistry
	}
	if !strings.HasSuffix(r, "/") {
		r += "/"
	}
	return &pkgsource.Registry{Base: r, Client: n.client(), Timeout: requestTimeout,
		Limits: pkgsource.Limits{MaxPackumentBytes: maxPackumentBytes, MaxTarballBytes: maxTarballBytes}}
}

// Version resolves one exact version. A package or version the registry
// does not serve is ErrVersionNotPublished, naming the versions it does
// serve.
func (n *NPM) Version(ctx context.Context, name, version string) (VersionInfo, error) {
	reg := n.registry()
	p, err := reg.Packument(ctx, name)
	switch {
	case errors.Is(err, pkgsource.ErrPackageNotFound):
		return VersionInfo{}, fmt.Errorf("npm package %q: %w in %s: %w", name, ErrVersionNotPublished, reg.Base, err)
	case err != nil:
		return VersionInfo{}, fmt.Errorf("npm package %q: %w: %w", name, ErrRegistry, err)
	}
	raw, ok := p.Versions[version]
	if !ok {
		have := p.VersionList()
		if len(have) > 20 {
			have = append(have[len(have)-20:], "…")
		}
		return VersionInfo{}, fmt.Errorf("%s@%s: %w in %s (published: %s)", name, version, ErrVersionNotPublished, reg.Base, strings.Join(have, ", "))
	}
	meta, err := pkgsource.ParseVersionMeta(raw, name, version)
	if err != nil {
		return VersionInfo{}, fmt.Errorf("%s@%s: %w: %w", name, version, ErrRegistry, err)
	}
	vi := VersionInfo{Name: name, Version: version, Tarball: meta.Dist.Tarball, Integrity: meta.Dist.Integrity}
	if !strings.HasPrefix(vi.Integrity, "sha512-") {
		return VersionInfo{}, fmt.Errorf("%s@%s: registry gives integrity %q, want sha512-…: %w", name, version, vi.Integrity, ErrRegistry)
	}
	if ts, ok := p.Time[version]; ok {
		t, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			return VersionInfo{}, fmt.Errorf("%s@%s: publish time %q: %w", name, version, ts, ErrRegistry)
		}
		vi.PublishedAt = t.UTC()
	}
	return vi, nil
}

// Tarball is a downloaded, integrity-checked npm tarball.
type Tarball struct {
	Path      string
	Integrity string // sha512 SRI, as the registry gives it
	SHA256    string // hex sha256 of the tarball bytes
	Cached    bool   // served from the cache without a download
}

// Fetch downloads a version's tarball (or takes it from the cache) and
// checks it against the registry's integrity string.
func (n *NPM) Fetch(ctx context.Context, vi VersionInfo, tmpDir string) (Tarball, error) {
	want, err := sriHex(vi.Integrity)
	if err != nil {
		return Tarball{}, fmt.Errorf("%s@%s: %w", vi.Name, vi.Version, err)
	}
	var cached string
	if n.CacheDir != "" {
		cached = filepath.Join(n.CacheDir, "sha512-"+want+".tgz")
		if tb, err := checkTarball(cached, vi.Integrity, want); err == nil {
			tb.Cached = true
			return tb, nil
		}
	}
	dir := tmpDir
	if cached != "" {
		dir = n.CacheDir
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return Tarball{}, err
		}
	}
	body, err := n.registry().Tarball(ctx, vi.Tarball)
	if err != nil {
		return Tarball{}, fmt.Errorf("download %s: %w: %w", vi.Tarball, ErrRegistry, err)
	}
	f, err := os.CreateTemp(dir, "download-*.tgz")
	if err != nil {
		return Tarball{}, err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Tarball{}, fmt.Errorf("download %s: %w", vi.Tarball, err)
	}
	tb, err := checkTarball(f.Name(), vi.Integrity, want)
	if err != nil {
		return Tarball{}, fmt.Errorf("%s@%s: %w", vi.Name, vi.Version, err)
	}
	final := cached
	if final == "" {
		final = filepath.Join(tmpDir, fmt.Sprintf("%s-%s.tgz", strings.ReplaceAll(vi.Name, "/", "+"), vi.Version))
	}
	if err := os.Rename(f.Name(), final); err != nil {
		return Tarball{}, err
	}
	tb.Path = final
	return tb, nil
}

// sriHex returns the hex digest of a sha512 SRI string.
func sriHex(sri string) (string, error) {
	b64, ok := strings.CutPrefix(sri, "sha512-")
	if !ok {
		return "", fmt.Errorf("integrity %q is not sha512: %w", sri, ErrBadInput)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(raw) != sha512.Size {
		return "", fmt.Errorf("integrity %q is not a sha512 SRI string: %w", sri, ErrBadInput)
	}
	return hex.EncodeToString(raw), nil
}

func checkTarball(path, sri, wantHex string) (Tarball, error) {
	f, err := os.Open(path)
	if err != nil {
		return Tarball{}, err
	}
	defer f.Close()
	h512, h256 := sha512.New(), sha256.New()
	if _, err := io.Copy(io.MultiWriter(h512, h256), f); err != nil {
		return Tarball{}, err
	}
	if got := hex.EncodeToString(h512.Sum(nil)); got != wantHex {
		return Tarball{}, fmt.Errorf("%q: %w: sha512 %s, registry says %s", path, ErrIntegrity, got, wantHex)
	}
	return Tarball{Path: path, Integrity: sri, SHA256: hex.EncodeToString(h256.Sum(nil))}, nil
}
