// Package static owns the DSHIO T0 static clauses (DSHIO/T 10 chapter 5 and
// Annex A, DSHIO/T 20 5.4–5.5) as pure functions: package.json bytes, patch
// bytes, README bytes and the baseline in; clause-by-clause results and the
// conforming_static boolean out. No I/O, no clock. SPEC.md section 5.
package static
