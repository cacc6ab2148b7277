package bundle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFileAtomicContext creates path with what write writes, so that
// path either keeps its old state or holds the complete new content,
// never a part of it: write goes to a temporary file in the same
// directory, which is synced, made mode 0644, renamed over path, and the
// directory synced. If write fails, ctx is cancelled, or any step fails,
// the temporary file is removed and path is untouched. An existing file
// at path is replaced.
func WriteFileAtomicContext(ctx context.Context, path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			if rmErr := os.Remove(tmp); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
				err = errors.Join(err, fmt.Errorf("remove temporary file %q: %w", tmp, rmErr))
			}
		}
	}()
	if err := write(&ctxWriter{ctx: ctx, w: f}); err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %q: sync: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %q: close: %w", path, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	// The file is in place; a failing directory sync is reported but the
	// rename cannot be undone, so the file is not removed.
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("write %q: sync directory: %w", path, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// ctxWriter fails writes once ctx is done, so a long write stops early.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c *ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
