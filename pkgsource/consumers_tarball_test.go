package pkgsource

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"testing"

	"github.com/dshaudit/dshaudit/internal/testutil/oracle"
)

// TestTarballAsNodeTar is the differential test of the tarball reading
// (ReadTarball, and so TarballClaim and T0's inputs) against npm's,
// node-tar's extraction with the first component stripped, as pacote
// extracts (SPEC.md "Consumers", T1–T4): over generated tarballs,
// whatever ReadTarball accepts node-tar extracts without a warning into
// exactly the same regular files, with the same contents, and the same
// links.
func TestTarballAsNodeTar(t *testing.T) {
	tgzs := oracle.Tarballs(oracle.Seed(), max(oracle.N()/6, 1)) // node-tar extracts each to disk: a sixth of N
	node := oracle.NodeTar(t, tgzs)
	tally := oracle.Tally{}
	for i, tgz := range tgzs {
		tally["compared"]++
		idx, err := ReadTarball(tgz, Limits{}, func(string) bool { return true })
		js := node[i]
		switch {
		case err != nil && js.Error != "":
			tally["both-refused"]++
		case err != nil:
			tally["refused-other"]++ // node-tar extracts it; readers could differ (counted)
		case js.Error != "":
			t.Errorf("tarball %d: ReadTarball accepts %v, node-tar: %s", i, idx.Files, js.Error)
		default:
			tally["both-read"]++
			got := map[string]string{}
			for _, f := range idx.Files {
				s := sha256.Sum256(idx.Read[f])
				got[f] = hex.EncodeToString(s[:])
			}
			if !maps.Equal(got, js.Files) {
				t.Errorf("tarball %d: ReadTarball reads %v, node-tar extracts %v", i, got, js.Files)
			}
			links := slices.Clone(js.Links)
			slices.Sort(links)
			if !slices.Equal(idx.Links, links) && !(len(idx.Links) == 0 && len(links) == 0) {
				t.Errorf("tarball %d: ReadTarball's links %v, node-tar's %v", i, idx.Links, links)
			}
		}
	}
	t.Logf("seed %d: %s", oracle.Seed(), tally)
}
