// Package hosttool finds the external programs dshaudit runs on the host
// (npm, debootstrap, …) and reports a missing one in one error class, so
// every command turns it into exit 3 ("could not run") naming the program
// and how to install it.
package hosttool

import (
	"errors"
	"fmt"
	"os/exec"
)

// ErrMissing marks an external program that is not installed (not on
// PATH, or the configured path is not an executable).
var ErrMissing = errors.New("required program not installed")

// Look returns the path of the program name (a name looked up on PATH, or
// a path). When it cannot be found the error wraps ErrMissing and names
// the program and install, the way to install it.
func Look(name, install string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w: %s (%s): %w", ErrMissing, name, install, err)
	}
	return p, nil
}
