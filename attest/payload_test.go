package attest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
)

// SignPayload signs any in-toto payload; VerifyPayload gives it back
// only for the trusted signer, and DSSEEnvelope is the same envelope.
func TestSignVerifyPayload(t *testing.T) {
	payload := []byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[],"predicateType":"https://example.com/p","predicate":{}}`)
	for _, kt := range attest.KeyTypes {
		s := newSigner(t, kt)
		sig, err := attest.SignPayload(context.Background(), payload, s)
		if err != nil {
			t.Fatal(err)
		}
		got, res, err := attest.VerifyPayload(sig, attest.Policy{Key: s.PublicKey()})
		if err != nil || !bytes.Equal(got, payload) || res.KeyFingerprint != s.PublicKey().Fingerprint() {
			t.Fatalf("%s: VerifyPayload = %q, %+v, %v", kt, got, res, err)
		}
		_, _, err = attest.VerifyPayload(sig, attest.Policy{Key: newSigner(t, kt).PublicKey()})
		wantErr(t, err, attest.ErrWrongKey)
		altered := editJSON(t, sig, func(m map[string]any) { firstSig(m)["sig"] = flipB64(t, firstSig(m)["sig"].(string), 3) })
		_, _, err = attest.VerifyPayload(altered, attest.Policy{Key: s.PublicKey()})
		wantErr(t, err, attest.ErrSignatureInvalid)

		env, err := attest.DSSEEnvelope(sig)
		if err != nil {
			t.Fatal(err)
		}
		var e struct {
			PayloadType string `json:"payloadType"`
			Payload     []byte `json:"payload"`
			Signatures  []struct {
				Sig []byte `json:"sig"`
			} `json:"signatures"`
		}
		if err := json.Unmarshal(env, &e); err != nil || e.PayloadType != attest.PayloadType || !bytes.Equal(e.Payload, payload) || len(e.Signatures) != 1 {
			t.Fatalf("%s: envelope %s: %v", kt, env, err)
		}
	}
}

// VerifyPayload's keyless path: a certificate-signed payload verifies
// under the identity rule and not under another identity.
func TestVerifyPayloadKeyless(t *testing.T) {
	vs := newVirtualSigstore(t)
	sig := keylessBundle(t, vs, testIdentity, testIssuer, testManifest)
	_, res, err := attest.VerifyPayload(sig, keylessPolicy(vs))
	if err != nil || res.CertificateIdentity != testIdentity {
		t.Fatalf("keyless VerifyPayload: %+v, %v", res, err)
	}
	p := keylessPolicy(vs)
	p.Keyless.Identity = "mallory@example.com"
	_, _, err = attest.VerifyPayload(sig, p)
	wantErr(t, err, attest.ErrUntrustedSigner)
	_, _, err = attest.VerifyPayload(sig, attest.Policy{Key: newSigner(t, attest.Ed25519).PublicKey()})
	wantErr(t, err, attest.ErrWrongKey)
}

// SignPayload refuses no signer, typed or untyped, with ErrKey.
func TestSignPayloadNoSigner(t *testing.T) {
	payload := []byte(`{}`)
	for name, s := range map[string]attest.BundleSigner{"nil": nil, "nil key": (*attest.Signer)(nil), "nil keyless": (*attest.KeylessSigner)(nil)} {
		_, err := attest.SignPayload(context.Background(), payload, s)
		if !errors.Is(err, attest.ErrKey) {
			t.Errorf("%s: err %v, want ErrKey", name, err)
		}
	}
}
