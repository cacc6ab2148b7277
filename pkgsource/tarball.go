package pkgsource

import "github.com/dshaudit/dshaudit/internal/pkgtar"

// Limits bounds everything read from a registry, CDN or tarball.
type Limits struct {
	// MaxPackumentBytes bounds the full package document.
	MaxPackumentBytes int64
	// MaxTarballBytes bounds the compressed tarball.
	MaxTarballBytes int64
	// MaxUnpackedBytes bounds the decompressed tar stream (gzip bombs).
	MaxUnpackedBytes int64
	// MaxFileBytes bounds each file T0 reads: package.json, the patch
	// file (from a CDN or the tarball) and the README.
	MaxFileBytes int64
	// MaxEntries bounds the number of tar entries.
	MaxEntries int
}

// DefaultLimits are the limits Fetch uses for zero fields; the tarball's
// are pkgtar's. DESIGN.md "T0 inputs".
var DefaultLimits = Limits{
	MaxPackumentBytes: 128 << 20,
	MaxTarballBytes:   128 << 20,
	MaxUnpackedBytes:  pkgtar.DefaultLimits.MaxUnpackedBytes,
	MaxFileBytes:      pkgtar.DefaultLimits.MaxFileBytes,
	MaxEntries:        pkgtar.DefaultLimits.MaxEntries,
}

func (l Limits) withDefaults() Limits {
	if l.MaxPackumentBytes <= 0 {
		l.MaxPackumentBytes = DefaultLimits.MaxPackumentBytes
	}
	if l.MaxTarballBytes <= 0 {
		l.MaxTarballBytes = DefaultLimits.MaxTarballBytes
	}
	t := l.tar().WithDefaults()
	l.MaxUnpackedBytes, l.MaxFileBytes, l.MaxEntries = t.MaxUnpackedBytes, t.MaxFileBytes, t.MaxEntries
	return l
}

func (l Limits) tar() pkgtar.Limits {
	return pkgtar.Limits{MaxUnpackedBytes: l.MaxUnpackedBytes, MaxFileBytes: l.MaxFileBytes, MaxEntries: l.MaxEntries}
}

// TarIndex is what one pass over a package tarball found (pkgtar.Index).
type TarIndex = pkgtar.Index

// ReadTarball reads a package tarball as pacote and node-tar extract it
// (pkgtar.Read), within lim's tarball limits.
func ReadTarball(tgz []byte, lim Limits, want func(rel string) bool) (*TarIndex, error) {
	return pkgtar.Read(tgz, lim.tar(), want)
}
