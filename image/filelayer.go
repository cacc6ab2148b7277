package image

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/klauspost/compress/gzip"
)

// fileLayer is a gzip layer file whose digest, diffID and size were
// recorded when it was written, so assembling an image does not decompress
// every layer again to learn its diffID.
type fileLayer struct{ li LayerInfo }

func (l fileLayer) Digest() (v1.Hash, error) { return l.li.Digest, nil }
func (l fileLayer) DiffID() (v1.Hash, error) { return l.li.DiffID, nil }
func (l fileLayer) Size() (int64, error)     { return l.li.Size, nil }
func (l fileLayer) MediaType() (types.MediaType, error) {
	return types.OCILayer, nil
}
func (l fileLayer) Compressed() (io.ReadCloser, error) { return os.Open(l.li.Path) }
func (l fileLayer) Uncompressed() (io.ReadCloser, error) {
	f, err := os.Open(l.li.Path)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("layer %q: %w", l.li.Path, err)
	}
	return readCloser{zr, func() error { zr.Close(); return f.Close() }}, nil
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }

// verify re-hashes the compressed file: a cached layer must still be the
// bytes its record names.
func (l fileLayer) verify() error {
	got, n, err := fileSHA256(l.li.Path)
	if err != nil {
		return err
	}
	if got != l.li.Digest.Hex || n != l.li.Size {
		return fmt.Errorf("layer %q changed on disk (sha256:%s, %d bytes; recorded %s, %d bytes): %w", l.li.Path, got, n, l.li.Digest, l.li.Size, ErrBadInput)
	}
	return nil
}

// fileSHA256 returns the hex sha256 and the size of a file.
func fileSHA256(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
