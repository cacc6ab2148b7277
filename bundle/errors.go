package bundle

import "errors"

// Manifest codec errors (SPEC.md "Canonical manifest encoding").
var (
	// ErrManifestTooLarge: manifest.json exceeds MaxManifestSize.
	ErrManifestTooLarge = errors.New("manifest too large")
	// ErrManifestMediaType: media_type is not ManifestMediaType.
	ErrManifestMediaType = errors.New("unsupported manifest media type")
	// ErrManifestSchema: schema_version is not SchemaVersion.
	ErrManifestSchema = errors.New("unsupported manifest schema version")
	// ErrManifestInvalid: not one strict JSON object of the schema, or a
	// structural invariant is broken (paths, digests, evidence references).
	ErrManifestInvalid = errors.New("invalid manifest")
	// ErrManifestNotCanonical: the bytes decode but are not the canonical
	// encoding of what they decode to.
	ErrManifestNotCanonical = errors.New("manifest is not canonically encoded")
)

// Path errors, shared by the manifest, the writer and the reader
// (SPEC.md "Reader limits and refusals").
var (
	// ErrPathEscape: an absolute path or one with a ".." component.
	ErrPathEscape = errors.New("path escapes the bundle")
	// ErrPathInvalid: empty, too long, not UTF-8, a control character or
	// backslash, an empty or "." component.
	ErrPathInvalid = errors.New("invalid path")
	// ErrPathConflict: one path is a directory prefix of another ("a" and
	// "a/b"), so both cannot be extracted.
	ErrPathConflict = errors.New("path conflicts with another entry")
	// ErrDuplicate: the same path twice.
	ErrDuplicate = errors.New("duplicate entry")
	// ErrReservedPath: an evidence file uses ManifestPath or SignaturePath.
	ErrReservedPath = errors.New("reserved path")
)

// Archive errors (SPEC.md "Reader limits and refusals").
var (
	// ErrLink: a symbolic or hard link entry.
	ErrLink = errors.New("link entry")
	// ErrDevice: a character or block device entry.
	ErrDevice = errors.New("device entry")
	// ErrNotRegular: any other entry that is not a regular file
	// (directory, fifo, global header, sparse or contiguous file…).
	ErrNotRegular = errors.New("entry is not a regular file")
	// ErrUnsupportedHeader: a tar format other than ustar/PAX, or PAX
	// records other than "path" (xattrs, sparse maps, times, ids…).
	ErrUnsupportedHeader = errors.New("unsupported tar header")
	// ErrLayout: manifest.json is not the first entry, the signature is
	// not second, or evidence entries are not in ascending path order.
	ErrLayout = errors.New("bundle layout violated")
	// ErrEntryTooLarge: one entry exceeds Limits.MaxEntrySize.
	ErrEntryTooLarge = errors.New("entry too large")
	// ErrTooManyEntries: more than Limits.MaxEntries entries.
	ErrTooManyEntries = errors.New("too many entries")
	// ErrTooLarge: the compressed input, the decompressed stream or the
	// sum of entry sizes exceeds its limit.
	ErrTooLarge = errors.New("bundle too large")
	// ErrWindowTooLarge: the zstd frame asks for a window above
	// Limits.MaxWindow.
	ErrWindowTooLarge = errors.New("zstd window too large")
	// ErrTrailingData: bytes after the zstd frame, or after the tar
	// end-of-archive marker.
	ErrTrailingData = errors.New("trailing data")
	// ErrCorrupt: not a zstd frame holding a tar archive, or a checksum
	// or structure error inside either.
	ErrCorrupt = errors.New("corrupt bundle")
	// ErrLimits: a Limits value is not positive or not consistent.
	ErrLimits = errors.New("invalid limits")
	// ErrContentsMismatch: the writer was given files that do not match
	// the manifest's Files list.
	ErrContentsMismatch = errors.New("files do not match manifest")
)
