package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dshaudit/dshaudit/attest"
)

// loadOrCreateKey reuses DIR/NAME.key so that regenerating the vectors
// gives the same bytes (Ed25519 signatures are deterministic), and makes
// the key once when it is missing. These keys sign test vectors only.
func loadOrCreateKey(dir, name string) (*attest.Signer, error) {
	priv := filepath.Join(dir, name+".key")
	if _, err := os.Stat(priv); errors.Is(err, fs.ErrNotExist) {
		k, pub, err := attest.GenerateKey(attest.Ed25519)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(priv, k, 0o600); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, name+".pub"), pub, 0o644); err != nil {
			return nil, err
		}
	}
	return attest.LoadSigner(priv)
}
