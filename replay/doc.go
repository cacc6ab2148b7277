// Package replay owns reproducing a run from its bundle (SPEC.md
// "Replay"): re-running the exact recorded sequence against the image its
// digest names, and comparing the two bundles stage by stage after a
// documented normalisation of the evidence. The comparison is pure
// (compare.go, normalise.go); the re-run goes through package runner.
package replay
