package rules

import (
	"fmt"

	"github.com/Masterminds/semver/v3"
)

// BaselineComparison relates the dsh version a run used to the DSH
// baseline version (DSHIO/T 21 5.1.1, DSHIO/T 10 3.1).
type BaselineComparison struct {
	// Equal is true only when the two strings are identical. Anything else
	// is a condition deviation (DSHIO/T 21 8.1), even versions of equal
	// precedence that differ in build metadata.
	Equal bool
	// Order is the semantic-version order of dsh against the baseline:
	// -1 older, 0 same precedence, +1 newer.
	Order int
}

// CompareToBaseline compares the dsh version a run used with the baseline.
// Both must be exact versions (a range is not reproducible, DSHIO/T 21
// 5.1.1 note); the error then wraps ErrNotExactVersion and quotes the
// input. SPEC.md "Fingerprint".
func CompareToBaseline(dsh, baseline string) (BaselineComparison, error) {
	if err := exactVersion(dsh); err != nil {
		return BaselineComparison{}, fmt.Errorf("dsh version: %w (%v): %q", ErrNotExactVersion, err, dsh)
	}
	if err := exactVersion(baseline); err != nil {
		return BaselineComparison{}, fmt.Errorf("baseline version: %w (%v): %q", ErrNotExactVersion, err, baseline)
	}
	a, _ := semver.StrictNewVersion(dsh)
	b, _ := semver.StrictNewVersion(baseline)
	return BaselineComparison{Equal: dsh == baseline, Order: a.Compare(b)}, nil
}
