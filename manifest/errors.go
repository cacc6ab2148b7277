package manifest

import "errors"

// Codec errors (SPEC.md "Canonical manifest encoding").
var (
	// ErrTooLarge: manifest.json exceeds MaxSize.
	ErrTooLarge = errors.New("manifest too large")
	// ErrMediaType: media_type is not MediaType.
	ErrMediaType = errors.New("unsupported manifest media type")
	// ErrSchema: schema_version is not SchemaVersion.
	ErrSchema = errors.New("unsupported manifest schema version")
	// ErrInvalid: not one strict JSON object of the schema, or a
	// structural invariant is broken (paths, digests, evidence references).
	ErrInvalid = errors.New("invalid manifest")
	// ErrNotCanonical: the bytes decode but are not the canonical
	// encoding of what they decode to.
	ErrNotCanonical = errors.New("manifest is not canonically encoded")
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
	// ErrReservedPath: an evidence file uses Path or SignaturePath.
	ErrReservedPath = errors.New("reserved path")
)
