package engine

import (
	"errors"
	"fmt"
)

// Sentinel errors, one per failure class. Test with errors.Is.
var (
	// ErrEngineMissing: no usable container engine was found.
	ErrEngineMissing = errors.New("no usable container engine")
	// ErrNotPinned: an image reference has no "@sha256:" digest.
	ErrNotPinned = errors.New("image reference is not pinned by sha256 digest")
	// ErrDigestMismatch: the image found has another manifest digest.
	ErrDigestMismatch = errors.New("image digest mismatch")
	// ErrImageNotFound: no image with the digest exists in the source.
	ErrImageNotFound = errors.New("image not found")
	// ErrRegistryUnreachable: the registry could not be contacted.
	ErrRegistryUnreachable = errors.New("registry unreachable")
	// ErrInsecureNotLoopback: plain-HTTP registry access was asked for a
	// registry that is not on a loopback address.
	ErrInsecureNotLoopback = errors.New("insecure registry access is allowed on loopback only")
	// ErrBadSpec: a RunSpec or Source is incomplete or contradictory.
	ErrBadSpec = errors.New("invalid run spec")
	// ErrEngine: the engine itself failed (podman/docker exit 125).
	ErrEngine = errors.New("container engine failed")
)

// DigestMismatchError carries both digests of a mismatch.
type DigestMismatchError struct {
	Ref      string
	Want     string // the digest pinned in Ref
	Got      string // the digest found
	Location string // where it was found, e.g. the archive path
}

func (e *DigestMismatchError) Error() string {
	return fmt.Sprintf("image %q: want manifest digest %s, %s has %s", e.Ref, e.Want, e.Location, e.Got)
}

// Unwrap makes errors.Is(err, ErrDigestMismatch) hold.
func (e *DigestMismatchError) Unwrap() error { return ErrDigestMismatch }
