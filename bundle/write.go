package bundle

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/dshaudit/dshaudit/manifest"
)

// epoch is the modification time of every entry (SPEC.md "Bundle
// layout"): the Unix epoch, so that the archive does not depend on when
// it was written. The run's times are in the manifest.
var epoch = time.Unix(0, 0).UTC()

// entryMode is the permission of every entry.
const entryMode = 0o644

// Contents is everything a bundle holds.
type Contents struct {
	// Manifest is the canonical manifest.json, as manifest.Encode returns
	// it and as package attest signed it.
	Manifest []byte
	// Signature is signature.sigstore.json; empty means no signature
	// entry (an unsigned bundle, which verify reports as such).
	Signature []byte
	// Files maps each evidence path to its content. It must match the
	// manifest's Files list exactly.
	Files map[string][]byte
}

// Write writes c to w as a deterministic bundle (SPEC.md "Bundle
// layout"): the same Contents always produce the same bytes, whatever
// the map order. It refuses contents that Read with DefaultLimits, or
// manifest.Decode, or CompareFiles would refuse or flag, so it never
// writes a bundle that its own reader rejects. On error, w may hold a
// partial bundle; use WriteFileAtomicContext to never leave one at a path.
func Write(w io.Writer, c Contents) error {
	m, err := manifest.Decode(c.Manifest)
	if err != nil {
		return fmt.Errorf("write bundle: %w", err)
	}
	if f := compareFiles(m.Files, c.Files, nil); len(f) > 0 {
		errs := make([]error, len(f))
		for i, x := range f {
			errs[i] = fmt.Errorf("%w: %s", ErrContentsMismatch, x)
		}
		return fmt.Errorf("write bundle: %w", errors.Join(errs...))
	}
	entries := make([]entry, 0, len(c.Files)+2)
	entries = append(entries, entry{manifest.Path, c.Manifest})
	if len(c.Signature) > 0 {
		entries = append(entries, entry{manifest.SignaturePath, c.Signature})
	}
	for _, f := range m.Files { // sorted by path: the manifest is canonical
		entries = append(entries, entry{f.Path, c.Files[f.Path]})
	}
	if err := checkWriteLimits(entries, DefaultLimits()); err != nil {
		return fmt.Errorf("write bundle: %w", err)
	}
	if err := checkWriteNames(entries); err != nil {
		return fmt.Errorf("write bundle: %w", err)
	}
	return writeEntries(w, entries)
}

// checkWriteNames refuses the names the reader refuses beyond ValidPath
// (tarnames.go): a character that is not printable, and two names that
// are one on a case-insensitive or normalising file system.
func checkWriteNames(entries []entry) error {
	seen := map[string]string{}
	for _, e := range entries {
		if err := printableName(e.path); err != nil {
			return err
		}
		k := foldKey(e.path)
		if q, ok := seen[k]; ok {
			return fmt.Errorf("%w: %q and %q are one name on a case-insensitive or normalising file system", ErrNameAmbiguous, q, e.path)
		}
		seen[k] = e.path
	}
	return nil
}

type entry struct {
	path string
	data []byte
}

func checkWriteLimits(entries []entry, lim Limits) error {
	if len(entries) > lim.MaxEntries {
		return fmt.Errorf("%w: %d entries, limit %d", ErrTooManyEntries, len(entries), lim.MaxEntries)
	}
	var total int64
	for _, e := range entries {
		size := int64(len(e.data))
		if size > lim.MaxEntrySize {
			return fmt.Errorf("%w: %q is %d bytes, limit %d", ErrEntryTooLarge, e.path, size, lim.MaxEntrySize)
		}
		total += size
	}
	if total > lim.MaxTotal {
		return fmt.Errorf("%w: %d bytes of entries, limit %d", ErrTooLarge, total, lim.MaxTotal)
	}
	return nil
}

// writeEntries writes the entries, in the order given, as a tar stream
// compressed into one zstd frame.
func writeEntries(w io.Writer, entries []entry) error {
	// The tar stream is sized first, without copying it, so that the frame
	// header declares its content size: a decoder then needs a window only
	// as large as the content, not the 8 MiB the encoder may use (SPEC.md
	// "Archive encoding").
	var size countingWriter
	if err := writeTar(&size, entries); err != nil {
		return fmt.Errorf("write bundle: %w", err)
	}
	enc, err := getEncoder()
	if err != nil {
		return fmt.Errorf("write bundle: zstd: %w", err)
	}
	enc.ResetContentSize(w, int64(size))
	if err := writeTar(enc, entries); err != nil {
		enc.Close()
		putEncoder(enc)
		return fmt.Errorf("write bundle: %w", err)
	}
	if err := enc.Close(); err != nil {
		putEncoder(enc)
		return fmt.Errorf("write bundle: zstd: %w", err)
	}
	putEncoder(enc)
	return nil
}

// writeTar writes the entries, in the order given, as an uncompressed
// tar stream ending with the two-block end-of-archive marker.
func writeTar(w io.Writer, entries []entry) error {
	tw := tar.NewWriter(w)
	for _, e := range entries {
		if err := writeEntry(tw, e); err != nil {
			return fmt.Errorf("%q: %w", e.path, err)
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("tar: %w", err)
	}
	return nil
}

// writeEntry writes one regular file with the fixed header fields. The
// format is left to archive/tar: ustar when the name fits, else PAX with
// a single "path" record.
func writeEntry(tw *tar.Writer, e entry) error {
	hdr := &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     e.path,
		Size:     int64(len(e.data)),
		Mode:     entryMode,
		ModTime:  epoch,
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err := tw.Write(e.data)
	return err
}

// countingWriter counts the bytes written to it and keeps none.
type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
