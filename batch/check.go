package batch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/dshaudit/dshaudit/verify"
)

// ErrNotOurs marks a bundle that verifies but is not the task's: another
// package, or another image.
var ErrNotOurs = errors.New("bundle is not this task's")

// BundleChecker returns the Check of Options: the bundle verifies with
// opts (signature, files, every verdict re-derived), names the task's
// package@version, and its fingerprint names the image digest.
func BundleChecker(opts verify.Options, digest string) func(ctx context.Context, t Task) (string, error) {
	return func(ctx context.Context, t Task) (string, error) {
		f, err := os.Open(t.Bundle)
		if err != nil {
			return "", err
		}
		defer f.Close()
		rep, err := verify.Verify(ctx, t.Bundle, f, opts)
		if err != nil {
			return "", err
		}
		if !rep.OK() {
			why := string(rep.Status)
			if len(rep.Findings) > 0 {
				why += ": " + rep.Findings[0].String()
			}
			return "", errors.New(why)
		}
		if rep.PackageID() != t.Package {
			return "", fmt.Errorf("%w: it names %q, the task %q", ErrNotOurs, rep.PackageID(), t.Package)
		}
		if !strings.Contains(rep.Fingerprint+";", "@"+digest+";") {
			return "", fmt.Errorf("%w: fingerprint %q does not name image %s", ErrNotOurs, rep.Fingerprint, digest)
		}
		return rep.SummaryVerdict(), nil
	}
}
