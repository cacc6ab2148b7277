// Package rules owns the DSHIO dynamic-stage rules as pure functions:
// T1–T4 verdict derivation (DSHIO/T 20 chapters 6–9), first_error
// extraction (T 20 6.6), stage propagation and repetition stability
// (T 20 11), and the environment fingerprint (DSHIO/T 21 5.2, 6.3).
//
// Every function here takes evidence bytes and recorded observations and
// returns results. Nothing here does I/O or reads the clock; the runner and
// the verifier call the same functions, which is what makes a verdict in a
// bundle re-derivable. The normative description is SPEC.md
// "Dynamic-stage rules" with its subsections "T1 install", "T2 list",
// "T3 mount", "T4 boot", "first_error", "Propagation and stability" and
// "Fingerprint". Shared test vectors:
// testdata/dsh-evidence (real dsh output) with its expected.json.
package rules
