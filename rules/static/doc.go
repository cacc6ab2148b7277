// Package static owns the DSHIO T0 static clauses (DSHIO/T 10 chapter 5 and
// Annex A, DSHIO/T 20 5.4–5.6) as pure functions: package.json bytes, patch
// bytes, README bytes, the baseline, the installed size and the entry
// schema in; clause-by-clause results and the conforming_static boolean
// out (Check). No I/O, no clock: runner and verifier call the same code.
// PatchPath tells the runner which patch file to fetch. Normative text:
// SPEC.md "T0 static check"; shared vectors: testdata/static/.
package static
