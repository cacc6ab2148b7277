// Package attest owns the signature of a dshaudit evidence bundle: it signs
// the manifest as an in-toto Statement inside a DSSE envelope inside a
// standard Sigstore bundle (v0.3), and verifies such a signature offline,
// either against a public key or, keyless, against a Sigstore trusted root
// with a certificate identity policy. It also generates and loads the key
// files. SPEC.md "Signature" is the normative description.
//
// The Sigstore bundle is built and checked by sigstore-go (pkg/sign,
// pkg/verify); this package chooses the content, the policy, and maps
// failures to one sentinel error per failure class.
package attest
