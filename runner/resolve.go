package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/dshaudit/dshaudit/internal/hosttool"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/pkgsource"
)

// PkgsourceResolver is the Resolver over package pkgsource: the registry
// npm is configured with (or opts.Registry), the public CDNs for the
// patch with the tarball as fallback, local tarballs and directories.
// Its errors wrap ErrOptions for a spec that is not a PACKAGE-SPEC or a
// local path that cannot be read, ErrEnvironment when the registry could
// not be reached or the tarball not be had, and ErrUnresolvable when the
// registry answered but the metadata cannot be had (unknown package or
// version, malformed metadata).
func PkgsourceResolver(opts pkgsource.Options) Resolver {
	return func(ctx context.Context, raw string) (*Package, error) {
		spec, err := pkgsource.ParseSpec(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrOptions, err)
		}
		f, err := pkgsource.Fetch(ctx, spec, opts)
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return nil, ctx.Err()
			case errors.Is(err, hosttool.ErrMissing):
				return nil, fmt.Errorf("%w: %w", ErrEnvironment, err)
			case errors.Is(err, pkgsource.ErrInvalidSpec), errors.Is(err, pkgsource.ErrLocalSource):
				return nil, fmt.Errorf("%w: %w", ErrOptions, err)
			case errors.Is(err, pkgsource.ErrRegistryUnreachable):
				return nil, fmt.Errorf("%w: %w (check the registry and the network, then run again)", ErrEnvironment, err)
			case errors.Is(err, pkgsource.ErrUnresolvable):
				return nil, fmt.Errorf("%w: %w", ErrUnresolvable, err)
			}
			// The metadata was had but the tarball was not (integrity,
			// size, a broken download): the run cannot go on.
			return nil, fmt.Errorf("%w: %w", ErrEnvironment, err)
		}
		return packageOf(raw, f), nil
	}
}

func packageOf(raw string, f *pkgsource.Fetched) *Package {
	p := &Package{
		Name: f.Name, Version: f.Version, Spec: raw, Source: string(f.Source),
		Metadata: f.MetadataJSON, Patch: f.Patch, PatchFetchError: f.PatchFetchError,
		README: f.README, Tarball: f.Tarball, Integrity: f.Integrity, TarballSHA256: f.TarballSHA256,
		Registry: f.Registry,
	}
	for _, c := range f.Conditions {
		p.Conditions = append(p.Conditions, manifest.Condition{Name: c.Name, Value: c.Value})
	}
	if f.PatchSource != "" && f.PatchSource != "tarball" {
		p.Conditions = append(p.Conditions, manifest.Condition{Name: "patch_source", Value: f.PatchSource})
	}
	p.Warnings = append(p.Warnings, f.Warnings...)
	return p
}
