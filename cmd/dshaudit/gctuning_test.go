package main

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/dshaudit/dshaudit/internal/gcstart"
)

// TestGCTuningKeptForVerifyOnly: `dshaudit verify` keeps the start-up GC
// tuning wherever the global flags stand (DESIGN.md "Start-up cost");
// every other command, `image verify` included, gets Go's defaults.
func TestGCTuningKeptForVerifyOnly(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	for _, c := range []struct {
		args []string
		kept bool
	}{
		{[]string{"verify", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey}, true},
		{[]string{"--width", "80", "verify", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey}, true},
		{[]string{"--max-text=50", "verify", "--json", vecDir + "pass.dshaudit.tar.zst", "--key", vecKey}, true},
		{[]string{"inspect", vecDir + "pass.dshaudit.tar.zst"}, false},
		{[]string{"--width", "80", "inspect", vecDir + "pass.dshaudit.tar.zst"}, false},
		{[]string{"image", "verify", "--help"}, true}, // --help runs no command, so nothing changes
		{[]string{"image", "verify", "x@sha256:00"}, false},
	} {
		debug.SetGCPercent(gcstart.StartupPercent)
		debug.SetMemoryLimit(gcstart.MemoryLimit)
		gcstart.Tuned = true
		runCLI(t, c.args...)
		if kept := debug.SetGCPercent(100) == gcstart.StartupPercent; kept != c.kept {
			t.Errorf("%q: GC tuning kept %v, want %v", c.args, kept, c.kept)
		}
	}
	gcstart.Tuned = false
}
