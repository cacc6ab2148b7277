package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"

	"github.com/dshaudit/dshaudit/manifest"
)

// FileList returns the manifest Files entries for files: each path with
// the sha256 and size of its content, sorted by path. It does not check
// the paths; manifest.Encode and Write do.
func FileList(files map[string][]byte) []manifest.File {
	return FileListKnown(files, nil)
}

// FileListKnown is FileList where known, when not nil and it knows a
// file's digest (Archive.KnownSum: computed by Read over the same bytes),
// spares hashing that file a second time: the verifier's rebuild lists
// the archive's own files, whose hashing was a tenth of a 60 MiB
// verification (issue 48).
func FileListKnown(files map[string][]byte, known func(string, []byte) ([sha256.Size]byte, bool)) []manifest.File {
	out := make([]manifest.File, 0, len(files))
	for _, p := range slices.Sorted(maps.Keys(files)) {
		out = append(out, fileOf(p, files[p], known))
	}
	return out
}

// fileOf returns the Files entry of data at path, its digest taken from
// known when known has it, else computed.
func fileOf(path string, data []byte, known func(string, []byte) ([sha256.Size]byte, bool)) manifest.File {
	sum, ok := knownSum(known, path, data)
	if !ok {
		sum = sha256.Sum256(data)
	}
	return manifest.File{Path: path, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data))}
}

// Finding classes reported by CompareFiles (SPEC.md "Reader limits and
// refusals").
const (
	// FindingMissing: listed by the manifest, absent from the archive.
	FindingMissing = "missing"
	// FindingExtra: in the archive, not listed by the manifest.
	FindingExtra = "extra"
	// FindingChanged: present, but its sha256 or size differs.
	FindingChanged = "changed"
)

// Finding is one difference between the manifest's Files list and the
// archive's evidence files.
type Finding struct {
	Class  string `json:"class"`
	Path   string `json:"path"`
	Detail string `json:"detail"`
}

func (f Finding) String() string {
	return fmt.Sprintf("%s %q: %s", f.Class, f.Path, f.Detail)
}

// CompareFiles compares the manifest's Files list with the archive's
// evidence files and returns every difference, sorted by path (one
// finding per path). No findings means every listed file is present with
// its digest and size, and nothing else is.
func CompareFiles(m *manifest.Manifest, a *Archive) []Finding {
	return compareFiles(m.Files, a.Files, a.KnownSum)
}

// compareFiles compares; sumOf, when not nil and it knows a file's
// digest (computed by Read), spares hashing that file a second time.
func compareFiles(listed []manifest.File, files map[string][]byte, sumOf func(string, []byte) ([sha256.Size]byte, bool)) []Finding {
	var out []Finding
	want := make(map[string]manifest.File, len(listed))
	for _, f := range listed {
		want[f.Path] = f
	}
	paths := make(map[string]bool, len(want)+len(files))
	for p := range want {
		paths[p] = true
	}
	for p := range files {
		paths[p] = true
	}
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		w, isListed := want[p]
		data, isPresent := files[p]
		switch {
		case !isPresent:
			out = append(out, Finding{FindingMissing, p, fmt.Sprintf("listed with sha256 %s, size %d; not in the archive", w.SHA256, w.Size)})
		case !isListed:
			out = append(out, Finding{FindingExtra, p, fmt.Sprintf("in the archive (%d bytes); not listed by the manifest", len(data))})
		default:
			if sameFile(p, data, sumOf, w) {
				continue
			}
			got := fileOf(p, data, sumOf)
			if got.SHA256 != w.SHA256 || got.Size != w.Size {
				out = append(out, Finding{FindingChanged, p, fmt.Sprintf("listed sha256 %s size %d; archive has sha256 %s size %d", w.SHA256, w.Size, got.SHA256, got.Size)})
			}
		}
	}
	return out
}

// sameFile reports whether data, at path p, has the size and sha256 that
// w lists, without making the hex string of its digest.
func sameFile(p string, data []byte, sumOf func(string, []byte) ([sha256.Size]byte, bool), w manifest.File) bool {
	if int64(len(data)) != w.Size {
		return false
	}
	sum, ok := knownSum(sumOf, p, data)
	if !ok {
		sum = sha256.Sum256(data)
	}
	var h [2 * sha256.Size]byte
	hex.Encode(h[:], sum[:])
	return string(h[:]) == w.SHA256
}

func knownSum(sumOf func(string, []byte) ([sha256.Size]byte, bool), path string, data []byte) ([sha256.Size]byte, bool) {
	if sumOf == nil {
		return [sha256.Size]byte{}, false
	}
	return sumOf(path, data)
}
