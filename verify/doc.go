// Package verify owns offline verification of an evidence bundle (SPEC.md
// "Verification"): archive safety, the signature, every file against the
// manifest, re-derivation of every verdict from the raw evidence with the
// same rules the runner used, and the report rules of DSHIO/T 20 12,
// DSHIO/T 21 5.2 and 8.2 and DSHIO/T 10 8.2. It needs no network and no
// container, and it never imports the runner (a test says so).
package verify
