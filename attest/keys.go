package attest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"sync"

	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore/pkg/signature"
)

// KeyType names a supported signing key algorithm (SPEC.md "Signature",
// "Keys").
type KeyType string

const (
	// Ed25519 is the default: pure Ed25519 signatures are deterministic
	// (RFC 8032), so the same manifest signed twice with the same key
	// gives a byte-identical signature bundle.
	Ed25519 KeyType = "ed25519"
	// ECDSAP256 is ECDSA on NIST P-256 with SHA-256, cosign's default key
	// type. Its signatures are randomised.
	ECDSAP256 KeyType = "ecdsa-p256"
)

// DefaultKeyType is the key type `dshaudit key generate` uses.
const DefaultKeyType = Ed25519

// KeyTypes lists the supported key types, default first.
var KeyTypes = []KeyType{Ed25519, ECDSAP256}

// PEM block types of the key files.
const (
	privatePEMType = "PRIVATE KEY" // PKCS #8, unencrypted
	publicPEMType  = "PUBLIC KEY"  // PKIX SubjectPublicKeyInfo
)

// maxKeyFileSize bounds key and trusted-root files read from disk.
const maxKeyFileSize = 64 << 10

// ParseKeyType checks a --type value.
func ParseKeyType(s string) (KeyType, error) {
	for _, kt := range KeyTypes {
		if string(kt) == s {
			return kt, nil
		}
	}
	return "", fmt.Errorf("%w: key type %q: want %q or %q", ErrKey, s, Ed25519, ECDSAP256)
}

// GenerateKey makes a new key pair of type kt and returns the private key
// as unencrypted PKCS #8 PEM and the public key as PKIX PEM.
func GenerateKey(kt KeyType) (privPEM, pubPEM []byte, err error) {
	var priv crypto.Signer
	switch kt {
	case Ed25519:
		_, priv, err = ed25519.GenerateKey(rand.Reader)
	case ECDSAP256:
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	default:
		_, err = ParseKeyType(string(kt))
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, fmt.Errorf("generate %s key: %w", kt, err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, nil, fmt.Errorf("encode private key: %w", err)
	}
	pub, err := encodePublicKey(priv.Public())
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: privatePEMType, Bytes: der}), pub, nil
}

func encodePublicKey(pub crypto.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("encode public key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: publicPEMType, Bytes: der}), nil
}

// PublicKey is a parsed verification key with its fingerprint.
type PublicKey struct {
	key     crypto.PublicKey
	keyType KeyType
	der     []byte // PKIX DER
	// loaded is the sigstore verifier for the key, made once on first
	// use and shared by every verification with this key.
	loaded *loadedVerifier
}

type loadedVerifier struct {
	once sync.Once
	v    signature.Verifier
	err  error
}

// ParsePublicKey reads a PKIX "PUBLIC KEY" PEM block holding an Ed25519 or
// ECDSA P-256 key.
func ParsePublicKey(pemBytes []byte) (*PublicKey, error) {
	block, err := onePEMBlock(pemBytes, publicPEMType)
	if err != nil {
		return nil, err
	}
	key, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: public key: %w", ErrKey, err)
	}
	return newPublicKey(key)
}

// LoadPublicKey reads a public key PEM file (at most 64 KiB).
func LoadPublicKey(path string) (*PublicKey, error) {
	b, err := readBounded(path, maxKeyFileSize)
	if err != nil {
		return nil, err
	}
	pk, err := ParsePublicKey(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return pk, nil
}

func newPublicKey(key crypto.PublicKey) (*PublicKey, error) {
	var kt KeyType
	switch k := key.(type) {
	case ed25519.PublicKey:
		kt = Ed25519
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return nil, fmt.Errorf("%w: ECDSA curve %s: only P-256 is supported", ErrKey, k.Curve.Params().Name)
		}
		kt = ECDSAP256
	default:
		return nil, fmt.Errorf("%w: key algorithm %T: want Ed25519 or ECDSA P-256", ErrKey, key)
	}
	der, err := x509.MarshalPKIXPublicKey(key)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKey, err)
	}
	return &PublicKey{key: key, keyType: kt, der: der, loaded: &loadedVerifier{}}, nil
}

// Type is the key's algorithm.
func (k *PublicKey) Type() KeyType { return k.keyType }

// Fingerprint is "sha256:" and the lowercase hex sha256 of the key's PKIX
// DER encoding.
func (k *PublicKey) Fingerprint() string {
	sum := sha256.Sum256(k.der)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Hint is the value of the bundle's verificationMaterial.publicKey.hint:
// the standard base64 of the same sha256 as Fingerprint, the encoding
// sigstore-go and cosign use for key hints.
func (k *PublicKey) Hint() string {
	sum := sha256.Sum256(k.der)
	return base64.StdEncoding.EncodeToString(sum[:])
}

// PEM is the key as PKIX PEM.
func (k *PublicKey) PEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: publicPEMType, Bytes: k.der})
}

// algorithm is the Sigstore PublicKeyDetails of the key.
func (k *PublicKey) algorithm() protocommon.PublicKeyDetails {
	if k.keyType == Ed25519 {
		// Pure Ed25519 over the DSSE pre-authentication encoding.
		return protocommon.PublicKeyDetails_PKIX_ED25519
	}
	return protocommon.PublicKeyDetails_PKIX_ECDSA_P256_SHA_256
}

// onePEMBlock decodes exactly one PEM block of the wanted type.
func onePEMBlock(b []byte, want string) (*pem.Block, error) {
	block, rest := pem.Decode(b)
	if block == nil {
		return nil, fmt.Errorf("%w: no PEM block found, want %q", ErrKey, want)
	}
	if block.Type != want {
		if want == privatePEMType && (block.Type == "ENCRYPTED PRIVATE KEY" || block.Type == "ENCRYPTED SIGSTORE PRIVATE KEY" || block.Type == "ENCRYPTED COSIGN PRIVATE KEY") {
			return nil, fmt.Errorf("%w: PEM block %q is encrypted; dshaudit reads unencrypted PKCS #8 keys only (see `dshaudit key generate`)", ErrKey, block.Type)
		}
		return nil, fmt.Errorf("%w: PEM block type %q, want %q", ErrKey, block.Type, want)
	}
	if next, _ := pem.Decode(rest); next != nil {
		return nil, fmt.Errorf("%w: more than one PEM block, want one %q", ErrKey, want)
	}
	return block, nil
}

// readBounded reads a whole regular file, refusing more than limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than the %d-byte limit", path, limit)
	}
	return b, nil
}
