package runner

import (
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/rules"
)

// captureReserve is the part of bundle.DefaultMaxTotal left for what is not
// stage output: the manifest, the static and environment files and T1's
// profile package.json (together a few tens of KiB).
const captureReserve = 1 << 20

// OutputLimit is the capture limit of each stream of a stage run in a run
// of repeat repetitions (DESIGN.md "Capture limit"): engine.DefaultOutputLimit,
// lowered so that the evidence of every stage of every repetition (stdout
// and stderr at the limit, and merged, which holds both) fits the reader's
// default bundle.DefaultMaxTotal. A run's bundle is then never one that
// a verifier's default limits refuse, whatever the plugin prints.
func OutputLimit(repeat int) int {
	if repeat < 1 {
		repeat = 1
	}
	perStream := (bundle.DefaultMaxTotal - captureReserve) / (int64(repeat) * int64(len(rules.DynamicStages)) * 4)
	return int(min(perStream, engine.DefaultOutputLimit))
}
