package rules

import "errors"

// Sentinel errors. Callers test them with errors.Is; messages wrap them
// with the field or stage concerned and the offending input quoted.
var (
	// ErrPatch: a plugin patch is not YAML or not a top-level list.
	ErrPatch = errors.New("patch is not a list of patch items")
	// ErrMissingObservation: a stage that had to run has no observation.
	ErrMissingObservation = errors.New("missing observation")
	// ErrStageMismatch: an observation is labelled with another stage.
	ErrStageMismatch = errors.New("observation belongs to another stage")
	// ErrNotFingerprint: a string is not a DSHIO/T 21 5.2/6.3 fingerprint.
	ErrNotFingerprint = errors.New("not a test environment fingerprint")
	// ErrNoDigest: an image reference carries no sha256 digest.
	ErrNoDigest = errors.New("image is not pinned by a sha256 digest")
	// ErrNotExactVersion: a version is a range or otherwise not exact.
	ErrNotExactVersion = errors.New("not an exact version")
)
