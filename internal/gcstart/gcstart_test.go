package gcstart

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestRestore: init tuned the collector (go test runs without GOGC and
// GOMEMLIMIT unless the caller set them), and Restore returns it to Go's
// defaults.
func TestRestore(t *testing.T) {
	if !Tuned {
		t.Skip("GOGC or GOMEMLIMIT is set in the environment: init left the collector alone, as documented")
	}
	if got := debug.SetGCPercent(StartupPercent); got != StartupPercent {
		t.Fatalf("GC percent after init %d, want %d", got, StartupPercent)
	}
	if got := debug.SetMemoryLimit(-1); got != MemoryLimit {
		t.Fatalf("memory limit after init %d, want %d", got, MemoryLimit)
	}
	Restore()
	if got := debug.SetGCPercent(-1); got != 100 {
		t.Errorf("GC percent after Restore %d, want 100", got)
	}
	debug.SetGCPercent(100)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit after Restore %d, want none", got)
	}
}
