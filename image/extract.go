package image

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// extractNPMTarball unpacks an npm package tarball (gzip tar whose entries
// sit under one top directory, normally "package/") into dest, stripping
// that directory. Only regular files and directories are taken; modes keep
// their executable bit the way npm does (0755 or 0644). Paths that escape
// dest are an error.
func extractNPMTarball(tgz, dest string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%q: %w", tgz, err)
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%q: %w", tgz, err)
		}
		name := strings.TrimPrefix(path.Clean("/"+h.Name), "/")
		_, rest, ok := strings.Cut(name, "/")
		if !ok || rest == "" {
			continue
		}
		target := filepath.Join(dest, filepath.FromSlash(rest))
		if !strings.HasPrefix(target, filepath.Clean(dest)+string(os.PathSeparator)) {
			return fmt.Errorf("%q: entry %q escapes the package: %w", tgz, h.Name, ErrBadInput)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg, tar.TypeRegA:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			mode := os.FileMode(0o644)
			if h.Mode&0o111 != 0 {
				mode = 0o755
			}
			out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
			if err != nil {
				return err
			}
			_, err = io.Copy(out, io.LimitReader(tr, maxTarballBytes*4))
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("%q: %s: %w", tgz, h.Name, err)
			}
			if err := os.Chmod(target, mode); err != nil {
				return err
			}
		default:
			// npm packs only files and directories; anything else is dropped.
		}
	}
}
