package attest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/dshaudit/dshaudit/attest/signed"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"google.golang.org/protobuf/encoding/protojson"
)

// signRaw has sigstore-go sign an arbitrary payload with s, bypassing
// Sign's statement builder, to test what Verify does with validly signed
// content dshaudit would never write.
func signRaw(t *testing.T, s *Signer, payload []byte) []byte {
	t.Helper()
	pb, err := sign.Bundle(&sign.DSSEData{Data: payload, PayloadType: PayloadType}, keypair{s}, sign.BundleOptions{Context: context.Background()})
	if err != nil {
		t.Fatal(err)
	}
	out, err := protojson.Marshal(pb)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestVerifySignedButForeignStatement(t *testing.T) {
	priv, _, err := GenerateKey(Ed25519)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSigner(priv)
	if err != nil {
		t.Fatal(err)
	}
	manifest := []byte(`{"x":1}`)
	digest := signed.ManifestDigest(manifest)
	pred := Predicate{Tool: Tool{Name: "dshaudit", Version: "0"}, Subject: Package{Name: "p", Version: "1.0.0"}, Verdict: "pass"}
	mk := func(f func(st map[string]any)) []byte {
		st := map[string]any{
			"_type":         StatementType,
			"subject":       []any{map[string]any{"name": SubjectName, "digest": map[string]any{"sha256": digest}}},
			"predicateType": PredicateType,
			"predicate":     pred,
		}
		f(st)
		b, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cases := map[string]struct {
		payload []byte
		want    error
	}{
		"as written": {mk(func(map[string]any) {}), nil},
		"two subjects": {mk(func(st map[string]any) {
			st["subject"] = append(st["subject"].([]any), map[string]any{"name": "other", "digest": map[string]any{"sha256": digest}})
		}), ErrSubjectMismatch},
		"other subject name": {mk(func(st map[string]any) {
			st["subject"] = []any{map[string]any{"name": "evil.json", "digest": map[string]any{"sha256": digest}}}
		}), ErrSubjectMismatch},
		"extra digest": {mk(func(st map[string]any) {
			st["subject"] = []any{map[string]any{"name": SubjectName, "digest": map[string]any{"sha256": digest, "sha512": "00"}}}
		}), ErrSubjectMismatch},
		"statement v0.1":       {mk(func(st map[string]any) { st["_type"] = "https://in-toto.io/Statement/v0.1" }), ErrStatementUnsupported},
		"other predicate type": {mk(func(st map[string]any) { st["predicateType"] = "https://slsa.dev/provenance/v1" }), ErrStatementUnsupported},
		"predicate missing verdict": {mk(func(st map[string]any) {
			st["predicate"] = map[string]any{"tool": pred.Tool, "subject": pred.Subject}
		}), ErrStatementUnsupported},
		"predicate unknown field": {mk(func(st map[string]any) {
			st["predicate"] = map[string]any{"tool": pred.Tool, "subject": pred.Subject, "verdict": "pass", "extra": true}
		}), ErrStatementUnsupported},
		"not json": {[]byte("not json"), ErrStatementUnsupported},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Verify(signRaw(t, s, c.payload), manifest, Policy{Key: s.PublicKey()})
			if c.want == nil {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("error = %v, want %v", err, c.want)
			}
			t.Logf("error: %v", err)
		})
	}
}
