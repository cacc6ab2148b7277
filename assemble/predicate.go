package assemble

import (
	"github.com/dshaudit/dshaudit/manifest"
)

// StaticOnlyVerdict is the signed predicate's verdict for a bundle whose
// dynamic layer was not run (SPEC.md "Signature").
const StaticOnlyVerdict = "static_only"

// PredicateVerdict is the verdict the signed in-toto predicate carries:
// the manifest's claimed overall verdict, or StaticOnlyVerdict.
func PredicateVerdict(m *manifest.Manifest) string {
	if m.Claimed.Verdict == "" {
		return StaticOnlyVerdict
	}
	return m.Claimed.Verdict
}
