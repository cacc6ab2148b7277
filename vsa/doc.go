// Package vsa is dshaudit's verification summary: a SLSA Verification
// Summary Attestation v1 (predicate https://slsa.dev/verification_summary/v1)
// saying that one verifier verified one evidence bundle of one npm
// package tarball under one version of SPEC.md, with what result and at
// which dshaudit levels (SPEC.md "Verification summary").
//
// Build makes the statement from the facts of a verification, Encode
// gives its bytes (a function of those facts alone: no clock unless a
// time is given), Decode reads a signed one, and Check applies the VSA
// specification's "How to verify" steps after the signature (package
// attest) has been checked. It imports nothing of dshaudit's.
package vsa
