package pkgsource

import (
	"context"
	"fmt"
	"path/filepath"
)

// Identify returns the exact name and version spec names, as Fetch would
// resolve them, without fetching what T0 needs beyond that: for a
// registry spec the packument only (no tarball, no CDN), for a local
// directory its package.json (no npm pack), for a local tarball its
// package/package.json. `dshaudit batch` uses it to name a spec's bundle
// before running it (docs/batch.md). Failures wrap the same classes as
// Fetch's.
func Identify(ctx context.Context, spec Spec, opts Options) (name, version string, err error) {
	opts = opts.withDefaults()
	switch spec.Source {
	case SourceRegistry:
		cfg, err := npmConfigFor(ctx, opts)
		if err != nil {
			return "", "", fmt.Errorf("%w: %w", ErrUnresolvable, err)
		}
		client := opts.HTTPClient
		if client == nil {
			if client, err = NewHTTPClient(cfg); err != nil {
				return "", "", fmt.Errorf("%w: %w", ErrUnresolvable, err)
			}
		}
		reg := &Registry{Base: cfg.Registry, Client: client, Timeout: opts.Timeout, Limits: opts.Limits}
		pk, err := reg.Packument(ctx, spec.Name)
		if err != nil {
			return "", "", fmt.Errorf("%w: %w", ErrUnresolvable, err)
		}
		res, err := ResolveVersion(spec.Name, spec.SelectorKind, spec.Selector, pk.DistTags, pk.VersionList())
		if err != nil {
			return "", "", fmt.Errorf("%w: %w", ErrUnresolvable, err)
		}
		return spec.Name, res.Version, nil
	case SourceLocalDir:
		pj, err := readBoundedFile(filepath.Join(spec.Path, "package.json"), opts.Limits.MaxFileBytes)
		if err != nil {
			return "", "", fmt.Errorf("%w: %w: %w", ErrUnresolvable, ErrLocalSource, err)
		}
		return nameVersion(pj, spec.Path)
	case SourceLocalTarball:
		tgz, err := readLocalTarball(spec.Path, opts.Limits)
		if err != nil {
			return "", "", fmt.Errorf("%w: %w", ErrUnresolvable, err)
		}
		idx, err := ReadTarball(tgz, opts.Limits, func(rel string) bool { return rel == "package.json" })
		if err != nil {
			return "", "", fmt.Errorf("%w: %w", ErrUnresolvable, err)
		}
		pj, ok := idx.Read["package.json"]
		if !ok {
			return "", "", fmt.Errorf("%w: %w: %s has no package/package.json", ErrUnresolvable, ErrBadTarball, spec.Path)
		}
		return nameVersion(pj, spec.Path)
	}
	_, err = Fetch(ctx, spec, opts)
	return "", "", err
}

// nameVersion reads the name and version of a package.json as
// fetchLocal does.
func nameVersion(pj []byte, where string) (string, string, error) {
	var nameV, versionV any
	err := checkJSON(pj)
	if err == nil {
		err = fields(pj, map[string]any{"name": &nameV, "version": &versionV})
	}
	if err != nil {
		return "", "", fmt.Errorf("%w: %w: package.json in %s: %v", ErrUnresolvable, ErrBadMetadata, where, err)
	}
	name, _ := nameV.(string)
	version, _ := versionV.(string)
	if name == "" || version == "" {
		return "", "", fmt.Errorf("%w: %w: package.json in %s: name and version must be non-empty strings", ErrUnresolvable, ErrBadMetadata, where)
	}
	return name, version, nil
}
