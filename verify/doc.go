// Package verify owns offline verification of an evidence bundle (SPEC.md
// "Verification"): archive safety, the signature, every file against the
// manifest, re-derivation of every verdict from the raw evidence with the
// same rules the runner used, a cross-check of every other fact the
// writer states (check_*.go, one file per class of SPEC.md "What the
// verifier cross-checks"), and the report rules. The writer is the party
// whose claim is checked, so nothing it says is trusted: every manifest
// field is derived, cross-checked, or listed in Report.Unverified. It
// needs no network and no container, and it never imports the runner (a
// test says so).
package verify
