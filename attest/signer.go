package attest

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"fmt"

	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/sign"
)

// Signer holds a private signing key loaded from a PKCS #8 PEM file.
type Signer struct {
	priv crypto.Signer
	pub  *PublicKey
}

// ParseSigner reads an unencrypted PKCS #8 "PRIVATE KEY" PEM block holding
// an Ed25519 or ECDSA P-256 key.
func ParseSigner(pemBytes []byte) (*Signer, error) {
	block, err := onePEMBlock(pemBytes, privatePEMType)
	if err != nil {
		return nil, err
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: private key: %w", ErrKey, err)
	}
	var priv crypto.Signer
	switch k := key.(type) {
	case ed25519.PrivateKey:
		priv = k
	case *ecdsa.PrivateKey:
		priv = k
	default:
		return nil, fmt.Errorf("%w: private key algorithm %T: want Ed25519 or ECDSA P-256", ErrKey, key)
	}
	pub, err := newPublicKey(priv.Public())
	if err != nil {
		return nil, err
	}
	return &Signer{priv: priv, pub: pub}, nil
}

// LoadSigner reads a private key PEM file (at most 64 KiB).
func LoadSigner(path string) (*Signer, error) {
	b, err := readBounded(path, maxKeyFileSize)
	if err != nil {
		return nil, err
	}
	s, err := ParseSigner(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// PublicKey is the signer's public key.
func (s *Signer) PublicKey() *PublicKey { return s.pub }

// keypair adapts a Signer to sigstore-go's sign.Keypair, so sign.Bundle
// builds the Sigstore bundle. sigstore-go v1.3.0 only offers an ephemeral
// (freshly generated) keypair, hence this adapter over a loaded key.
type keypair struct{ s *Signer }

var _ sign.Keypair = keypair{}

func (k keypair) GetHashAlgorithm() protocommon.HashAlgorithm {
	if k.s.pub.keyType == Ed25519 {
		return protocommon.HashAlgorithm_HASH_ALGORITHM_UNSPECIFIED
	}
	return protocommon.HashAlgorithm_SHA2_256
}

func (k keypair) GetSigningAlgorithm() protocommon.PublicKeyDetails { return k.s.pub.algorithm() }

// GetHint is the base64 sha256 of the PKIX DER public key.
func (k keypair) GetHint() []byte { return []byte(k.s.pub.Hint()) }

func (k keypair) GetKeyAlgorithm() string {
	if k.s.pub.keyType == Ed25519 {
		return "ED25519"
	}
	return "ECDSA"
}

func (k keypair) GetPublicKey() crypto.PublicKey { return k.s.pub.key }

func (k keypair) GetPublicKeyPem() (string, error) { return string(k.s.pub.PEM()), nil }

// SignData signs data (the DSSE pre-authentication encoding). Ed25519
// signs the message itself (pure Ed25519, deterministic); ECDSA P-256
// signs its SHA-256 digest. It returns the signature and what was signed.
func (k keypair) SignData(ctx context.Context, data []byte) ([]byte, []byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if k.s.pub.keyType == Ed25519 {
		sig, err := k.s.priv.Sign(rand.Reader, data, crypto.Hash(0))
		return sig, data, err
	}
	digest := sha256.Sum256(data)
	sig, err := k.s.priv.Sign(rand.Reader, digest[:], crypto.SHA256)
	return sig, digest[:], err
}
