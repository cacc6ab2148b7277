package static

import (
	"testing"

	"github.com/dshaudit/dshaudit/internal/testutil/oracle"
)

// TestFilesAsNPMPacklist is the differential test of 5.3.1's patch
// coverage, and of its reading of lib as published, against npm's, npm-packlist reading a real package
// directory (SPEC.md "Consumers", D5): over generated files arrays,
// whenever 5.3.1 reads the patch (or lib) as published, npm publishes
// it (lib: its probe file, dirProbe, which the package holds). 5.3.1
// may read less as published than npm does (a pattern without a slash
// matches at any depth for npm, a negation may be overridden by a later
// item): the test counts those.
func TestFilesAsNPMPacklist(t *testing.T) {
	cases := oracle.FilesCases(oracle.Seed(), max(oracle.N()/6, 1))
	npm := oracle.Packlist(t, cases)
	tally, libTally := oracle.Tally{}, oracle.Tally{}
	for i, c := range cases {
		tally["compared"]++
		items, negated := readFilesArray(c.Files)
		if len(npm[i]) != 2 {
			t.Fatalf("files %q: npm-packlist answered %q", c.Files, npm[i])
		}
		lib := dirPublished("lib", items, negated)
		libTally["compared"]++
		switch {
		case lib && npm[i][1] != '1':
			t.Errorf("files %q: 5.3.1 reads lib as published, npm-packlist leaves lib/%s out", c.Files, dirProbe)
		case lib:
			libTally["both-read"]++
		case npm[i][1] == '1':
			libTally["stricter"]++
		default:
			libTally["both-refused"]++
		}
		covered := false
		for _, it := range items {
			covered = covered || it.includes(c.Patch)
		}
		for _, n := range negated {
			covered = covered && !n.excludes(c.Patch)
		}
		switch {
		case covered && npm[i][0] != '1':
			t.Errorf("files %q, patch %s: 5.3.1 reads it as published, npm-packlist leaves it out (%s)", c.Files, c.Patch, npm[i])
		case covered:
			tally["both-read"]++
		case npm[i][0] == '1':
			tally["stricter"]++
		default:
			tally["both-refused"]++
		}
	}
	t.Logf("seed %d: %s (both-read: published to both; both-refused: left out by both; stricter: npm publishes it, 5.3.1 does not read it so); lib: %s", oracle.Seed(), tally, libTally)
}
