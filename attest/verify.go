package attest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/dshaudit/dshaudit/attest/signed"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/signature"
)

// MaxSignatureSize bounds the signature file Verify parses. A key-signed
// bundle is about 0.9 KiB, a keyless one with certificate, log entry and
// timestamp about 5 KiB.
const MaxSignatureSize = 1 << 20

// Verify checks that sigJSON is a Sigstore bundle signing manifest as a
// dshaudit evidence statement, by the signer policy trusts. It is fully
// offline. Every error wraps one of the package's sentinel errors.
func Verify(sigJSON, manifest []byte, policy Policy) (*Result, error) {
	if err := policy.validate(); err != nil {
		return nil, err
	}
	identity, err := policy.policyOptions()
	if err != nil {
		return nil, err
	}
	b, err := parseBundle(sigJSON)
	if err != nil {
		return nil, err
	}
	vc, err := b.VerificationContent()
	if err != nil {
		return nil, fmt.Errorf("%w: verification material: %w", ErrBundleMalformed, err)
	}
	switch {
	case policy.Key != nil && vc.PublicKey() == nil:
		return nil, fmt.Errorf("%w: the bundle is signed with a certificate, not with key %s", ErrWrongKey, policy.Key.Fingerprint())
	case policy.Keyless != nil && vc.Certificate() == nil:
		return nil, fmt.Errorf("%w: the bundle is signed with a bare public key (hint %q); keyless verification needs a certificate", ErrUntrustedSigner, vc.PublicKey().Hint())
	}

	verifier, err := verify.NewVerifier(policy.trustedMaterial(), policy.verifierOptions()...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAmbiguousPolicy, err)
	}
	digest := sha256.Sum256(manifest)
	hexDigest := hex.EncodeToString(digest[:])
	res, err := verifier.Verify(b, verify.NewPolicy(verify.WithArtifactDigest(DigestAlgorithm, digest[:]), identity...))
	if err != nil {
		return nil, classify(b, vc, policy, verifier, identity, hexDigest, err)
	}

	// The envelope's payload is now authenticated; check it is ours.
	st, err := signed.DecodeStatement(b.GetDsseEnvelope().GetPayload())
	if err != nil {
		return nil, err
	}
	if err := st.CheckSubject(hexDigest); err != nil {
		return nil, err
	}
	out := &Result{ManifestSHA256: hexDigest, Predicate: st.Predicate}
	recordSigner(out, policy, res)
	if err := recordCertificate(out, policy, res, vc, &st.Predicate.Tool); err != nil {
		return nil, err
	}
	return out, nil
}

// recordCertificate records what a keyless signer's certificate says in
// out.Certificate and holds it to the policy's runner rule, if any, with
// the signed tool (nil: not checked here).
func recordCertificate(out *Result, policy Policy, res *verify.VerificationResult, vc verify.VerificationContent, tool *signed.Tool) error {
	c := res.Signature.Certificate
	if policy.Key != nil || c == nil {
		return nil
	}
	out.Certificate = &signed.Certificate{
		Identity: c.SubjectAlternativeName, Issuer: c.Extensions.Issuer,
		SourceRepository: c.Extensions.SourceRepositoryURI, SourceRepositoryRef: c.Extensions.SourceRepositoryRef,
		SourceRepositoryDigest: c.Extensions.SourceRepositoryDigest,
		Workflow:               c.Extensions.BuildConfigURI, Trigger: c.Extensions.BuildTrigger, Run: c.Extensions.RunInvocationURI,
		BuildSignerURI: c.Extensions.BuildSignerURI, BuildSignerDigest: c.Extensions.BuildSignerDigest,
		RunnerEnvironment: c.Extensions.RunnerEnvironment,
	}
	if leaf := vc.Certificate(); leaf != nil {
		out.Certificate.NotBefore, out.Certificate.NotAfter = leaf.NotBefore.UTC(), leaf.NotAfter.UTC()
	}
	if r := policy.Keyless.Runner; r != nil {
		if err := r.check(out.Certificate, tool); err != nil {
			return err
		}
		out.AuditWorkflow = out.Certificate.BuildSignerURI
	}
	return nil
}

// parseBundle parses at most MaxSignatureSize bytes of bundle JSON and
// checks it is a v0.3 bundle with a one-signature in-toto DSSE envelope.
func parseBundle(sigJSON []byte) (*bundle.Bundle, error) {
	if len(bytes.TrimSpace(sigJSON)) == 0 {
		return nil, fmt.Errorf("%w: the signature file is empty", ErrNoSignature)
	}
	if len(sigJSON) > MaxSignatureSize {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrBundleMalformed, len(sigJSON), MaxSignatureSize)
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(sigJSON); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBundleMalformed, err)
	}
	if b.GetMediaType() != BundleMediaType {
		return nil, fmt.Errorf("%w: mediaType %q, want %q", ErrBundleMalformed, b.GetMediaType(), BundleMediaType)
	}
	env := b.GetDsseEnvelope()
	if env == nil {
		return nil, fmt.Errorf("%w: the bundle holds a message signature, want a DSSE envelope", ErrBundleMalformed)
	}
	if env.GetPayloadType() != PayloadType {
		return nil, fmt.Errorf("%w: DSSE payloadType %q, want %q", ErrBundleMalformed, env.GetPayloadType(), PayloadType)
	}
	switch n := len(env.GetSignatures()); {
	case n == 0:
		return nil, fmt.Errorf("%w: the DSSE envelope has no signature", ErrNoSignature)
	case n > 1:
		return nil, fmt.Errorf("%w: the DSSE envelope has %d signatures, want 1", ErrBundleMalformed, n)
	}
	return &b, nil
}

// classify turns a failed sigstore-go verification into one failure class
// by re-checking its parts in order: the bare signature, the statement's
// shape, the signer (trust and identity) without the artifact, and last
// the subject. manifestDigest is the manifest's hex sha256.
func classify(b *bundle.Bundle, vc verify.VerificationContent, policy Policy, verifier *verify.Verifier, identity []verify.PolicyOption, manifestDigest string, verr error) error {
	sc, err := b.SignatureContent()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBundleMalformed, err)
	}
	if err := verify.VerifySignature(sc, vc, policy.trustedMaterial()); err != nil {
		if policy.Key != nil {
			if hint := vc.PublicKey().Hint(); hint != "" && hint != policy.Key.Hint() {
				return fmt.Errorf("%w: the bundle names key hint %q, the trusted key %s has hint %q: %w", ErrWrongKey, hint, policy.Key.Fingerprint(), policy.Key.Hint(), err)
			}
			return fmt.Errorf("%w: does not verify with key %s (altered envelope or signature, or another key): %w", ErrSignatureInvalid, policy.Key.Fingerprint(), err)
		}
		return fmt.Errorf("%w: does not verify with the certificate's key: %w", ErrSignatureInvalid, err)
	}
	// The signature holds, so the payload is what the signer signed; if
	// it is not a dshaudit statement, say so.
	st, err := signed.DecodeStatement(b.GetDsseEnvelope().GetPayload())
	if err != nil {
		return err
	}
	if _, err := verifier.Verify(b, verify.NewPolicy(verify.WithoutArtifactUnsafe(), identity...)); err != nil {
		return fmt.Errorf("%w: %w%s", ErrUntrustedSigner, err, validityContext(b, vc, policy))
	}
	// Signature and signer hold; what failed is the subject.
	if err := st.CheckSubject(manifestDigest); err != nil {
		return err
	}
	return fmt.Errorf("%w: %w", ErrSubjectMismatch, verr)
}

// verifier returns the sigstore signature verifier for the key, loaded
// once per parsed key.
func (k *PublicKey) verifier() (signature.Verifier, error) {
	if k.loaded == nil {
		return k.loadVerifier()
	}
	k.loaded.once.Do(func() { k.loaded.v, k.loaded.err = k.loadVerifier() })
	return k.loaded.v, k.loaded.err
}

func (k *PublicKey) loadVerifier() (signature.Verifier, error) {
	details, err := signature.GetAlgorithmDetails(k.algorithm())
	if err != nil {
		return nil, err
	}
	return signature.LoadVerifierFromAlgorithmDetails(k.key, details)
}

// trustedMaterial trusts exactly this key, whatever hint the bundle
// carries (the hint is unauthenticated; the signature decides), with no
// validity window: a dshaudit key does not expire, it is retired by no
// longer being trusted.
func (k *PublicKey) trustedMaterial() root.TrustedMaterial {
	return root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) {
		v, err := k.verifier()
		if err != nil {
			return nil, err
		}
		return root.NewExpiringKey(v, time.Time{}, time.Time{}), nil
	})
}

// validityContext says, for a keyless failure, when the certificate was
// valid and when the trusted timestamp authorities say it signed, so that
// a timestamp outside the validity is named as such. Empty for a key
// policy or when there is nothing to say.
func validityContext(b *bundle.Bundle, vc verify.VerificationContent, policy Policy) string {
	leaf := vc.Certificate()
	if policy.Keyless == nil || leaf == nil {
		return ""
	}
	ctx := fmt.Sprintf(" (certificate valid %s to %s", leaf.NotBefore.UTC().Format(time.RFC3339), leaf.NotAfter.UTC().Format(time.RFC3339))
	ts, _, err := verify.VerifySignedTimestamp(b, policy.Keyless.TrustedMaterial)
	if err == nil {
		for _, t := range ts {
			at := t.Time.UTC()
			where := "inside"
			if at.Before(leaf.NotBefore) || at.After(leaf.NotAfter) {
				where = "OUTSIDE"
			}
			ctx += fmt.Sprintf("; RFC 3161 timestamp %s, %s the validity", at.Format(time.RFC3339), where)
		}
	}
	return ctx + ")"
}

// recordSigner sets what a verified signature says of its signer: the
// verified timestamps, and the key's fingerprint or the certificate's
// identity and issuer. Verify adds the certificate's extensions.
func recordSigner(out *Result, policy Policy, res *verify.VerificationResult) {
	for _, ts := range res.VerifiedTimestamps {
		out.Timestamps = append(out.Timestamps, ts.Timestamp)
	}
	if policy.Key != nil {
		out.KeyFingerprint = policy.Key.Fingerprint()
		out.Signer = "key " + out.KeyFingerprint
	} else if c := res.Signature.Certificate; c != nil {
		out.CertificateIdentity = c.SubjectAlternativeName
		out.CertificateIssuer = c.Extensions.Issuer
		out.Signer = fmt.Sprintf("%s (issuer %s)", c.SubjectAlternativeName, c.Extensions.Issuer)
	}
}
