package manifest

// MaxSize bounds manifest.json, in Decode and in bundle.Read.
const MaxSize = 8 << 20

// MaxPathLen bounds an evidence path in bytes (the reader's default
// limit on an entry name).
const MaxPathLen = 1024

// BundleSuffix ends every bundle file name dshaudit writes by default,
// and is what `verify DIR` and `report DIR` look for.
const BundleSuffix = ".dshaudit.tar.zst"
