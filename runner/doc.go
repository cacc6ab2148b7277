// Package runner owns running a test: the DSHIO/T 20 T0–T4 sequence for
// real, under the DSHIO/T 21 conditions, into the observations package
// assemble turns into an evidence bundle, and writing that bundle signed
// and atomically. It obtains the T0 inputs through a Resolver (package
// pkgsource behind it), runs every T1–T4 command in a fresh container of
// an image pinned by digest through an engine.Engine, reads the profile
// left on the host after T1, records every condition and every deviation
// item by item, and derives each stage with package rules as it goes so
// that the sequence stops at the first failing stage (DSHIO/T 20 11.2).
//
// The runner judges nothing itself: the verdicts in the bundle are the
// ones assemble.Build derives with the same code the verifier runs.
// DESIGN.md "Running a test" describes it; what the bundle must record
// is SPEC.md "Test conditions".
package runner
