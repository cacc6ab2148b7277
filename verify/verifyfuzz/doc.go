// Package verifyfuzz holds the fuzz target of verify.Verify and nothing
// else. It is apart from package verify because verify's own tests check
// real Sigstore signatures (attest), and a test binary that links
// sigstore-go caps any fuzz target at about 4,700 executions a second
// (DESIGN.md "Fuzzing"). Here the signature check is a stand-in that
// trusts the statement without its signature; attest.FuzzVerify fuzzes
// the real one.
package verifyfuzz
