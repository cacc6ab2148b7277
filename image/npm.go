package image

import (
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// DESIGN.md "Sandbox image", inputs: Node, pnpm and dsh come from the npm
// registry and are identified by their integrity strings.

// DefaultRegistry is the npm registry the build reads.
const DefaultRegistry = "https://registry.npmjs.org/"

const (
	maxPackumentBytes = 64 << 20
	maxTarballBytes   = 512 << 20
)

// NPM reads package metadata and tarballs from an npm registry and caches
// tarballs by integrity.
type NPM struct {
	Registry string       // base URL with trailing slash
	Client   *http.Client // nil: http.DefaultClient
	CacheDir string       // tarball cache; "" disables it
}

// VersionInfo is what the registry says about one published version.
type VersionInfo struct {
	Name        string
	Version     string
	Tarball     string
	Integrity   string // SRI, sha512-…
	PublishedAt time.Time
}

// Packument is the part of a registry document the build uses.
type Packument struct {
	Name     string `json:"name"`
	Versions map[string]struct {
		Dist struct {
			Tarball   string `json:"tarball"`
			Integrity string `json:"integrity"`
		} `json:"dist"`
	} `json:"versions"`
	Time map[string]string `json:"time"`
}

func (n *NPM) client() *http.Client {
	if n.Client != nil {
		return n.Client
	}
	return http.DefaultClient
}

func (n *NPM) registry() string {
	r := n.Registry
	if r == "" {
		r = DefaultRegistry
	}
	if !strings.HasSuffix(r, "/") {
		r += "/"
	}
	return r
}

// Packument fetches the full registry document of a package.
func (n *NPM) Packument(ctx context.Context, name string) (*Packument, error) {
	u := n.registry() + strings.Replace(url.PathEscape(name), "%40", "@", 1)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := n.client().Do(req)
	if err != nil {
		return nil, fmt.Errorf("npm registry %s: %w: %v", n.registry(), ErrRegistry, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("npm package %q: %w in %s (HTTP 404)", name, ErrVersionNotPublished, n.registry())
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("npm package %q: %w: HTTP %d from %s", name, ErrRegistry, resp.StatusCode, u)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxPackumentBytes+1))
	if err != nil {
		return nil, fmt.Errorf("npm package %q: %w: %v", name, ErrRegistry, err)
	}
	if len(body) > maxPackumentBytes {
		return nil, fmt.Errorf("npm package %q: registry document larger than %d bytes: %w", name, maxPackumentBytes, ErrRegistry)
	}
	var p Packument
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, fmt.Errorf("npm package %q: registry document: %w: %v", name, ErrRegistry, err)
	}
	return &p, nil
}

// Version resolves one exact version. A version the registry does not
// serve is ErrVersionNotPublished, naming the versions it does serve.
func (n *NPM) Version(ctx context.Context, name, version string) (VersionInfo, error) {
	p, err := n.Packument(ctx, name)
	if err != nil {
		return VersionInfo{}, err
	}
	v, ok := p.Versions[version]
	if !ok {
		have := make([]string, 0, len(p.Versions))
		for k := range p.Versions {
			have = append(have, k)
		}
		sort.Strings(have)
		if len(have) > 20 {
			have = append(have[len(have)-20:], "…")
		}
		return VersionInfo{}, fmt.Errorf("%s@%s: %w in %s (published: %s)", name, version, ErrVersionNotPublished, n.registry(), strings.Join(have, ", "))
	}
	vi := VersionInfo{Name: name, Version: version, Tarball: v.Dist.Tarball, Integrity: v.Dist.Integrity}
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
	f, err := os.CreateTemp(dir, "download-*.tgz")
	if err != nil {
		return Tarball{}, err
	}
	defer os.Remove(f.Name())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, vi.Tarball, nil)
	if err != nil {
		f.Close()
		return Tarball{}, err
	}
	resp, err := n.client().Do(req)
	if err != nil {
		f.Close()
		return Tarball{}, fmt.Errorf("download %s: %w: %v", vi.Tarball, ErrRegistry, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		f.Close()
		return Tarball{}, fmt.Errorf("download %s: %w: HTTP %d", vi.Tarball, ErrRegistry, resp.StatusCode)
	}
	written, err := io.Copy(f, io.LimitReader(resp.Body, maxTarballBytes+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Tarball{}, fmt.Errorf("download %s: %w: %v", vi.Tarball, ErrRegistry, err)
	}
	if written > maxTarballBytes {
		return Tarball{}, fmt.Errorf("download %s: larger than %d bytes: %w", vi.Tarball, maxTarballBytes, ErrRegistry)
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
