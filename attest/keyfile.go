package attest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File modes of the key files (SPEC.md "Signature", "Keys").
const (
	PrivateKeyMode fs.FileMode = 0o600
	PublicKeyMode  fs.FileMode = 0o644
)

// KeyFiles are the paths and fingerprint of a written key pair.
type KeyFiles struct {
	PrivatePath, PublicPath string
	Fingerprint             string
}

// WriteKeyPair generates a key pair of type kt and writes dir/name.key
// (mode 0600, unencrypted PKCS #8 PEM) and dir/name.pub (mode 0644, PKIX
// PEM). It refuses, with ErrKey and fs.ErrExist, to overwrite either file,
// and leaves no file behind on failure.
func WriteKeyPair(dir, name string, kt KeyType) (KeyFiles, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || strings.ContainsRune(name, 0) {
		return KeyFiles{}, fmt.Errorf("%w: key name %q: want a plain file name without path separators", ErrKey, name)
	}
	kf := KeyFiles{
		PrivatePath: filepath.Join(dir, name+".key"),
		PublicPath:  filepath.Join(dir, name+".pub"),
	}
	for _, p := range []string{kf.PrivatePath, kf.PublicPath} {
		if _, err := os.Lstat(p); err == nil {
			return KeyFiles{}, fmt.Errorf("%w: %s already exists; not overwriting a key (choose another --name or --out-dir, or remove it): %w", ErrKey, p, fs.ErrExist)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return KeyFiles{}, err
		}
	}
	priv, pub, err := GenerateKey(kt)
	if err != nil {
		return KeyFiles{}, err
	}
	pk, err := ParsePublicKey(pub)
	if err != nil {
		return KeyFiles{}, err
	}
	kf.Fingerprint = pk.Fingerprint()
	if err := writeNew(kf.PrivatePath, priv, PrivateKeyMode); err != nil {
		return KeyFiles{}, err
	}
	if err := writeNew(kf.PublicPath, pub, PublicKeyMode); err != nil {
		os.Remove(kf.PrivatePath)
		return KeyFiles{}, err
	}
	return kf, nil
}

// writeNew creates path exclusively (never overwriting), sets mode
// explicitly so the umask cannot change it, writes b and syncs. On failure
// it removes what it created.
func writeNew(path string, b []byte, mode fs.FileMode) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%w: %s already exists; not overwriting a key: %w", ErrKey, path, err)
		}
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	if err := f.Chmod(mode); err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		return err
	}
	return f.Sync()
}
