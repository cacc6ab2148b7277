package runner

import (
	"testing"

	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/rules"
)

// TestOutputLimitFitsReaderDefaults: at every allowed repeat, a run whose
// every stream reaches the capture limit still makes a bundle that the
// reader's default limits accept, and a T3 dump just above the rule's
// dump limit is still captured whole (so it derives config_failed for its
// size, not for a cut).
func TestOutputLimitFitsReaderDefaults(t *testing.T) {
	for repeat := 1; repeat <= MaxRepeat; repeat++ {
		l := int64(OutputLimit(repeat))
		stageFiles := 4 * l // stdout and stderr at the limit, merged holding both
		total := int64(repeat)*int64(len(rules.DynamicStages))*stageFiles + captureReserve
		switch {
		case l > engine.DefaultOutputLimit:
			t.Errorf("repeat %d: limit %d above the engine's %d", repeat, l, engine.DefaultOutputLimit)
		case 2*l > bundle.DefaultMaxEntrySize:
			t.Errorf("repeat %d: a merged record of %d bytes exceeds MaxEntrySize %d", repeat, 2*l, bundle.DefaultMaxEntrySize)
		case total > bundle.DefaultMaxTotal:
			t.Errorf("repeat %d: worst-case evidence %d bytes exceeds MaxTotal %d", repeat, total, bundle.DefaultMaxTotal)
		case l <= rules.DefaultMaxDumpSize:
			t.Errorf("repeat %d: limit %d does not exceed the T3 dump limit %d", repeat, l, rules.DefaultMaxDumpSize)
		}
	}
}
