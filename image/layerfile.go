package image

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/klauspost/compress/gzip"
)

// DESIGN.md "Sandbox image": layers are gzip-compressed tars written by this
// package; the compressed bytes depend only on the tar bytes and on the
// compressor, which BuilderVersion pins (klauspost/compress at the level
// below).

// LayerCompressionLevel is the gzip level of every layer.
const LayerCompressionLevel = gzip.DefaultCompression

// LayerInfo identifies a written layer file.
type LayerInfo struct {
	DiffID           v1.Hash `json:"diffID"` // sha256 of the uncompressed tar
	Digest           v1.Hash `json:"digest"` // sha256 of the gzip blob
	Size             int64   `json:"size"`   // gzip blob size
	UncompressedSize int64   `json:"uncompressedSize"`
	Path             string  `json:"-"`
}

type countingHash struct {
	h interface {
		io.Writer
		Sum([]byte) []byte
	}
	n int64
}

func (c *countingHash) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.h.Write(p)
}

func (c *countingHash) hash() v1.Hash {
	return v1.Hash{Algorithm: "sha256", Hex: hex.EncodeToString(c.h.Sum(nil))}
}

// TreeDiffID computes the diffID of a tree without writing it anywhere.
func TreeDiffID(t *Tree) (v1.Hash, int64, error) {
	ch := &countingHash{h: sha256.New()}
	if err := t.WriteTar(ch); err != nil {
		return v1.Hash{}, 0, err
	}
	return ch.hash(), ch.n, nil
}

// WriteLayerFile writes the tree as a gzip-compressed tar to path
// (atomically) and returns its identity.
func WriteLayerFile(t *Tree, path string) (LayerInfo, error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".layer-*")
	if err != nil {
		return LayerInfo{}, err
	}
	defer os.Remove(f.Name())
	comp := &countingHash{h: sha256.New()}
	zw, err := gzip.NewWriterLevel(io.MultiWriter(f, comp), LayerCompressionLevel)
	if err != nil {
		f.Close()
		return LayerInfo{}, err
	}
	unc := &countingHash{h: sha256.New()}
	if err := t.WriteTar(io.MultiWriter(zw, unc)); err != nil {
		f.Close()
		return LayerInfo{}, err
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return LayerInfo{}, err
	}
	if err := f.Close(); err != nil {
		return LayerInfo{}, err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil { // a cached layer is data others may read, not 0600
		return LayerInfo{}, err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return LayerInfo{}, err
	}
	return LayerInfo{DiffID: unc.hash(), Digest: comp.hash(), Size: comp.n, UncompressedSize: unc.n, Path: path}, nil
}

// Layer opens a written layer file as an OCI layer, after checking the
// file still has the recorded digest.
func (li LayerInfo) Layer() (v1.Layer, error) {
	l := fileLayer{li}
	if err := l.verify(); err != nil {
		return nil, err
	}
	return l, nil
}

// layerCache stores layer files by a key derived from their inputs;
// writeOnly (--no-cache) stores but never reuses them.
type layerCache struct {
	dir       string
	writeOnly bool
}

func (c layerCache) paths(key string) (blob, meta string) {
	return filepath.Join(c.dir, key+".tar.gz"), filepath.Join(c.dir, key+".json")
}

// get returns a cached layer and its side record (decoded into extra).
func (c layerCache) get(key string, extra any) (LayerInfo, bool) {
	if c.dir == "" || c.writeOnly {
		return LayerInfo{}, false
	}
	blob, meta := c.paths(key)
	b, err := os.ReadFile(meta)
	if err != nil {
		return LayerInfo{}, false
	}
	var rec struct {
		Layer LayerInfo       `json:"layer"`
		Extra json.RawMessage `json:"extra"`
	}
	if json.Unmarshal(b, &rec) != nil {
		return LayerInfo{}, false
	}
	fi, err := os.Stat(blob)
	if err != nil || fi.Size() != rec.Layer.Size {
		return LayerInfo{}, false
	}
	if extra != nil && len(rec.Extra) > 0 {
		if json.Unmarshal(rec.Extra, extra) != nil {
			return LayerInfo{}, false
		}
	}
	rec.Layer.Path = blob
	return rec.Layer, true
}

// put writes the tree into the cache (or into scratch when the cache is
// off) and records it.
func (c layerCache) put(key, scratch string, t *Tree, extra any) (LayerInfo, error) {
	dir := c.dir
	if dir == "" {
		dir = scratch
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return LayerInfo{}, err
	}
	blob := filepath.Join(dir, key+".tar.gz")
	li, err := WriteLayerFile(t, blob)
	if err != nil {
		return LayerInfo{}, err
	}
	if c.dir == "" {
		return li, nil
	}
	x, err := json.Marshal(extra)
	if err != nil {
		return LayerInfo{}, err
	}
	rec, err := json.MarshalIndent(struct {
		Layer LayerInfo       `json:"layer"`
		Extra json.RawMessage `json:"extra"`
	}{li, x}, "", "  ")
	if err != nil {
		return LayerInfo{}, err
	}
	_, meta := c.paths(key)
	if err := os.WriteFile(meta+".tmp", rec, 0o644); err != nil {
		return LayerInfo{}, err
	}
	return li, os.Rename(meta+".tmp", meta)
}
