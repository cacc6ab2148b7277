package attest

import (
	"context"
	"fmt"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	"github.com/sigstore/sigstore-go/pkg/sign"
)

// BundleSigner makes the signature of a bundle (SPEC.md "Signature",
// "Signing"): a key (*Signer, LoadSigner) or a short-lived Fulcio
// certificate for an OIDC identity (*KeylessSigner, NewKeylessSigner).
// Only this package implements it.
type BundleSigner interface {
	// signBundle has sigstore-go sign content into a Sigstore bundle.
	signBundle(ctx context.Context, content sign.Content) (*protobundle.Bundle, error)
	// selfCheck checks a bundle it has just made over manifest.
	selfCheck(sig, manifest []byte) error
	// selfCheckPayload checks a bundle it has just made over any
	// statement (SignPayload).
	selfCheckPayload(sig []byte) error
}

var (
	_ BundleSigner = (*Signer)(nil)
	_ BundleSigner = (*KeylessSigner)(nil)
)

func (s *Signer) signBundle(ctx context.Context, content sign.Content) (*protobundle.Bundle, error) {
	if s == nil {
		return nil, fmt.Errorf("%w: no signing key", ErrKey)
	}
	return sign.Bundle(content, keypair{s}, sign.BundleOptions{Context: ctx})
}

// selfCheck verifies with the key policy of the signer's own public key.
func (s *Signer) selfCheck(sig, manifest []byte) error {
	_, err := Verify(sig, manifest, Policy{Key: s.PublicKey()})
	return err
}

func (s *Signer) selfCheckPayload(sig []byte) error {
	_, _, err := VerifyPayload(sig, Policy{Key: s.PublicKey()})
	return err
}
