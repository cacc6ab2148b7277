package signed

import "time"

// Checker checks a bundle's signature file against the bundle's raw
// manifest bytes (SPEC.md "Signature"). attest.Policy is the Checker
// dshaudit uses. On failure the error wraps exactly one of this package's
// failure classes.
type Checker interface {
	Check(signature, manifest []byte) (*Result, error)
}

// Result is what a successful check established.
type Result struct {
	// Signer names who signed, for people: "key sha256:<hex>" or
	// "<certificate SAN> (issuer <OIDC issuer>)".
	Signer string
	// KeyFingerprint is the trusted key's fingerprint (key policy).
	KeyFingerprint string
	// CertificateIdentity and CertificateIssuer are the verified
	// certificate's SAN and OIDC issuer (keyless policy).
	CertificateIdentity, CertificateIssuer string
	// ManifestSHA256 is the hex sha256 of the manifest, equal to the
	// statement's one subject digest.
	ManifestSHA256 string
	// Predicate is the signed dshaudit predicate.
	Predicate Predicate
	// Timestamps are the verified observer timestamps (transparency log
	// integrated time, RFC 3161); none for key-signed bundles.
	Timestamps []time.Time
}
