package bundle

import "io"

// ReadTar exposes readTar to the external tests of this directory
// (tarnames_diff_test.go, which imports internal/e2etest, which imports
// this package).
func ReadTar(stream io.Reader, lim Limits) (*Archive, error) { return readTar(stream, lim, nil) }
