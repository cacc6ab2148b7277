package attest_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
)

func TestWriteKeyPair(t *testing.T) {
	// Modes are set explicitly, whatever the umask.
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	for _, kt := range attest.KeyTypes {
		t.Run(string(kt), func(t *testing.T) {
			dir := t.TempDir()
			kf, err := attest.WriteKeyPair(dir, "release", kt)
			if err != nil {
				t.Fatal(err)
			}
			if kf.PrivatePath != filepath.Join(dir, "release.key") || kf.PublicPath != filepath.Join(dir, "release.pub") {
				t.Errorf("paths = %+v", kf)
			}
			for path, mode := range map[string]fs.FileMode{kf.PrivatePath: 0o600, kf.PublicPath: 0o644} {
				st, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if st.Mode().Perm() != mode {
					t.Errorf("%s mode %v, want %v", path, st.Mode().Perm(), mode)
				}
			}
			privPEM, _ := os.ReadFile(kf.PrivatePath)
			pubPEM, _ := os.ReadFile(kf.PublicPath)
			if !bytes.HasPrefix(privPEM, []byte("-----BEGIN PRIVATE KEY-----\n")) || !bytes.HasPrefix(pubPEM, []byte("-----BEGIN PUBLIC KEY-----\n")) {
				t.Errorf("PEM headers:\n%s\n%s", privPEM, pubPEM)
			}
			s, err := attest.LoadSigner(kf.PrivatePath)
			if err != nil {
				t.Fatal(err)
			}
			pub, err := attest.LoadPublicKey(kf.PublicPath)
			if err != nil {
				t.Fatal(err)
			}
			if s.PublicKey().Fingerprint() != kf.Fingerprint || pub.Fingerprint() != kf.Fingerprint || pub.Type() != kt {
				t.Errorf("fingerprints %s %s %s, type %s", s.PublicKey().Fingerprint(), pub.Fingerprint(), kf.Fingerprint, pub.Type())
			}
			if !strings.HasPrefix(kf.Fingerprint, "sha256:") || len(kf.Fingerprint) != len("sha256:")+64 {
				t.Errorf("fingerprint %q", kf.Fingerprint)
			}
			// The loaded pair signs and verifies.
			sig := signManifest(t, s, testManifest)
			if _, err := attest.Verify(sig, testManifest, attest.Policy{Key: pub}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestWriteKeyPairRefusesOverwrite(t *testing.T) {
	for _, existing := range []string{"k.key", "k.pub"} {
		t.Run(existing, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, existing)
			if err := os.WriteFile(path, []byte("precious"), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := attest.WriteKeyPair(dir, "k", attest.Ed25519)
			if !errors.Is(err, attest.ErrKey) || !errors.Is(err, fs.ErrExist) {
				t.Fatalf("error = %v, want ErrKey and fs.ErrExist", err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name %s", err, path)
			}
			if b, _ := os.ReadFile(path); string(b) != "precious" {
				t.Errorf("%s was overwritten", path)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("dir has %d entries, want only the existing file", len(entries))
			}
		})
	}
}

func TestWriteKeyPairBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"", ".", "..", "a/b", `a\b`, "../escape"} {
		if _, err := attest.WriteKeyPair(dir, name, attest.Ed25519); !errors.Is(err, attest.ErrKey) {
			t.Errorf("name %q: error = %v, want ErrKey", name, err)
		}
	}
	if _, err := attest.WriteKeyPair(dir, "k", "rsa"); !errors.Is(err, attest.ErrKey) {
		t.Errorf("type rsa: error = %v", err)
	}
	if _, err := attest.WriteKeyPair(filepath.Join(dir, "missing"), "k", attest.Ed25519); err == nil {
		t.Error("wrote into a missing directory")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %d files behind", len(entries))
	}
}

func TestParseKeysRefuses(t *testing.T) {
	pemOf := func(typ string, der []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}) }
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	rsaPriv, _ := x509.MarshalPKCS8PrivateKey(rsaKey)
	rsaPub, _ := x509.MarshalPKIXPublicKey(rsaKey.Public())
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	p384Priv, _ := x509.MarshalPKCS8PrivateKey(p384)
	p384Pub, _ := x509.MarshalPKIXPublicKey(p384.Public())
	ecSEC1, _ := x509.MarshalECPrivateKey(p384)
	goodPriv, goodPub, err := attest.GenerateKey(attest.Ed25519)
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string][]byte{
		"empty":             nil,
		"garbage":           []byte("not a key"),
		"encrypted cosign":  pemOf("ENCRYPTED SIGSTORE PRIVATE KEY", []byte("x")),
		"encrypted pkcs8":   pemOf("ENCRYPTED PRIVATE KEY", []byte("x")),
		"rsa":               pemOf("PRIVATE KEY", rsaPriv),
		"p384":              pemOf("PRIVATE KEY", p384Priv),
		"sec1":              pemOf("EC PRIVATE KEY", ecSEC1),
		"public as private": goodPub,
		"two blocks":        append(append([]byte{}, goodPriv...), goodPriv...),
		"bad der":           pemOf("PRIVATE KEY", []byte{1, 2, 3}),
	} {
		if _, err := attest.ParseSigner(in); !errors.Is(err, attest.ErrKey) {
			t.Errorf("ParseSigner(%s): error = %v, want ErrKey", name, err)
		}
	}
	for name, in := range map[string][]byte{
		"rsa":               pemOf("PUBLIC KEY", rsaPub),
		"p384":              pemOf("PUBLIC KEY", p384Pub),
		"private as public": goodPriv,
		"garbage":           []byte("x"),
	} {
		if _, err := attest.ParsePublicKey(in); !errors.Is(err, attest.ErrKey) {
			t.Errorf("ParsePublicKey(%s): error = %v, want ErrKey", name, err)
		}
	}
	big := filepath.Join(t.TempDir(), "big.key")
	os.WriteFile(big, bytes.Repeat([]byte("A"), 1<<20), 0o600)
	if _, err := attest.LoadSigner(big); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("LoadSigner(1 MiB file): error = %v, want a size limit error", err)
	}
}

func TestParseKeyType(t *testing.T) {
	for _, kt := range attest.KeyTypes {
		if got, err := attest.ParseKeyType(string(kt)); err != nil || got != kt {
			t.Errorf("ParseKeyType(%q) = %q, %v", kt, got, err)
		}
	}
	if _, err := attest.ParseKeyType("ED25519"); !errors.Is(err, attest.ErrKey) {
		t.Errorf("ParseKeyType(ED25519): %v", err)
	}
}
