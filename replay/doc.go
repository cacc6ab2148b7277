// Package replay owns reproducing a run from its bundle (SPEC.md
// "Replay"): re-running the exact recorded sequence against the image its
// digest names, and comparing the two bundles stage by stage after a
// documented normalisation of the evidence. The re-run goes through
// package runner; the comparison and the result types are pure and live
// in package replay/compare, which readers of results (report) import
// without pulling in the runner.
package replay
