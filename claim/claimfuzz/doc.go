// Package claimfuzz holds the fuzz target of claim.Check and nothing
// else. It is apart from package claim because claim's own tests verify
// real test-vector bundles (verify, attest), and a test binary that links
// sigstore-go caps any fuzz target at a few thousand executions a second
// whatever it does: the fuzzing engine passes over one coverage counter
// per instrumented block of everything linked in after each execution
// (DESIGN.md "Fuzzing"). Here the binary links claim and what it imports.
package claimfuzz
