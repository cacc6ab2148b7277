package rules

// DefaultMaxDumpSize is the largest T3 dump the T3 rule parses, in bytes
// (SPEC.md "T3 dump size limit"). Real dumps of the web profile are about
// 16 KB; a YAML node tree costs up to about 120 times its text (a flow
// list of one-character scalars), so this bounds the parse at about
// 30 MiB whatever a bundle holds.
const DefaultMaxDumpSize = 256 << 10

// MaxPatchSize is the default of Limits.MaxStaticInput: the largest patch
// file InsertEntries parses, in bytes, the same bound as T0's clause 5.1.3
// (static.MaxPatchBytes; SPEC.md "T0 static check", "Input bounds"). Real
// patch files are tens of bytes; a YAML node tree costs up to about 120
// times its text, so a larger bound let a bundle of a few kilobytes make
// a verifier allocate gigabytes.
const MaxPatchSize = 256 << 10

// Limits bound what the rules parse from evidence, so that a derivation's
// memory and time do not grow with hostile input. Runner and verifier
// pass the same limits, or their derivations may differ.
type Limits struct {
	// MaxDumpSize is the largest T3 dump (the stdout of --dump-config)
	// parsed as YAML; a larger dump derives config_failed unparsed. Zero
	// means DefaultMaxDumpSize.
	MaxDumpSize int64
	// MaxStaticInput is the largest package.json, patch file, entry JSON
	// Schema and EntryOptions declaration T0 parses, each, and the
	// largest patch InsertEntries parses (static.Input.MaxInputBytes).
	// Zero means MaxPatchSize, the default of all four (256 KiB).
	MaxStaticInput int64
}

// DefaultLimits returns the documented default limits.
func DefaultLimits() Limits {
	return Limits{MaxDumpSize: DefaultMaxDumpSize, MaxStaticInput: MaxPatchSize}
}

func (l Limits) maxStaticInput() int64 {
	if l.MaxStaticInput <= 0 {
		return MaxPatchSize
	}
	return l.MaxStaticInput
}

func (l Limits) maxDumpSize() int64 {
	if l.MaxDumpSize <= 0 {
		return DefaultMaxDumpSize
	}
	return l.MaxDumpSize
}
