package attest_test

import (
	"context"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
)

func BenchmarkSign(b *testing.B) {
	for _, kt := range attest.KeyTypes {
		b.Run(string(kt), func(b *testing.B) {
			priv, _, _ := attest.GenerateKey(kt)
			s, _ := attest.ParseSigner(priv)
			for b.Loop() {
				if _, err := attest.Sign(context.Background(), testManifest, testPredicate, s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkVerify(b *testing.B) {
	for _, kt := range attest.KeyTypes {
		b.Run(string(kt), func(b *testing.B) {
			priv, _, _ := attest.GenerateKey(kt)
			s, _ := attest.ParseSigner(priv)
			sig, _ := attest.Sign(context.Background(), testManifest, testPredicate, s)
			b.SetBytes(int64(len(sig)))
			for b.Loop() {
				if _, err := attest.Verify(sig, testManifest, attest.Policy{Key: s.PublicKey()}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
