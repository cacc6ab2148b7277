package attest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
)

// testManifest stands in for a manifest.json; its bytes are all that matter.
var testManifest = []byte(`{"media_type":"application/vnd.dshaudit.manifest.v1+json","schema_version":1,"files":[]}` + "\n")

var testPredicate = attest.Predicate{
	Tool:    attest.Tool{Name: "dshaudit", Version: "0.1.0-test"},
	Subject: attest.Package{Name: "@acme/dsh-plugin-demo", Version: "1.2.3"},
	Verdict: "pass",
}

func newSigner(t *testing.T, kt attest.KeyType) *attest.Signer {
	t.Helper()
	priv, _, err := attest.GenerateKey(kt)
	if err != nil {
		t.Fatal(err)
	}
	s, err := attest.ParseSigner(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func signManifest(t *testing.T, s *attest.Signer, manifest []byte) []byte {
	t.Helper()
	sig, err := attest.Sign(context.Background(), manifest, testPredicate, s)
	if err != nil {
		t.Fatalf("Sign: %v", err)
	}
	return sig
}

// editJSON decodes bundle JSON generically, lets f change it, re-encodes.
func editJSON(t *testing.T, sig []byte, f func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(sig, &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func dsse(m map[string]any) map[string]any { return m["dsseEnvelope"].(map[string]any) }

func firstSig(m map[string]any) map[string]any {
	return dsse(m)["signatures"].([]any)[0].(map[string]any)
}

// flipB64 decodes a standard base64 string, flips one bit of byte i,
// re-encodes.
func flipB64(t *testing.T, s string, i int) string {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	b[((i%len(b))+len(b))%len(b)] ^= 0x01
	return base64.StdEncoding.EncodeToString(b)
}

func wantErr(t *testing.T, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error = %v, want %v", err, want)
	}
	t.Logf("error: %v", err)
	// Exactly one failure class per error.
	for _, other := range []error{attest.ErrNoSignature, attest.ErrBundleMalformed, attest.ErrSignatureInvalid, attest.ErrStatementUnsupported,
		attest.ErrWrongKey, attest.ErrUntrustedSigner, attest.ErrSubjectMismatch, attest.ErrAmbiguousPolicy, attest.ErrKey} {
		if other != want && errors.Is(err, other) {
			t.Fatalf("error %v is both %v and %v", err, want, other)
		}
	}
}

func edit(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0x20
	return c
}
