// Package assemble owns turning raw observations into the content of an
// evidence bundle: the evidence file layout (SPEC.md "Evidence file
// layout"), the claimed verdicts derived with package rules and package
// static, the usability for certification, and the DSHIO/T 10 8.1
// declaration text. It does no I/O and reads no clock: the runner, the
// test-vector generator and replay all call it, and the verifier re-derives
// what it claims with the same rules.
package assemble
