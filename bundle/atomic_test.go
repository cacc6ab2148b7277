package bundle

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.tar.zst")
	c := sampleContents(t)
	if err := WriteFileAtomicContext(context.Background(), path, func(w io.Writer) error { return Write(w, c) }); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, mustWrite(t, c)) {
		t.Error("file content differs from Write")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("directory holds %q, want only out.tar.zst", names)
	}
}

func TestWriteFileAtomicLeavesNothingOnError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.tar.zst")
	boom := errors.New("boom")
	err := WriteFileAtomicContext(context.Background(), path, func(w io.Writer) error {
		w.Write([]byte("half a bundle"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("directory holds %q after a failed write", names)
	}

	// A failing Write (refused contents) through WriteFileAtomicContext.
	c := sampleContents(t)
	c.Files["unlisted"] = []byte("x")
	if err := WriteFileAtomicContext(context.Background(), path, func(w io.Writer) error { return Write(w, c) }); !errors.Is(err, ErrContentsMismatch) {
		t.Fatalf("err = %v", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("directory holds %q after a refused write", names)
	}
}

func TestWriteFileAtomicKeepsOldFileOnError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteFileAtomicContext(context.Background(), path, func(w io.Writer) error {
		w.Write([]byte("new but broken"))
		return errors.New("boom")
	})
	if err == nil {
		t.Fatal("no error")
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("old file became %q", got)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("directory holds %q", names)
	}
}

func TestWriteFileAtomicCancel(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	ctx, cancel := context.WithCancel(context.Background())
	err := WriteFileAtomicContext(ctx, path, func(w io.Writer) error {
		if _, err := w.Write([]byte("first")); err != nil {
			return err
		}
		cancel() // e.g. Ctrl-C during the write
		_, err := w.Write([]byte("second"))
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("directory holds %q after cancel", names)
	}
	// Cancelled after the write function returned, before the rename.
	ctx, cancel = context.WithCancel(context.Background())
	err = WriteFileAtomicContext(ctx, path, func(w io.Writer) error {
		_, err := w.Write([]byte("all"))
		cancel()
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("directory holds %q after late cancel", names)
	}
}

func TestWriteFileAtomicNoDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "out")
	if err := WriteFileAtomicContext(context.Background(), path, func(w io.Writer) error { return nil }); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want ErrNotExist", err)
	}
}
