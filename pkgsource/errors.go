package pkgsource

import (
	"errors"

	"github.com/dshaudit/dshaudit/internal/pkgtar"
)

// Failure classes. Fetch wraps each with %w together with its cause, so
// errors.Is works on both.
var (
	// ErrUnresolvable marks every failure that leaves the package
	// metadata unobtainable: the T0 result "unresolvable" (DSHIO/T 20
	// 5.5). It is always joined with a more specific cause.
	ErrUnresolvable = errors.New("metadata unresolvable")
	// ErrPackageNotFound: the registry answered 404 for the package.
	ErrPackageNotFound = errors.New("package not found")
	// ErrVersionNotFound: the package exists but no version matches the
	// spec's version, range or dist-tag.
	ErrVersionNotFound = errors.New("version not found")
	// ErrRegistryUnreachable: network, DNS, TLS or timeout failure talking
	// to the registry, or a 5xx answer. An environment failure.
	ErrRegistryUnreachable = errors.New("registry unreachable")
	// ErrIntegrity: the tarball's sha512 differs from the registry's
	// dist.integrity, or the registry gives no usable sha512 integrity.
	ErrIntegrity = errors.New("integrity check failed")
	// ErrTooLarge: a response, tarball or tarball entry exceeds its limit.
	ErrTooLarge = pkgtar.ErrTooLarge
	// ErrBadMetadata: the registry's packument or version object is not
	// what the npm registry API specifies.
	ErrBadMetadata = errors.New("malformed registry metadata")
	// ErrBadTarball: the tarball is not a readable gzip tar, or it is
	// hostile (path escapes, duplicate or oversized entries).
	ErrBadTarball = pkgtar.ErrBadTarball
	// ErrBadPatchPath: dsh.bundle.patch is not a safe relative path.
	ErrBadPatchPath = errors.New("unsafe patch path")
	// ErrInvalidSpec: ParseSpec rejected the PACKAGE-SPEC.
	ErrInvalidSpec = errors.New("invalid package spec")
	// ErrNotFetchable: the spec is valid but its source cannot be
	// reached from here (github: specs; no network to GitHub).
	ErrNotFetchable = errors.New("cannot be fetched here")
	// ErrLocalSource: a local tarball or directory could not be read or
	// packed.
	ErrLocalSource = errors.New("local source unreadable")
)
