package attest

import "github.com/dshaudit/dshaudit/attest/signed"

// Failure classes (SPEC.md "Signature", "Checks and failure classes"),
// defined in package signed and re-exported here. Every error Verify
// returns wraps exactly one of them with %w, so callers branch with
// errors.Is; key parsing and key generation errors wrap ErrKey.
var (
	ErrNoSignature          = signed.ErrNoSignature
	ErrBundleMalformed      = signed.ErrBundleMalformed
	ErrSignatureInvalid     = signed.ErrSignatureInvalid
	ErrStatementUnsupported = signed.ErrStatementUnsupported
	ErrWrongKey             = signed.ErrWrongKey
	ErrUntrustedSigner      = signed.ErrUntrustedSigner
	ErrSubjectMismatch      = signed.ErrSubjectMismatch
	ErrAmbiguousPolicy      = signed.ErrAmbiguousPolicy
	ErrKey                  = signed.ErrKey
)
