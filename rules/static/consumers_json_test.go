package static

import (
	"errors"
	"testing"

	"github.com/dshaudit/dshaudit/internal/jsonwalk"
	"github.com/dshaudit/dshaudit/internal/testutil/oracle"
)

// TestPackageJSONAsJSONParse is the differential test of T0's reading of
// package.json against its consumer, Node's JSON.parse (SPEC.md
// "Consumers"): over generated and mutated documents, whatever
// parsePackageJSON accepts, JSON.parse reads as the same value, member
// for member; what JSON.parse refuses, parsePackageJSON refuses; and
// what parsePackageJSON refuses beyond that is a reading conflict.
func TestPackageJSONAsJSONParse(t *testing.T) {
	docs := oracle.JSONDocs(oracle.Seed(), oracle.N(), oracle.PackageJSONBase(t, "../.."))
	node := oracle.JSONParse(t, docs)
	tally := oracle.Tally{}
	for i, d := range docs {
		tally["compared"]++
		m, err := parsePackageJSON(d, MaxPackageJSONBytes)
		js := node[i]
		switch {
		case err == nil && !js.OK:
			t.Errorf("%q: T0 reads an object, JSON.parse refuses the document", d)
		case err == nil:
			tally["both-read"]++
			if got := oracle.Canon(map[string]any(m)); got != js.Tree {
				t.Errorf("%q: T0 reads %s, JSON.parse %s", d, got, js.Tree)
			}
		case !js.OK:
			tally["both-refused"]++
		case errors.Is(err, jsonwalk.ErrConflict):
			tally["refused-conflict"]++
		case js.Tree[0] != '{':
			tally["both-refused"]++ // not an object: no package.json for either
		default:
			tally["refused-other"]++
			t.Errorf("%q: T0 refuses (%v), JSON.parse reads %s and no reader differs", d, err, js.Tree)
		}
	}
	t.Logf("node %s, seed %d: %s", oracle.NodeVersion(t), oracle.Seed(), tally)
}
