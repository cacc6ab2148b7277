package runner

import "errors"

// Failure classes of Run and WriteBundle. Each returned error wraps one of
// them (and its cause), so callers map them with errors.Is.
var (
	// ErrOptions: the options are invalid (a usage error).
	ErrOptions = errors.New("invalid run options")
	// ErrUnresolvable: the package metadata could not be had, so T0 is
	// "unresolvable" (DSHIO/T 20 5.5) and no package exists to install.
	ErrUnresolvable = errors.New("package unresolvable")
	// ErrEnvironment: the environment stopped the run (engine, image,
	// registry, disk); never a plugin result.
	ErrEnvironment = errors.New("environment failure")
	// ErrEvidence: the observations could not be made into a bundle.
	ErrEvidence = errors.New("evidence could not be assembled")
)
