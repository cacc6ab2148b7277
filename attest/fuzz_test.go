package attest_test

import (
	"errors"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
)

// FuzzVerify feeds hostile signature files to Verify: it must not panic,
// every error must carry exactly one failure class, and nothing but the
// signed manifest may verify.
// This binary links sigstore-go's whole tree, whose coverage counters
// bound the engine's rate; scripts/fuzz-soak.sh fuzzes it with coverage
// of dshaudit, sigstore and protobuf's JSON decoder only
// (tools/fuzzscope, DESIGN.md "Fuzzing").
func FuzzVerify(f *testing.F) {
	s := newSignerF(f)
	sig, err := attest.Sign(f.Context(), testManifest, testPredicate, s)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sig)
	f.Add([]byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`))
	f.Add([]byte(`[[[[`))
	policy := attest.Policy{Key: s.PublicKey()}
	classes := []error{attest.ErrNoSignature, attest.ErrBundleMalformed, attest.ErrSignatureInvalid,
		attest.ErrWrongKey, attest.ErrUntrustedSigner, attest.ErrSubjectMismatch}
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := attest.Verify(in, testManifest, policy)
		if err == nil {
			if res.Predicate != testPredicate || res.ManifestSHA256 != attest.ManifestDigestForTest(testManifest) {
				t.Fatalf("verified something else: %+v", res)
			}
			return
		}
		n := 0
		for _, c := range classes {
			if errors.Is(err, c) {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("error in %d classes: %v", n, err)
		}
	})
}

func newSignerF(f *testing.F) *attest.Signer {
	priv, _, err := attest.GenerateKey(attest.Ed25519)
	if err != nil {
		f.Fatal(err)
	}
	s, err := attest.ParseSigner(priv)
	if err != nil {
		f.Fatal(err)
	}
	return s
}
