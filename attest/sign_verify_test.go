package attest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
)

func TestSignVerifyRoundTrip(t *testing.T) {
	for _, kt := range attest.KeyTypes {
		t.Run(string(kt), func(t *testing.T) {
			s := newSigner(t, kt)
			sig := signManifest(t, s, testManifest)
			res, err := attest.Verify(sig, testManifest, attest.Policy{Key: s.PublicKey()})
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if res.KeyFingerprint != s.PublicKey().Fingerprint() || res.Signer != "key "+s.PublicKey().Fingerprint() {
				t.Errorf("signer = %q / %q, want key %s", res.Signer, res.KeyFingerprint, s.PublicKey().Fingerprint())
			}
			if res.Predicate != testPredicate {
				t.Errorf("predicate = %+v, want %+v", res.Predicate, testPredicate)
			}
			if len(res.Timestamps) != 0 {
				t.Errorf("timestamps = %v, want none for a key-signed bundle", res.Timestamps)
			}

			// The bundle is the documented standard format.
			var b struct {
				MediaType            string `json:"mediaType"`
				VerificationMaterial struct {
					PublicKey struct{ Hint string } `json:"publicKey"`
				} `json:"verificationMaterial"`
				DsseEnvelope struct {
					Payload     []byte `json:"payload"`
					PayloadType string `json:"payloadType"`
					Signatures  []struct{ Sig []byte }
				} `json:"dsseEnvelope"`
			}
			if err := json.Unmarshal(sig, &b); err != nil {
				t.Fatal(err)
			}
			if b.MediaType != attest.BundleMediaType || b.DsseEnvelope.PayloadType != attest.PayloadType || len(b.DsseEnvelope.Signatures) != 1 {
				t.Errorf("bundle = %s", sig)
			}
			if b.VerificationMaterial.PublicKey.Hint != s.PublicKey().Hint() {
				t.Errorf("hint = %q, want %q", b.VerificationMaterial.PublicKey.Hint, s.PublicKey().Hint())
			}
			var st struct {
				Type    string `json:"_type"`
				Subject []struct {
					Name   string
					Digest map[string]string
				}
				PredicateType string
				Predicate     map[string]any
			}
			if err := json.Unmarshal(b.DsseEnvelope.Payload, &st); err != nil {
				t.Fatal(err)
			}
			if st.Type != "https://in-toto.io/Statement/v1" || st.PredicateType != "https://dshaudit.dev/evidence/v1" ||
				len(st.Subject) != 1 || st.Subject[0].Name != "manifest.json" || st.Subject[0].Digest["sha256"] != res.ManifestSHA256 {
				t.Errorf("statement = %s", b.DsseEnvelope.Payload)
			}
		})
	}
}

func TestSignDeterminism(t *testing.T) {
	ed := newSigner(t, attest.Ed25519)
	a, b := signManifest(t, ed, testManifest), signManifest(t, ed, testManifest)
	if !bytes.Equal(a, b) {
		t.Errorf("ed25519 bundles differ:\n%s\n%s", a, b)
	}
	ec := newSigner(t, attest.ECDSAP256)
	if bytes.Equal(signManifest(t, ec, testManifest), signManifest(t, ec, testManifest)) {
		t.Errorf("ecdsa-p256 bundles identical; ECDSA signatures are expected to be randomised")
	}
}

func TestVerifyWrongKey(t *testing.T) {
	for _, kt := range attest.KeyTypes {
		t.Run(string(kt), func(t *testing.T) {
			sig := signManifest(t, newSigner(t, kt), testManifest)
			other := newSigner(t, attest.Ed25519).PublicKey()
			_, err := attest.Verify(sig, testManifest, attest.Policy{Key: other})
			wantErr(t, err, attest.ErrWrongKey)

			// Without the hint the bundle cannot say whose it is: the
			// signature just does not verify.
			noHint := editJSON(t, sig, func(m map[string]any) {
				m["verificationMaterial"].(map[string]any)["publicKey"] = map[string]any{}
			})
			_, err = attest.Verify(noHint, testManifest, attest.Policy{Key: other})
			wantErr(t, err, attest.ErrSignatureInvalid)
		})
	}
}

func TestVerifyEditedManifest(t *testing.T) {
	s := newSigner(t, attest.Ed25519)
	sig := signManifest(t, s, testManifest)
	for name, m := range map[string][]byte{
		"first byte": edit(testManifest, 0),
		"last byte":  edit(testManifest, len(testManifest)-1),
		"appended":   append(bytes.Clone(testManifest), ' '),
		"empty":      {},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := attest.Verify(sig, m, attest.Policy{Key: s.PublicKey()})
			wantErr(t, err, attest.ErrSubjectMismatch)
		})
	}
}

func TestVerifyEditedSignature(t *testing.T) {
	for _, kt := range attest.KeyTypes {
		s := newSigner(t, kt)
		sig := signManifest(t, s, testManifest)
		for name, f := range map[string]func(m map[string]any){
			"signature bit": func(m map[string]any) { firstSig(m)["sig"] = flipB64(t, firstSig(m)["sig"].(string), 10) },
			"signature last bit": func(m map[string]any) {
				firstSig(m)["sig"] = flipB64(t, firstSig(m)["sig"].(string), -1)
			},
			// An attacker re-points the subject at an edited manifest.
			"payload subject": func(m map[string]any) {
				p, _ := base64.StdEncoding.DecodeString(dsse(m)["payload"].(string))
				edited := edit(testManifest, 0)
				p = bytes.Replace(p, []byte(attest.ManifestDigestForTest(testManifest)), []byte(attest.ManifestDigestForTest(edited)), 1)
				dsse(m)["payload"] = base64.StdEncoding.EncodeToString(p)
			},
			"payload verdict": func(m map[string]any) {
				p, _ := base64.StdEncoding.DecodeString(dsse(m)["payload"].(string))
				p = bytes.Replace(p, []byte(`"verdict":"pass"`), []byte(`"verdict":"boot_failed"`), 1)
				dsse(m)["payload"] = base64.StdEncoding.EncodeToString(p)
			},
		} {
			t.Run(string(kt)+"/"+name, func(t *testing.T) {
				_, err := attest.Verify(editJSON(t, sig, f), testManifest, attest.Policy{Key: s.PublicKey()})
				wantErr(t, err, attest.ErrSignatureInvalid)
			})
		}
	}
}

func TestVerifyMalformed(t *testing.T) {
	s := newSigner(t, attest.Ed25519)
	sig := signManifest(t, s, testManifest)
	cases := map[string]struct {
		in   []byte
		want error
	}{
		"empty":        {nil, attest.ErrNoSignature},
		"whitespace":   {[]byte(" \n\t"), attest.ErrNoSignature},
		"not json":     {[]byte("not json"), attest.ErrBundleMalformed},
		"truncated":    {sig[:len(sig)/2], attest.ErrBundleMalformed},
		"array":        {[]byte("[]"), attest.ErrBundleMalformed},
		"empty object": {[]byte("{}"), attest.ErrBundleMalformed},
		"null":         {[]byte("null"), attest.ErrBundleMalformed},
		"unknown field": {editJSON(t, sig, func(m map[string]any) { m["extra"] = 1 }),
			attest.ErrBundleMalformed},
		"no signatures": {editJSON(t, sig, func(m map[string]any) { dsse(m)["signatures"] = []any{} }),
			attest.ErrNoSignature},
		"two signatures": {editJSON(t, sig, func(m map[string]any) {
			dsse(m)["signatures"] = []any{firstSig(m), firstSig(m)}
		}), attest.ErrBundleMalformed},
		"payload type": {editJSON(t, sig, func(m map[string]any) { dsse(m)["payloadType"] = "text/plain" }),
			attest.ErrBundleMalformed},
		"media type v0.2": {editJSON(t, sig, func(m map[string]any) {
			m["mediaType"] = "application/vnd.dev.sigstore.bundle+json;version=0.2"
		}), attest.ErrBundleMalformed},
		"media type other": {editJSON(t, sig, func(m map[string]any) { m["mediaType"] = "text/plain" }),
			attest.ErrBundleMalformed},
		"no verification material": {editJSON(t, sig, func(m map[string]any) { delete(m, "verificationMaterial") }),
			attest.ErrBundleMalformed},
		"message signature": {editJSON(t, sig, func(m map[string]any) {
			delete(m, "dsseEnvelope")
			m["messageSignature"] = map[string]any{"messageDigest": map[string]any{"algorithm": "SHA2_256", "digest": "AAAA"}, "signature": "AAAA"}
		}), attest.ErrBundleMalformed},
		"payload not base64": {editJSON(t, sig, func(m map[string]any) { dsse(m)["payload"] = "!!!" }),
			attest.ErrBundleMalformed},
		"deep nesting": {[]byte(strings.Repeat("[", 100000)), attest.ErrBundleMalformed},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := attest.Verify(c.in, testManifest, attest.Policy{Key: s.PublicKey()})
			wantErr(t, err, c.want)
		})
	}
}

func TestVerifyOversized(t *testing.T) {
	s := newSigner(t, attest.Ed25519)
	sig := signManifest(t, s, testManifest)
	// A valid bundle padded with insignificant whitespace past the bound
	// is refused before parsing.
	big := append(bytes.Repeat([]byte(" "), attest.MaxSignatureSize), sig...)
	_, err := attest.Verify(big, testManifest, attest.Policy{Key: s.PublicKey()})
	wantErr(t, err, attest.ErrBundleMalformed)
	if !strings.Contains(err.Error(), "limit") {
		t.Errorf("error %q does not name the limit", err)
	}
	// Just under the bound still parses.
	fits := append(bytes.Repeat([]byte(" "), attest.MaxSignatureSize-len(sig)), sig...)
	if _, err := attest.Verify(fits, testManifest, attest.Policy{Key: s.PublicKey()}); err != nil {
		t.Errorf("bundle of exactly %d bytes: %v", len(fits), err)
	}
}

func TestPolicyAmbiguous(t *testing.T) {
	s := newSigner(t, attest.Ed25519)
	sig := signManifest(t, s, testManifest)
	vs := newVirtualSigstore(t)
	for name, p := range map[string]attest.Policy{
		"neither":                  {},
		"both":                     {Key: s.PublicKey(), Keyless: &attest.KeylessPolicy{TrustedMaterial: vs, InsecureAnyIdentity: true}},
		"keyless without identity": {Keyless: &attest.KeylessPolicy{TrustedMaterial: vs}},
		"keyless identity only":    {Keyless: &attest.KeylessPolicy{TrustedMaterial: vs, Identity: "a@example.com"}},
		"keyless issuer only":      {Keyless: &attest.KeylessPolicy{TrustedMaterial: vs, OIDCIssuer: "https://issuer.example"}},
		"keyless identity and waiver": {Keyless: &attest.KeylessPolicy{TrustedMaterial: vs,
			Identity: "a@example.com", OIDCIssuer: "https://issuer.example", InsecureAnyIdentity: true}},
		"keyless exact and regexp": {Keyless: &attest.KeylessPolicy{TrustedMaterial: vs,
			Identity: "a@example.com", IdentityRegexp: ".*", OIDCIssuer: "https://issuer.example"}},
		"keyless no trusted root": {Keyless: &attest.KeylessPolicy{InsecureAnyIdentity: true}},
		"keyless bad regexp": {Keyless: &attest.KeylessPolicy{TrustedMaterial: vs,
			IdentityRegexp: "(", OIDCIssuer: "https://issuer.example"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := attest.Verify(sig, testManifest, p)
			wantErr(t, err, attest.ErrAmbiguousPolicy)
		})
	}
}

func TestSignRefusesBadPredicate(t *testing.T) {
	s := newSigner(t, attest.Ed25519)
	for name, p := range map[string]attest.Predicate{
		"no tool":    {Subject: testPredicate.Subject, Verdict: "pass"},
		"no subject": {Tool: testPredicate.Tool, Verdict: "pass"},
		"no verdict": {Tool: testPredicate.Tool, Subject: testPredicate.Subject},
		"verdict":    {Tool: testPredicate.Tool, Subject: testPredicate.Subject, Verdict: "PASS!"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := attest.Sign(context.Background(), testManifest, p, s); err == nil {
				t.Fatal("Sign accepted an incomplete predicate")
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := attest.Sign(ctx, testManifest, testPredicate, s); err == nil {
		t.Fatal("Sign ignored a cancelled context")
	}
}
