package rules

import (
	"errors"
	"testing"

	"github.com/dshaudit/dshaudit/internal/jsonwalk"
	"github.com/dshaudit/dshaudit/internal/testutil/oracle"
)

// TestProfileAsJSONParse is the differential test of T1's reading of the
// profile package.json against its consumers, pnpm and dsh, which read
// it with Node's JSON.parse (SPEC.md "Consumers"): over generated and
// mutated documents, whatever ReadProfileDependency says of a name,
// JSON.parse's dependencies say too; where it refuses a document
// JSON.parse reads, the refusal is a reading conflict.
func TestProfileAsJSONParse(t *testing.T) {
	docs := oracle.JSONDocs(oracle.Seed()+2, oracle.N(), oracle.PackageJSONBase(t, ".."))
	node := oracle.JSONParse(t, docs)
	tally := oracle.Tally{}
	for i, d := range docs {
		for _, c := range []struct{ name, js string }{{"hello-dsh-plugin", node[i].DepHello}, {"a", node[i].DepA}} {
			tally["compared"]++
			dep, err := ReadProfileDependency(d, c.name)
			switch {
			case err == nil && !node[i].OK:
				t.Errorf("%q: T1 reads %+v of %s, JSON.parse refuses the document", d, dep, c.name)
			case err == nil:
				tally["both-read"]++
				got := "U"
				switch {
				case dep.Found && dep.NotString != "":
					got = "K" + dep.NotString
				case dep.Found:
					got = "s" + oracle.Hex16(dep.Value)
				}
				if got != c.js {
					t.Errorf("%q: T1 reads dependencies[%q] as %s, JSON.parse %s", d, c.name, got, c.js)
				}
			case errors.Is(err, jsonwalk.ErrConflict):
				tally["refused-conflict"]++
			case !node[i].OK || c.js == "X":
				tally["both-refused"]++
			default:
				tally["refused-other"]++
				t.Errorf("%q: T1 refuses (%v), JSON.parse reads dependencies[%q] as %s", d, err, c.name, c.js)
			}
		}
	}
	t.Logf("node %s, seed %d: %s", oracle.NodeVersion(t), oracle.Seed()+2, tally)
}
