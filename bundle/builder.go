package bundle

import (
	"bytes"
	"fmt"
	"io"

	"github.com/dshaudit/dshaudit/manifest"
)

// Builder collects evidence files as a run produces them, so the runner
// can list them in the manifest (Files) and then write the bundle. The
// zero value is ready to use.
type Builder struct {
	files map[string][]byte
	seen  *manifest.PathSet
}

// Add records a copy of data under path. It refuses invalid and reserved
// paths, duplicates and file/directory conflicts, and an entry larger
// than DefaultMaxEntrySize.
func (b *Builder) Add(path string, data []byte) error {
	if b.files == nil {
		b.files = map[string][]byte{}
		b.seen = manifest.NewPathSet()
	}
	if err := manifest.CheckEvidencePath(path, DefaultMaxPathLen); err != nil {
		return fmt.Errorf("add evidence: %w", err)
	}
	if int64(len(data)) > DefaultMaxEntrySize {
		return fmt.Errorf("add evidence: %w: %q is %d bytes, limit %d", ErrEntryTooLarge, path, len(data), DefaultMaxEntrySize)
	}
	if err := b.seen.Add(path); err != nil {
		return fmt.Errorf("add evidence: %w", err)
	}
	b.files[path] = bytes.Clone(data)
	if b.files[path] == nil {
		b.files[path] = []byte{}
	}
	return nil
}

// Files returns the manifest Files list of what was added, sorted.
func (b *Builder) Files() []manifest.File { return FileList(b.files) }

// Write writes the bundle with the given canonical manifest and
// signature (empty for none) and the added files; see Write.
func (b *Builder) Write(w io.Writer, rawManifest, signature []byte) error {
	return Write(w, Contents{Manifest: rawManifest, Signature: signature, Files: b.files})
}
