// Package gcstart tunes the garbage collector before the dependency tree
// initialises (DESIGN.md "Start-up cost"). A dshaudit process is short:
// the package initialisation of its dependencies allocates about 4 MiB,
// and the collector's default pacing (GOGC=100 from a 4 MiB start) spends
// a quarter of a typical verification's CPU collecting garbage that the
// process's exit would free anyway.
//
// Its init raises the GC percentage to StartupPercent and sets a soft
// memory limit of MemoryLimit bytes, unless GOGC or GOMEMLIMIT are set in
// the environment, which always win. The CLI's root command keeps that
// for `dshaudit verify`, whose memory the reader limits bound, and calls
// Restore before every other command, whose memory (a large report page, a long batch) is not bounded
// by that limit. Go initialises the packages that are
// ready in import-path order, so this package, which depends only on
// runtime/debug and os, runs before most of the tree; main imports it for
// that side effect.
package gcstart

import (
	"math"
	"os"
	"runtime/debug"
)

const (
	// StartupPercent is the GC percentage while dshaudit runs: the heap
	// may grow to five times the live data before a collection.
	StartupPercent = 400
	// MemoryLimit is the soft limit that makes the collector run sooner
	// when the heap nears it, so that a larger heap target never takes a
	// verification of a large bundle past the memory it would have used
	// with the default pacing (SPEC.md "Reader limits and refusals").
	MemoryLimit = 96 << 20
)

// Tuned reports whether init changed the collector's settings.
var Tuned bool

func init() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(StartupPercent)
	debug.SetMemoryLimit(MemoryLimit)
	Tuned = true
}

// Restore returns the collector to Go's defaults (GOGC=100, no memory
// limit) if init changed it.
func Restore() {
	if !Tuned {
		return
	}
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
	Tuned = false
}
