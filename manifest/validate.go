package manifest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Validate checks the structural invariants of m (SPEC.md
// "Manifest fields"): media type and schema version; every Files path a
// valid, unreserved, unique, non-conflicting evidence path; every sha256
// 64 lowercase hex digits; sizes not negative; every path named by
// Static.Evidence and by each stage's Evidence listed in Files. It does
// not judge verdicts, times or fingerprints: those are the verifier's.
// All problems are returned, joined; each wraps ErrInvalid (or
// the media-type / schema sentinel).
func Validate(m *Manifest) error {
	if m == nil {
		return fmt.Errorf("%w: nil manifest", ErrInvalid)
	}
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...))
	}
	if err := checkHeader(m.MediaType, m.SchemaVersion); err != nil {
		errs = append(errs, err)
	}

	listed := make(map[string]bool, len(m.Files))
	seen := NewPathSetSize(len(m.Files))
	for i, f := range m.Files {
		if err := CheckEvidencePath(f.Path, MaxPathLen); err != nil {
			bad("files[%d].path: %w", i, err)
			continue
		}
		if err := seen.Add(f.Path); err != nil {
			bad("files[%d].path: %w", i, err)
		}
		listed[f.Path] = true
		if !isSHA256Hex(f.SHA256) {
			bad("files[%d] %q: sha256 %q is not 64 lowercase hex digits", i, f.Path, f.SHA256)
		}
		if f.Size < 0 {
			bad("files[%d] %q: negative size %d", i, f.Path, f.Size)
		}
	}
	if !slices.IsSortedFunc(m.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) }) {
		bad("files are not sorted by path")
	}

	for _, role := range slices.Sorted(maps.Keys(m.Static.Evidence)) {
		if p := m.Static.Evidence[role]; !listed[p] {
			bad("static.evidence[%q] = %q is not listed in files", role, p)
		}
	}
	for r, rep := range m.Repetitions {
		for s, st := range rep.Stages {
			for _, role := range slices.Sorted(maps.Keys(st.Evidence)) {
				if p := st.Evidence[role]; !listed[p] {
					bad("repetitions[%d].stages[%d] (%q).evidence[%q] = %q is not listed in files", r, s, st.Stage, role, p)
				}
			}
		}
	}
	return errors.Join(errs...)
}

func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
