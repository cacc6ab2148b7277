package image

import "errors"

// Failure classes of an image build. Every error the package returns wraps
// exactly one of them.
var (
	// ErrBadPath: a path that is empty or escapes the image root.
	ErrBadPath = errors.New("bad image path")
	// ErrBadInput: an input (root filesystem, tarball, flag value) is not
	// what the build needs.
	ErrBadInput = errors.New("bad build input")
	// ErrVersionNotPublished: the registry does not serve the requested
	// version of a package.
	ErrVersionNotPublished = errors.New("version not published")
	// ErrIntegrity: a downloaded tarball does not match its integrity string.
	ErrIntegrity = errors.New("integrity mismatch")
	// ErrInstall: installing dsh with pnpm failed.
	ErrInstall = errors.New("dsh install failed")
	// ErrResolution: the resolved dependency tree breaks the resolution
	// cutoff, or cannot be checked against it.
	ErrResolution = errors.New("resolution outside cutoff")
	// ErrHostPathLeak: the staged install still names the host staging
	// directory after normalisation.
	ErrHostPathLeak = errors.New("host path leaked into layer")
	// ErrSmoke: the built dsh does not run (dsh --version in the staged
	// tree printed something other than the version built).
	ErrSmoke = errors.New("built dsh does not run")
	// ErrRegistry: the npm registry or an image registry could not be read
	// or written.
	ErrRegistry = errors.New("registry unavailable")
	// ErrEngine: the container engine failed to load the image.
	ErrEngine = errors.New("container engine failed")
	// ErrLockStale: the Debian mirror no longer serves a locked .deb
	// (LockStaleError names them).
	ErrLockStale = errors.New("locked debian package no longer served")
	// ErrBaseBuild: mmdebstrap failed, or installed other than the lock.
	ErrBaseBuild = errors.New("base root filesystem build failed")
	// ErrImageDiffers: a rebuilt image is not the image given
	// (ImageDiffError names the layers and files).
	ErrImageDiffers = errors.New("rebuilt image differs")
)
