package engine

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Bounds on OCI input, which may be hostile.
const (
	// MaxArchiveBytes bounds the total size of the files in an OCI archive.
	MaxArchiveBytes = 16 << 30
	// maxManifestBytes bounds index.json, a manifest and a config.
	maxManifestBytes = 4 << 20
)

// localManifest is a manifest found in an OCI layout and verified by
// hashing its bytes.
type localManifest struct {
	Digest v1.Hash // sha256 of Raw, computed here
	Config v1.Hash // config digest, verified by hashing the config blob
	Raw    []byte
	Desc   v1.Descriptor // its descriptor in index.json
}

// findManifest reads the OCI layout at dir with go-containerregistry,
// finds the index.json descriptor whose digest is want, and verifies by
// hashing that the manifest blob and its config blob have the digests they
// are stored under. Only image manifests are accepted: an image index's
// digest is not what an engine runs.
func findManifest(dir string, want v1.Hash) (*localManifest, error) {
	if st, err := os.Stat(filepath.Join(dir, "index.json")); err != nil {
		return nil, fmt.Errorf("read OCI layout %q: %w", dir, err)
	} else if st.Size() > maxManifestBytes {
		return nil, fmt.Errorf("read OCI layout %q: index.json is %d bytes, more than %d", dir, st.Size(), maxManifestBytes)
	}
	lp, err := layout.FromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("read OCI layout %q: %w", dir, err)
	}
	ii, err := lp.ImageIndex()
	if err != nil {
		return nil, fmt.Errorf("read OCI layout %q index.json: %w", dir, err)
	}
	im, err := ii.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("read OCI layout %q index.json: %w", dir, err)
	}
	var found []string
	for _, d := range im.Manifests {
		found = append(found, d.Digest.String())
		if d.Digest != want {
			continue
		}
		if !d.MediaType.IsImage() {
			return nil, fmt.Errorf("OCI layout %q: %s is a %q, not an image manifest: pin the platform image's manifest digest", dir, want, d.MediaType)
		}
		raw, err := readBlob(lp, d.Digest)
		if err != nil {
			return nil, fmt.Errorf("OCI layout %q: manifest: %w", dir, err)
		}
		m, err := v1.ParseManifest(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("OCI layout %q: manifest %s: %w", dir, d.Digest, err)
		}
		if _, err := readBlob(lp, m.Config.Digest); err != nil {
			return nil, fmt.Errorf("OCI layout %q: config: %w", dir, err)
		}
		return &localManifest{Digest: d.Digest, Config: m.Config.Digest, Raw: raw, Desc: d}, nil
	}
	if len(found) == 0 {
		found = []string{"no manifest"}
	}
	return nil, &DigestMismatchError{Want: want.String(), Got: strings.Join(found, ", "), Location: fmt.Sprintf("OCI layout %q", dir)}
}

// readBlob reads a small blob and checks that its bytes hash to h.
func readBlob(lp layout.Path, h v1.Hash) ([]byte, error) {
	if h.Algorithm != "sha256" {
		return nil, fmt.Errorf("blob %s: only sha256 is supported", h)
	}
	rc, err := lp.Blob(h)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", h, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxManifestBytes+1))
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", h, err)
	}
	if len(b) > maxManifestBytes {
		return nil, fmt.Errorf("blob %s: larger than %d bytes", h, maxManifestBytes)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != h.Hex {
		return nil, &DigestMismatchError{Want: h.String(), Got: "sha256:" + got, Location: "blob file " + h.Hex}
	}
	return b, nil
}

// stageLayout writes a layout at dst whose index.json holds only desc and
// whose blobs directory is src's, so that the engine's oci: transport loads
// exactly that manifest.
func stageLayout(src, dst string, desc v1.Descriptor) error {
	blobs, err := filepath.Abs(filepath.Join(src, "blobs"))
	if err != nil {
		return err
	}
	if err := os.Symlink(blobs, filepath.Join(dst, "blobs")); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dst, "oci-layout"), []byte(`{"imageLayoutVersion":"1.0.0"}`), 0o644); err != nil {
		return err
	}
	desc.Annotations = nil
	idx := v1.IndexManifest{SchemaVersion: 2, MediaType: types.OCIImageIndex, Manifests: []v1.Descriptor{desc}}
	b, err := json.Marshal(idx)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dst, "index.json"), b, 0o644)
}

// extractArchive unpacks an OCI archive (a tar of a layout) into dst. It
// accepts only directories and regular files, refuses any path that would
// leave dst, and bounds the total size by MaxArchiveBytes.
func extractArchive(archive, dst string) error {
	f, err := os.Open(archive)
	if err != nil {
		return fmt.Errorf("open OCI archive: %w", err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("OCI archive %q: %w", archive, err)
		}
		clean := path.Clean(strings.TrimPrefix(h.Name, "./"))
		if clean == "." {
			continue
		}
		if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
			return fmt.Errorf("OCI archive %q: entry %q leaves the archive", archive, h.Name)
		}
		target := filepath.Join(dst, filepath.FromSlash(clean))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			total += h.Size
			if total > MaxArchiveBytes {
				return fmt.Errorf("OCI archive %q: larger than %d bytes", archive, int64(MaxArchiveBytes))
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			if err := writeFile(target, io.LimitReader(tr, h.Size)); err != nil {
				return fmt.Errorf("OCI archive %q: entry %q: %w", archive, h.Name, err)
			}
		default:
			return fmt.Errorf("OCI archive %q: entry %q: type %q not allowed (want directories and regular files)", archive, h.Name, string(h.Typeflag))
		}
	}
}

func writeFile(target string, r io.Reader) error {
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("duplicate entry")
		}
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// OpenOCI returns the image with manifest digest want from an OCI archive
// or layout source, after the same checks EnsureImage makes before
// loading (manifest and config hashed here). An archive is unpacked into
// tmp, which must stay until the image has been read.
func OpenOCI(src Source, want v1.Hash, tmp string) (v1.Image, error) {
	dir := src.Path
	switch src.Kind {
	case SourceOCIArchive:
		if err := extractArchive(src.Path, tmp); err != nil {
			return nil, err
		}
		dir = tmp
	case SourceOCILayout:
	default:
		return nil, fmt.Errorf("%w: %v is not an OCI archive or layout", ErrBadSpec, src.Kind)
	}
	lm, err := findManifest(dir, want)
	if err != nil {
		var dm *DigestMismatchError
		if errors.As(err, &dm) {
			dm.Location = fmt.Sprintf("%v %q", src.Kind, src.Path)
		}
		return nil, err
	}
	return layout.Path(dir).Image(lm.Digest)
}
