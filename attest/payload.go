package attest

import (
	"context"
	"fmt"

	"github.com/sigstore/sigstore-go/pkg/verify"
	"google.golang.org/protobuf/encoding/protojson"
)

// SignPayload signs any in-toto statement: payload, already encoded, goes
// into a DSSE envelope (payloadType PayloadType) signed by signer inside
// a Sigstore bundle v0.3, returned as JSON in the same stable form as
// Sign's. Sign is this for the evidence statement; the verification
// summary (package vsa) is the other statement dshaudit signs. signer is
// a key or a keyless signer (BundleSigner). The new bundle is checked
// before it is returned: a key's with its public key, a keyless one's
// against its certificate's key and for the timestamps and log entries
// it asked for.
func SignPayload(ctx context.Context, payload []byte, signer BundleSigner) ([]byte, error) {
	if signer == nil || signer == (*Signer)(nil) || signer == (*KeylessSigner)(nil) {
		return nil, fmt.Errorf("%w: no signer", ErrKey)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out, err := signDSSE(ctx, signer, payload)
	if err != nil {
		return nil, err
	}
	if err := signer.selfCheckPayload(out); err != nil {
		return nil, fmt.Errorf("self-check of the new signature failed: %w", err)
	}
	return out, nil
}

// VerifyPayload checks that sigJSON is a Sigstore bundle v0.3 holding a
// one-signature in-toto DSSE envelope signed by the signer policy trusts,
// and returns the authenticated payload. It checks no subject: the
// caller knows which artifact the statement must name and checks it in
// the payload it gets back. Result.ManifestSHA256 and Result.Predicate
// are left empty. Errors wrap the package's failure classes.
func VerifyPayload(sigJSON []byte, policy Policy) ([]byte, *Result, error) {
	if err := policy.validate(); err != nil {
		return nil, nil, err
	}
	identity, err := policy.policyOptions()
	if err != nil {
		return nil, nil, err
	}
	b, err := parseBundle(sigJSON)
	if err != nil {
		return nil, nil, err
	}
	vc, err := b.VerificationContent()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: verification material: %w", ErrBundleMalformed, err)
	}
	switch {
	case policy.Key != nil && vc.PublicKey() == nil:
		return nil, nil, fmt.Errorf("%w: the bundle is signed with a certificate, not with key %s", ErrWrongKey, policy.Key.Fingerprint())
	case policy.Keyless != nil && vc.Certificate() == nil:
		return nil, nil, fmt.Errorf("%w: the bundle is signed with a bare public key (hint %q); keyless verification needs a certificate", ErrUntrustedSigner, vc.PublicKey().Hint())
	}
	sc, err := b.SignatureContent()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrBundleMalformed, err)
	}
	if err := verify.VerifySignature(sc, vc, policy.trustedMaterial()); err != nil {
		if policy.Key != nil {
			if hint := vc.PublicKey().Hint(); hint != "" && hint != policy.Key.Hint() {
				return nil, nil, fmt.Errorf("%w: the bundle names key hint %q, the trusted key %s has hint %q: %w", ErrWrongKey, hint, policy.Key.Fingerprint(), policy.Key.Hint(), err)
			}
			return nil, nil, fmt.Errorf("%w: does not verify with key %s (altered envelope or signature, or another key): %w", ErrSignatureInvalid, policy.Key.Fingerprint(), err)
		}
		return nil, nil, fmt.Errorf("%w: does not verify with the certificate's key: %w", ErrSignatureInvalid, err)
	}
	verifier, err := verify.NewVerifier(policy.trustedMaterial(), policy.verifierOptions()...)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrAmbiguousPolicy, err)
	}
	// The subject is the caller's to check, in the payload returned.
	res, err := verifier.Verify(b, verify.NewPolicy(verify.WithoutArtifactUnsafe(), identity...))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrUntrustedSigner, err)
	}
	out := &Result{}
	recordSigner(out, policy, res)
	if err := recordCertificate(out, policy, res, vc, nil); err != nil {
		return nil, nil, err
	}
	return b.GetDsseEnvelope().GetPayload(), out, nil
}

// DSSEEnvelope returns the DSSE envelope of a Sigstore bundle on its own,
// as JSON (payloadType, payload, signatures), the form tools that read a
// bare envelope take (slsa-verifier's verify-vsa). The bundle is parsed
// as VerifyPayload parses it; its signature is not checked.
func DSSEEnvelope(sigJSON []byte) ([]byte, error) {
	b, err := parseBundle(sigJSON)
	if err != nil {
		return nil, err
	}
	raw, err := protojson.Marshal(b.GetDsseEnvelope())
	if err != nil {
		return nil, fmt.Errorf("encode envelope: %w", err)
	}
	return stableJSON(raw)
}
