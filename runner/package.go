package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/internal/lazyregexp"
	"github.com/dshaudit/dshaudit/manifest"
)

// Package sources, as recorded in manifest.Subject.Source.
const (
	SourceRegistry     = "registry"
	SourceGitHub       = "github"
	SourceLocalTarball = "local-tarball"
	SourceLocalDir     = "local-dir"
)

// Package is what T0 obtained for one exact version of the package under
// test (DSHIO/T 20 5.3, DSHIO/T 10 7.2): the raw evidence and what T1
// needs to install that same version.
type Package struct {
	// Name and Version are the exact package tested.
	Name, Version string
	// Spec is the PACKAGE-SPEC as the user gave it.
	Spec string
	// Source is SourceRegistry, SourceGitHub, SourceLocalTarball or
	// SourceLocalDir.
	Source string
	// Metadata is the raw package.json of the version (registry version
	// object or the tarball's package.json).
	Metadata []byte
	// Patch is the raw patch file; nil with PatchFetchError when it
	// could not be had.
	Patch           []byte
	PatchFetchError string
	// README is the package README, nil when absent.
	README []byte
	// Tarball is the package tarball. For local sources it is what T1
	// installs (mounted read-only at /pkgs); for registry sources T1
	// installs Name@Version from the registry and Tarball is evidence of
	// its integrity only.
	Tarball []byte
	// Integrity is the npm integrity string (sha512-…) of Tarball;
	// TarballSHA256 its hex sha256.
	Integrity     string
	TarballSHA256 string
	// Registry is the registry base URL T0 used, "" for local sources.
	Registry string
	// Conditions are variable conditions of obtaining the package (the
	// registry and where its setting came from, CDN or tarball fallback
	// for the patch, how the version was resolved).
	Conditions []manifest.Condition
	// Warnings are discrepancies found while obtaining the package that
	// do not stop the run; they are shown to the user.
	Warnings []string
}

// Resolver obtains the T0 inputs for a PACKAGE-SPEC. When the metadata
// cannot be had it returns an error wrapping ErrUnresolvable (and
// ErrEnvironment as well when the registry could not be reached).
type Resolver func(ctx context.Context, spec string) (*Package, error)

// Container paths of the sequence (DESIGN.md "Running a test").
const (
	// ProfileMount is where the repetition's fresh profile directory is
	// mounted read-write; DSH_HOME points at it.
	ProfileMount = "/dsh-home"
	// PackageMount is where a local package's tarball directory is
	// mounted read-only.
	PackageMount = "/pkgs"
)

var tarballNameRE = lazyregexp.New(`^[a-z0-9][a-z0-9._-]*\.tgz$`)

// TarballFileName is npm pack's file name for name@version: a scope's
// "@" dropped and its "/" turned into "-", e.g. @fx/a 1.0.0 →
// fx-a-1.0.0.tgz.
func TarballFileName(name, version string) (string, error) {
	n := strings.TrimPrefix(name, "@")
	n = strings.Replace(n, "/", "-", 1)
	f := n + "-" + version + ".tgz"
	if !tarballNameRE.MatchString(f) || strings.Contains(f, "..") {
		return "", fmt.Errorf("%w: package %q version %q gives no safe tarball name (%q)", ErrOptions, name, version, f)
	}
	return f, nil
}

// isLocal reports whether T1 installs from the mounted tarball.
func (p *Package) isLocal() bool {
	return p.Source == SourceLocalTarball || p.Source == SourceLocalDir
}

// installSpec is the <package-spec> of the T1 command (DSHIO/T 21
// 5.1.8): name@exact-version for the registry, the mounted tarball for a
// local source. The same spec is recorded as the bundle subject's spec.
func (p *Package) installSpec() (string, error) {
	switch {
	case p.isLocal():
		f, err := TarballFileName(p.Name, p.Version)
		if err != nil {
			return "", err
		}
		return PackageMount + "/" + f, nil
	case p.Source == SourceRegistry:
		return p.Name + "@" + p.Version, nil
	default:
		return "", fmt.Errorf("%w: source %q of %q cannot be installed by T1 here", ErrOptions, p.Source, p.Spec)
	}
}

func (p *Package) validate() error {
	var probs []string
	if p.Name == "" || p.Version == "" {
		probs = append(probs, fmt.Sprintf("name %q or version %q empty", p.Name, p.Version))
	}
	if p.Metadata == nil {
		probs = append(probs, "no metadata")
	}
	if p.isLocal() && len(p.Tarball) == 0 {
		probs = append(probs, "local source without a tarball")
	}
	if len(probs) > 0 {
		return fmt.Errorf("%w: resolver returned an incomplete package for %q: %s", ErrEvidence, p.Spec, strings.Join(probs, "; "))
	}
	// The tarball is evidence (manifest.RoleTarball): one bundle entry,
	// so it is held to the reader's entry limit before anything runs.
	if n := int64(len(p.Tarball)); n > bundle.DefaultMaxEntrySize {
		return fmt.Errorf("%w: the package tarball of %s@%s is %d bytes; the bundle holds it as evidence and an entry may hold at most %d bytes (SPEC.md \"Reader limits and refusals\")", ErrEvidence, p.Name, p.Version, n, bundle.DefaultMaxEntrySize)
	}
	return nil
}
