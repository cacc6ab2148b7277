package static

import (
	"fmt"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
)

// RangeResult is whether one semver range admits a version under the two
// rules dshaudit applies (SPEC.md "5.2.2 Version range includes the
// baseline version").
type RangeResult struct {
	Range string
	// Err is the range's parse error; the booleans are false when set.
	Err error
	// Masterminds is Masterminds/semver v3's answer: a prerelease version
	// is admitted when the comparator set it is tested against contains
	// any prerelease. DSHIO/T 10 5.2.2's example requires this rule.
	Masterminds bool
	// NPM is npm's answer (node-semver, used by dsh and pnpm): a
	// prerelease version is admitted only when some comparator of the
	// satisfied comparator set has a prerelease with the same
	// major.minor.patch.
	NPM bool
}

// Disagree reports whether the two rules give different answers.
func (r RangeResult) Disagree() bool { return r.Err == nil && r.Masterminds != r.NPM }

// AdmitsBaseline evaluates rng against version v under both rules.
func AdmitsBaseline(rng string, v *semver.Version) RangeResult {
	r := RangeResult{Range: rng}
	if strings.TrimSpace(rng) == "" {
		rng = "*" // npm reads an empty range as "*"; Masterminds refuses it
	}
	c, err := semver.NewConstraint(rng)
	if err != nil {
		r.Err = err
		return r
	}
	r.Masterminds = c.Check(v)
	r.NPM = npmAdmits(rng, c, v)
	return r
}

// npmAdmits applies npm's prerelease rule on top of Masterminds' parsing:
// each "||" comparator set is evaluated by Masterminds with prereleases
// included, and a prerelease v then passes only when a comparator of that
// set carries a prerelease with v's major.minor.patch. The comparators'
// other semantics are Masterminds', not a reimplementation of node-semver.
// whole is rng parsed; a range of one comparator set, with no space
// around it, is that set, so it is not parsed again.
func npmAdmits(rng string, whole *semver.Constraints, v *semver.Version) bool {
	if v.Prerelease() != "" && strings.IndexByte(rng, '-') < 0 {
		// A comparator's version is text from rng (or from Masterminds'
		// rewriting of "a - b" into ">= a, <= b"), so without a "-" none
		// has a prerelease, and npm's rule admits no prerelease version.
		return false
	}
	groups := strings.Split(rng, "||")
	for _, group := range groups {
		var gc *semver.Constraints
		if len(groups) == 1 && group == strings.TrimSpace(group) {
			c := *whole // Check only reads it; the copy keeps whole's setting
			gc = &c
		} else {
			var err error
			if gc, err = semver.NewConstraint(strings.TrimSpace(group)); err != nil {
				continue
			}
		}
		gc.IncludePrerelease = true
		if !gc.Check(v) {
			continue
		}
		if v.Prerelease() == "" {
			return true
		}
		for _, tok := range strings.Fields(gc.String()) {
			if strings.IndexByte(tok, '-') < 0 {
				continue // no prerelease without a "-"; spares the parse
			}
			cv, err := semver.NewVersion(strings.TrimLeft(tok, "=!<>~^"))
			if err != nil {
				continue // "*", "1.x" and the like carry no prerelease
			}
			if cv.Prerelease() != "" && cv.Major() == v.Major() && cv.Minor() == v.Minor() && cv.Patch() == v.Patch() {
				return true
			}
		}
	}
	return false
}

// defaultBaseline is DefaultBaseline parsed, once.
var defaultBaseline = sync.OnceValues(func() (*semver.Version, error) {
	return semver.NewVersion(DefaultBaseline)
})

// parseBaseline parses a baseline version; DefaultBaseline, the one
// nearly every check uses, is parsed once. The *semver.Version is shared,
// and only read.
func parseBaseline(s string) (*semver.Version, error) {
	if s == DefaultBaseline {
		return defaultBaseline()
	}
	return semver.NewVersion(s)
}

// admitWord renders one rule's answer.
func admitWord(b bool) string {
	if b {
		return "admits"
	}
	return "does not admit"
}

// describe renders both answers for Observed; quoted is quote(r.Range).
func (r RangeResult) describe(quoted, baseline string) string {
	if r.Err != nil {
		return quoted + ": invalid range (" + r.Err.Error() + ")"
	}
	return quoted + " vs baseline " + baseline + ": Masterminds " + admitWord(r.Masterminds) + ", npm " + admitWord(r.NPM)
}

// disagreement is the warning for two rules disagreeing; quoted is
// quote(r.Range).
func (r RangeResult) disagreement(where, quoted, baseline string) string {
	return fmt.Sprintf("%s %s: the semver rules disagree on baseline %s: Masterminds/semver v3 (the rule DSHIO/T 10 5.2.2's example requires; the verdict follows it) %s it, npm's prerelease rule (used by dsh and pnpm, which compare a prerelease only within the same major.minor.patch) %s it",
		where, quoted, baseline, admitWord(r.Masterminds), admitWord(r.NPM))
}
