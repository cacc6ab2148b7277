package attest

import (
	"fmt"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// Policy says whom to trust. Exactly one of Key and Keyless is set;
// anything else is refused with ErrAmbiguousPolicy (SPEC.md "Signature",
// "Verification policies").
type Policy struct {
	// Key trusts one public key. The bundle must carry a public-key hint
	// (not a certificate); no transparency log entry or timestamp is
	// required, so verification is fully offline.
	Key *PublicKey
	// Keyless trusts a Sigstore deployment (Fulcio, Rekor, TSA, CT logs)
	// described by a trusted root, and a certificate identity.
	Keyless *KeylessPolicy
}

// KeylessPolicy is the policy for certificate-signed (keyless) bundles.
// An identity rule is required: either both a SAN rule (Identity or
// IdentityRegexp) and an issuer rule (OIDCIssuer or OIDCIssuerRegexp), or
// InsecureAnyIdentity explicitly, never both.
type KeylessPolicy struct {
	// TrustedMaterial is the trusted root, from LoadTrustedRoot or
	// root.NewTrustedRootFromJSON.
	TrustedMaterial root.TrustedMaterial
	// Identity is the exact certificate SAN (e-mail, URI), or
	// IdentityRegexp a Go regexp it must match.
	Identity, IdentityRegexp string
	// OIDCIssuer is the exact OIDC issuer in the certificate's Fulcio
	// issuer extension, or OIDCIssuerRegexp a Go regexp it must match.
	OIDCIssuer, OIDCIssuerRegexp string
	// InsecureAnyIdentity accepts any certificate the trusted root
	// issued. Anyone who can get a Fulcio certificate passes.
	InsecureAnyIdentity bool
	// InsecureIgnoreSCT does not require a signed certificate timestamp
	// in the certificate. Public-good Fulcio always embeds one.
	InsecureIgnoreSCT bool
	// InsecureIgnoreTlog does not require a transparency log entry, for
	// bundles signed without a log: only an RFC 3161 timestamp then
	// proves when the certificate signed, and nothing makes the
	// signature publicly auditable.
	InsecureIgnoreTlog bool
	// Runner, when set, requires the certificate to name dshaudit's
	// audit workflow at a release tag as its build signer, on a
	// GitHub-hosted runner, and the signed tool version to be the tag's
	// (SPEC.md "Runner policy").
	Runner *RunnerPolicy
}

// maxTrustedRootSize bounds a trusted_root.json file.
const maxTrustedRootSize = 4 << 20

// LoadTrustedRoot reads a Sigstore trusted_root.json (at most 4 MiB), e.g.
// the one `cosign trusted-root create` writes or the public-good root
// fetched with TUF.
func LoadTrustedRoot(path string) (*root.TrustedRoot, error) {
	b, err := readBounded(path, maxTrustedRootSize)
	if err != nil {
		return nil, err
	}
	tr, err := root.NewTrustedRootFromJSON(b)
	if err != nil {
		return nil, fmt.Errorf("%s: not a Sigstore trusted root: %w", path, err)
	}
	return tr, nil
}

// validate refuses a policy that is not exactly one of key or keyless,
// or a keyless policy without a complete identity rule or waiver.
func (p Policy) validate() error {
	switch {
	case p.Key == nil && p.Keyless == nil:
		return fmt.Errorf("%w: give a public key or a trusted root", ErrAmbiguousPolicy)
	case p.Key != nil && p.Keyless != nil:
		return fmt.Errorf("%w: give a public key or a trusted root, not both", ErrAmbiguousPolicy)
	case p.Key != nil:
		return nil
	}
	k := p.Keyless
	if k.TrustedMaterial == nil {
		return fmt.Errorf("%w: keyless policy without a trusted root", ErrAmbiguousPolicy)
	}
	hasSAN := k.Identity != "" || k.IdentityRegexp != ""
	hasIssuer := k.OIDCIssuer != "" || k.OIDCIssuerRegexp != ""
	switch {
	case k.Identity != "" && k.IdentityRegexp != "":
		return fmt.Errorf("%w: certificate identity and identity regexp both given", ErrAmbiguousPolicy)
	case k.OIDCIssuer != "" && k.OIDCIssuerRegexp != "":
		return fmt.Errorf("%w: OIDC issuer and issuer regexp both given", ErrAmbiguousPolicy)
	case k.Runner != nil && k.Runner.validate() != nil:
		return k.Runner.validate()
	case k.InsecureAnyIdentity && (hasSAN || hasIssuer):
		return fmt.Errorf("%w: an identity rule and the any-identity waiver both given", ErrAmbiguousPolicy)
	case k.InsecureAnyIdentity:
		return nil
	case !hasSAN || !hasIssuer:
		return fmt.Errorf("%w: keyless verification needs a certificate identity and an OIDC issuer (or the explicit any-identity waiver)", ErrAmbiguousPolicy)
	}
	return nil
}

// verifierOptions are the sigstore-go verifier settings for the policy.
//
// Key: WithNoObserverTimestamps. A long-lived key the verifier trusts
// directly has no certificate whose validity window needs a trusted
// time, so no transparency log entry or timestamp is needed; the trust
// decision is "this key signed it", which is checkable offline forever.
//
// Keyless: the certificate is short-lived, so a trusted time inside its
// window is required: at least one observer timestamp (Rekor integrated
// time or RFC 3161 TSA) and one transparency log entry (inclusion proof
// checked against the trusted root's Rekor key), plus an SCT, the last
// two unless waived.
func (p Policy) verifierOptions() []verify.VerifierOption {
	if p.Key != nil {
		return []verify.VerifierOption{verify.WithNoObserverTimestamps()}
	}
	opts := []verify.VerifierOption{verify.WithObserverTimestamps(1)}
	if !p.Keyless.InsecureIgnoreTlog {
		opts = append(opts, verify.WithTransparencyLog(1))
	}
	if !p.Keyless.InsecureIgnoreSCT {
		opts = append(opts, verify.WithSignedCertificateTimestamps(1))
	}
	return opts
}

// policyOptions are the sigstore-go identity settings for the policy.
func (p Policy) policyOptions() ([]verify.PolicyOption, error) {
	if p.Key != nil {
		return []verify.PolicyOption{verify.WithKey()}, nil
	}
	k := p.Keyless
	if k.InsecureAnyIdentity {
		return []verify.PolicyOption{verify.WithoutIdentitiesUnsafe()}, nil
	}
	id, err := verify.NewShortCertificateIdentity(k.OIDCIssuer, k.OIDCIssuerRegexp, k.Identity, k.IdentityRegexp)
	if err != nil {
		return nil, fmt.Errorf("%w: identity rule: %w", ErrAmbiguousPolicy, err)
	}
	return []verify.PolicyOption{verify.WithCertificateIdentity(id)}, nil
}

// trustedMaterial is what sigstore-go checks against.
func (p Policy) trustedMaterial() root.TrustedMaterial {
	if p.Keyless != nil {
		return p.Keyless.TrustedMaterial
	}
	return p.Key.trustedMaterial()
}
