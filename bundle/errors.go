package bundle

import "errors"

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
	// ErrNameAmbiguous: an archive entry's name could depend on which tar
	// reader reads it (PAX and ustar names that differ, repeated or
	// extra PAX records, bytes after a name's NUL), or two names collide
	// on a case-insensitive or normalising file system.
	ErrNameAmbiguous = errors.New("archive entry name is read differently by tar readers")
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
