// Package signed owns what a bundle signature vouches for, apart from the
// Sigstore code that makes and checks signatures (package attest): the
// dshaudit in-toto statement and predicate (SPEC.md "Signature"), the
// result of a successful check, the Checker interface a verifier calls,
// and the signature failure classes.
//
// It imports nothing from Sigstore. verify depends on signatures only
// through Checker, so verify and its fuzz target do not link sigstore-go:
// a Go fuzz target whose test binary links sigstore-go/pkg/verify runs at
// most about 4,700 executions a second on this project's machine, however
// little it does, because the fuzzing engine passes over every coverage
// counter of the binary after each execution (DESIGN.md "Fuzzing").
package signed
