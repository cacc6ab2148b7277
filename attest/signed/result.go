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
	// Certificate describes the verified certificate (keyless policy).
	Certificate *Certificate
	// ManifestSHA256 is the hex sha256 of the manifest, equal to the
	// statement's one subject digest.
	ManifestSHA256 string
	// Predicate is the signed dshaudit predicate.
	Predicate Predicate
	// AuditWorkflow is the build signer URI the runner policy accepted
	// (KeylessPolicy.Runner): dshaudit's audit workflow at a release
	// tag, on a GitHub-hosted runner. Empty without a runner policy: the
	// evidence is then the signer's word.
	AuditWorkflow string
	// Timestamps are the verified observer timestamps (transparency log
	// integrated time, RFC 3161); none for key-signed bundles.
	Timestamps []time.Time
}

// Certificate is what a verified Fulcio certificate says about its
// subject: the identity and issuer the policy matched, and the CI
// extensions Fulcio derives from the OIDC token's claims (OIDs
// 1.3.6.1.4.1.57264.1.*; for GitHub Actions the repository, ref, commit,
// workflow, trigger and run), empty when the token had none. Every value
// came from the certificate and is shown escaped like any other.
type Certificate struct {
	Identity string `json:"identity"`
	Issuer   string `json:"issuer"`
	// SourceRepository is the source repository URI (…1.12),
	// SourceRepositoryRef its ref (…1.14), SourceRepositoryDigest the
	// commit (…1.13).
	SourceRepository       string `json:"source_repository,omitempty"`
	SourceRepositoryRef    string `json:"source_repository_ref,omitempty"`
	SourceRepositoryDigest string `json:"source_repository_digest,omitempty"`
	// Workflow is the build config URI (…1.18): the workflow file at its
	// ref; Trigger the event (…1.20); Run the run invocation URI (…1.21).
	Workflow string `json:"workflow,omitempty"`
	Trigger  string `json:"trigger,omitempty"`
	Run      string `json:"run,omitempty"`
	// BuildSignerURI is the build signer URI (…1.9): on GitHub Actions
	// the job_workflow_ref, the workflow file whose job signed, at its
	// ref; for a reusable workflow that workflow, not the caller's.
	// BuildSignerDigest is its commit (…1.10). RunnerEnvironment (…1.11)
	// is "github-hosted" or "self-hosted".
	BuildSignerURI    string `json:"build_signer_uri,omitempty"`
	BuildSignerDigest string `json:"build_signer_digest,omitempty"`
	RunnerEnvironment string `json:"runner_environment,omitempty"`
	// NotBefore and NotAfter bound the certificate's validity.
	NotBefore time.Time `json:"not_before"`
	NotAfter  time.Time `json:"not_after"`
}
