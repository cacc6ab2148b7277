package pkgmeta

import (
	"errors"
	"testing"

	"github.com/dshaudit/dshaudit/internal/jsonwalk"
	"github.com/dshaudit/dshaudit/internal/testutil/oracle"
)

// TestNamesAsJSONParse is the differential test of Names against its
// consumer, Node's JSON.parse (SPEC.md "Consumers"): over generated and
// mutated documents, whatever name and version Names reads, JSON.parse
// reads too; where JSON.parse reads an object with string members,
// Names reads them or refuses a reading conflict.
func TestNamesAsJSONParse(t *testing.T) {
	docs := oracle.JSONDocs(oracle.Seed()+1, oracle.N(), oracle.PackageJSONBase(t, "../.."))
	for _, d := range edgeDocs {
		docs = append(docs, []byte(d))
	}
	node := oracle.JSONParse(t, docs)
	tally := oracle.Tally{}
	asJS := func(s string, null bool) string {
		if null {
			return "Knull"
		}
		return "s" + oracle.Hex16(s)
	}
	for i, d := range docs {
		tally["compared"]++
		name, version, err := Names(d)
		js := node[i]
		switch {
		case err == nil && !js.OK:
			t.Errorf("%q: Names reads %q@%q, JSON.parse refuses the document", d, name, version)
		case err == nil:
			tally["both-read"]++
			if n := asJS(name, name == "" && js.Name == "Knull"); n != js.Name {
				t.Errorf("%q: Names reads the name %q (%s), JSON.parse %s", d, name, n, js.Name)
			}
			if v := asJS(version, version == "" && js.Version == "Knull"); v != js.Version {
				t.Errorf("%q: Names reads the version %q (%s), JSON.parse %s", d, version, v, js.Version)
			}
		case errors.Is(err, jsonwalk.ErrConflict):
			tally["refused-conflict"]++
		case !js.OK || js.Name == "X" || js.Name == "U" || js.Version == "U" || js.Name[0] == 'K' || js.Version[0] == 'K':
			tally["both-refused"]++ // no name and version strings for either
		default:
			tally["refused-other"]++
			t.Errorf("%q: Names refuses (%v), JSON.parse reads %s@%s", d, err, js.Name, js.Version)
		}
	}
	t.Logf("node %s, seed %d: %s", oracle.NodeVersion(t), oracle.Seed()+1, tally)
}
