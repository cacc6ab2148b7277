package static

import (
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/internal/testutil/oracle"
)

// TestFilesAsNPMPacklist is the differential test of 5.3.1's patch
// coverage against npm's, npm-packlist reading a real package
// directory (SPEC.md "Consumers", D5): over generated files arrays,
// whenever 5.3.1 reads the patch as published, npm publishes it. 5.3.1
// may read less as published than npm does (a pattern without a slash
// matches at any depth for npm, a negation may be overridden by a later
// item): the test counts those.
func TestFilesAsNPMPacklist(t *testing.T) {
	cases := oracle.FilesCases(oracle.Seed(), max(oracle.N()/6, 1))
	npm := oracle.Packlist(t, cases)
	tally := oracle.Tally{}
	for i, c := range cases {
		tally["compared"]++
		var items, negated []filesItem
		for _, f := range c.Files {
			if strings.HasPrefix(f, "!") {
				negated = append(negated, readFilesItem(f[1:]))
			} else {
				items = append(items, readFilesItem(f))
			}
		}
		covered := false
		for _, it := range items {
			covered = covered || it.includes(c.Patch)
		}
		for _, n := range negated {
			covered = covered && !n.excludes(c.Patch)
		}
		switch {
		case covered && npm[i] != "1":
			t.Errorf("files %q, patch %s: 5.3.1 reads it as published, npm-packlist leaves it out (%s)", c.Files, c.Patch, npm[i])
		case covered:
			tally["both-read"]++
		case npm[i] == "1":
			tally["stricter"]++
		default:
			tally["both-refused"]++
		}
	}
	t.Logf("seed %d: %s (both-read: published to both; both-refused: left out by both; stricter: npm publishes it, 5.3.1 does not read it so)", oracle.Seed(), tally)
}
