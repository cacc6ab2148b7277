package signed

import "errors"

// Failure classes (SPEC.md "Signature", "Checks and failure classes").
// Every error a Checker returns wraps exactly one of them with %w, so
// callers branch with errors.Is; key parsing and key generation errors
// wrap ErrKey. Package attest re-exports each under the same name.
var (
	// ErrNoSignature: there is no signature at all (empty signature file,
	// or a DSSE envelope with no signature in it).
	ErrNoSignature = errors.New("no signature")
	// ErrBundleMalformed: the signature file is not a Sigstore bundle v0.3
	// holding a DSSE envelope with a dshaudit in-toto statement, is too
	// large, or cannot be parsed.
	ErrBundleMalformed = errors.New("malformed signature bundle")
	// ErrSignatureInvalid: the DSSE signature does not verify over the
	// envelope's content: the envelope or the signature was altered.
	ErrSignatureInvalid = errors.New("signature invalid")
	// ErrStatementUnsupported: the signature is valid, but what it signs
	// is not a dshaudit evidence statement: another in-toto statement
	// version (v0.1, as cosign attest-blob writes), another predicate
	// type, a predicate of another shape, or not a statement at all.
	ErrStatementUnsupported = errors.New("the signed statement is not a dshaudit evidence statement")
	// ErrWrongKey: the bundle was signed, but not by the public key the
	// policy names.
	ErrWrongKey = errors.New("signed by a different key")
	// ErrUntrustedSigner: the signature verifies, but the signer does not
	// meet the keyless policy: certificate not issued by the trusted root,
	// identity or issuer not the expected ones, transparency log entry,
	// timestamp or SCT missing or invalid, or a bare key where a
	// certificate is required.
	ErrUntrustedSigner = errors.New("untrusted signer")
	// ErrSubjectMismatch: the signature is valid and trusted, but the
	// statement's subject is not the manifest given (its sha256 differs,
	// or the statement names other subjects).
	ErrSubjectMismatch = errors.New("statement subject does not match manifest")
	// ErrAmbiguousPolicy: the verification policy is not exactly one of
	// key or keyless, or a keyless policy has no identity rule and does
	// not explicitly waive it, or no policy was given at all.
	ErrAmbiguousPolicy = errors.New("ambiguous verification policy")
	// ErrKey: a key file or key type is unusable (wrong PEM type,
	// encrypted, unsupported algorithm, file exists on generate).
	ErrKey = errors.New("key")
)
