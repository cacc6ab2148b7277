package pkgsource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

// Packument is a registry package document: the parsed fields T0 needs
// beside the raw bytes of every version object.
type Packument struct {
	Name     string                     `json:"name"`
	DistTags map[string]string          `json:"dist-tags"`
	Versions map[string]json.RawMessage `json:"versions"`
	// Time maps each version to its publish time (RFC 3339).
	Time map[string]string `json:"time"`
}

// VersionList returns the published versions, sorted as strings.
func (p *Packument) VersionList() []string {
	out := make([]string, 0, len(p.Versions))
	for v := range p.Versions {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// VersionMeta is the parsed part of one version object.
type VersionMeta struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Dist    struct {
		Tarball   string `json:"tarball"`
		Integrity string `json:"integrity"`
		Shasum    string `json:"shasum"`
	} `json:"dist"`
}

// Registry is an npm registry client with bounded responses.
type Registry struct {
	// Base is the registry URL, ending in "/".
	Base   string
	Client *http.Client
	// Timeout bounds each request, body included.
	Timeout time.Duration
	Limits  Limits
}

// packumentURL escapes a scoped name as npm does (@scope%2fname).
func (r *Registry) packumentURL(name string) string {
	return r.Base + strings.Replace(url.PathEscape(name), "%40", "@", 1)
}

// Packument GETs the full package document. The abbreviated install
// document (application/vnd.npm.install-v1+json) lacks the dsh field,
// so the full JSON is asked for.
func (r *Registry) Packument(ctx context.Context, name string) (*Packument, error) {
	u := r.packumentURL(name)
	res, err := getBounded(ctx, r.Client, u, "application/json", r.Limits.MaxPackumentBytes, r.Timeout)
	if err != nil {
		return nil, registryErr(err)
	}
	switch {
	case res.Status == http.StatusNotFound:
		return nil, fmt.Errorf("%w: %q at %s", ErrPackageNotFound, name, r.Base)
	case res.Status >= 500 || res.Status == http.StatusTooManyRequests:
		return nil, fmt.Errorf("%w: GET %q: HTTP %d", ErrRegistryUnreachable, u, res.Status)
	case res.Status != http.StatusOK:
		return nil, fmt.Errorf("%w: GET %q: unexpected HTTP %d", ErrRegistryUnreachable, u, res.Status)
	}
	p, err := parsePackument(res.Body)
	if err != nil {
		return nil, fmt.Errorf("%w: packument of %q: %v", ErrBadMetadata, name, err)
	}
	if p.Name != name {
		return nil, fmt.Errorf("%w: asked for %q, the registry's packument is named %q", ErrBadMetadata, name, p.Name)
	}
	if p.Versions == nil {
		// npm's answer for an unpublished package: a packument with
		// "time.unpublished" and no versions.
		return nil, fmt.Errorf("%w: %q has no versions (unpublished?)", ErrPackageNotFound, name)
	}
	return p, nil
}

// parsePackument reads a packument as npm does (JSON.parse, member names
// matched exactly), refusing one that readers read differently.
func parsePackument(raw []byte) (*Packument, error) {
	var p Packument
	if err := checkJSON(raw); err != nil {
		return nil, err
	}
	if err := fields(raw, map[string]any{"name": &p.Name, "dist-tags": &p.DistTags, "versions": &p.Versions, "time": &p.Time}); err != nil {
		return nil, err
	}
	return &p, nil
}

// registryErr classifies a getBounded failure.
func registryErr(err error) error {
	var te *transportError
	if errors.As(err, &te) {
		return fmt.Errorf("%w: %w", ErrRegistryUnreachable, err)
	}
	return err
}

// ParseVersionMeta parses one version object and checks it names the
// package and version it was listed under.
func ParseVersionMeta(raw []byte, name, version string) (VersionMeta, error) {
	var m VersionMeta
	var dist json.RawMessage
	err := checkJSON(raw)
	if err == nil {
		err = fields(raw, map[string]any{"name": &m.Name, "version": &m.Version, "dist": &dist})
	}
	if err == nil && dist != nil && string(dist) != "null" {
		err = fields(dist, map[string]any{"tarball": &m.Dist.Tarball, "integrity": &m.Dist.Integrity, "shasum": &m.Dist.Shasum})
	}
	if err != nil {
		return VersionMeta{}, fmt.Errorf("%w: versions[%q] of %q: %v", ErrBadMetadata, version, name, err)
	}
	if m.Name != name || m.Version != version {
		return VersionMeta{}, fmt.Errorf("%w: versions[%q] of %q names itself %q@%q", ErrBadMetadata, version, name, m.Name, m.Version)
	}
	if m.Dist.Tarball == "" {
		return VersionMeta{}, fmt.Errorf("%w: versions[%q] of %q has no dist.tarball", ErrBadMetadata, version, name)
	}
	return m, nil
}

// TarballURL checks dist.tarball and applies npm's default
// replace-registry-host=npmjs: a tarball on registry.npmjs.org is
// fetched from the configured registry instead. rewritten is true when
// that happened. The URL must be https, or http when the registry is.
func (r *Registry) TarballURL(tarball string) (u string, rewritten bool, err error) {
	const npmjs = "https://registry.npmjs.org/"
	pu, err := url.Parse(tarball)
	if err != nil {
		return "", false, fmt.Errorf("%w: dist.tarball %q: %v", ErrBadMetadata, tarball, err)
	}
	base, _ := url.Parse(r.Base)
	switch {
	case pu.Host == "":
		return "", false, fmt.Errorf("%w: dist.tarball %q is not an absolute URL", ErrBadMetadata, tarball)
	case pu.User != nil:
		return "", false, fmt.Errorf("%w: dist.tarball %q carries credentials", ErrBadMetadata, pu.Redacted())
	case pu.Scheme == "https", pu.Scheme == "http" && base.Scheme == "http":
	default:
		return "", false, fmt.Errorf("%w: dist.tarball %q: scheme %q refused (https, or http with an http registry)", ErrBadMetadata, tarball, pu.Scheme)
	}
	for _, pre := range []string{npmjs, "http://registry.npmjs.org/"} {
		if rest, ok := strings.CutPrefix(tarball, pre); ok && r.Base != npmjs {
			return r.Base + rest, true, nil
		}
	}
	return tarball, false, nil
}

// Tarball downloads a tarball with the tarball size limit.
func (r *Registry) Tarball(ctx context.Context, u string) ([]byte, error) {
	res, err := getBounded(ctx, r.Client, u, "application/octet-stream", r.Limits.MaxTarballBytes, r.Timeout)
	if err != nil {
		return nil, registryErr(err)
	}
	switch {
	case res.Status == http.StatusOK:
		return res.Body, nil
	case res.Status == http.StatusNotFound:
		return nil, fmt.Errorf("%w: tarball %q: HTTP 404 though the metadata lists it", ErrBadMetadata, u)
	default:
		return nil, fmt.Errorf("%w: GET %q: HTTP %d", ErrRegistryUnreachable, u, res.Status)
	}
}
