package verify

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// inputClause is where SPEC.md gives each input's validation rule.
const inputClause = `SPEC.md "Manifest fields and how each is checked"`

// Bounds of the inputs (SPEC.md "Manifest fields and how each is
// checked"): far above any value a run records, low enough that no
// input is a flood.
const (
	maxNameBytes       = 256
	maxWindowMS        = 60 * 60 * 1000      // an hour
	maxTimeoutMS       = 24 * 60 * 60 * 1000 // a day
	maxRepeat          = 100
	maxExitCode        = 255
	timeoutVersionsKey = "version"
)

// checkInputs applies the validation rule of every manifest field that
// the rebuild copies rather than derives (SPEC.md "Manifest fields and how
// each is checked", kind "input"): its type is the decoder's, and here
// its format and bounds. A text is one line of printable text; a name is
// also ASCII, so that no look-alike passes for the name it imitates.
// Each broken rule is one input-invalid finding naming the field by JSON
// Pointer.
func (vf *verification) checkInputs() {
	bad := func(ptr, format string, args ...any) {
		vf.rep.addf(ClassInputInvalid, ptr, inputClause, format, args...)
	}
	name := func(ptr, v string, empty bool) {
		if v == "" && empty {
			return
		}
		if why := nameProblem(v); why != "" {
			bad(ptr, "%q: %s", v, why)
		}
	}
	text := func(ptr, v string) {
		if err := manifest.TextError(v); err != nil {
			bad(ptr, "%q: %v", v, err)
		}
	}
	name("/tool/name", vf.m.Tool.Name, false)
	name("/tool/version", vf.m.Tool.Version, false)
	if strings.ContainsRune(vf.m.Tool.Version, ' ') {
		bad("/tool/version", "%q: a version is one word", vf.m.Tool.Version)
	}
	name("/baseline", vf.m.Baseline, false)
	if s := vf.m.Subject.TarballSHA256; s != "" && !isLowerHex(s, 64) {
		bad("/subject/tarball_sha256", "%q is not 64 lowercase hex digits", s)
	}
	if s := vf.m.Subject.Integrity; s != "" {
		if _, why := parseIntegrity(s); why != "" {
			bad("/subject/integrity", "%q: %s", s, why)
		}
	}
	for i, c := range vf.m.Conditions.Fixed {
		name(fmt.Sprintf("/conditions/fixed/%d/name", i), c.Name, false)
		if !assemble.IsFixedCondition(c.Name) {
			// A condition the standard fixes is one of "Edition facts"
			// under its name; a run that held another one fixed ran
			// under a condition the standard does not give, which is a
			// deviation, not a fixed condition (SPEC.md "Recorded
			// conditions").
			bad(fmt.Sprintf("/conditions/fixed/%d/name", i), "%q is not a fixed condition SPEC.md \"Edition facts\" names; a condition of the run other than the standard's is recorded as a deviation", c.Name)
		}
		text(fmt.Sprintf("/conditions/fixed/%d/value", i), c.Value)
	}
	for i, c := range vf.m.Conditions.Variable {
		name(fmt.Sprintf("/conditions/variable/%d/name", i), c.Name, false)
		text(fmt.Sprintf("/conditions/variable/%d/value", i), c.Value)
	}
	for i, d := range vf.m.Deviations {
		p := fmt.Sprintf("/deviations/%d", i)
		name(p+"/what", d.What, false)
		text(p+"/standard", d.Standard)
		text(p+"/changed_to", d.ChangedTo)
		text(p+"/why", d.Why)
		name(p+"/clause", d.Clause, true)
		// A deviation is a recorded difference (DSHIO/T 21 8.1): the
		// value the standard fixes and another one.
		if strings.TrimSpace(d.Standard) == "" || strings.TrimSpace(d.ChangedTo) == "" || sameValue(d.Standard, d.ChangedTo) || isPlaceholder(d.Standard) && isPlaceholder(d.ChangedTo) {
			bad(p, "%q: %q changed to %q records no difference (DSHIO/T 21 8.1: a deviation names the standard's value and the one used instead)", d.What, d.Standard, d.ChangedTo)
		}
	}
	s := vf.m.Settings
	if s.ObservationWindowMS < 0 || s.ObservationWindowMS > maxWindowMS {
		bad("/settings/observation_window_ms", "%d ms is outside 0..%d", s.ObservationWindowMS, maxWindowMS)
	}
	for k, v := range s.TimeoutsMS {
		if !isDynamicStage(k) && k != timeoutVersionsKey {
			bad("/settings/timeouts_ms/"+escapePointer(k), "%q is neither a stage of T1–T4 nor %q (the limit of the version commands)", k, timeoutVersionsKey)
		}
		if v <= 0 || v > maxTimeoutMS {
			bad("/settings/timeouts_ms/"+escapePointer(k), "%d ms is outside 1..%d", v, maxTimeoutMS)
		}
	}
	if s.Repeat < 0 || s.Repeat > maxRepeat {
		bad("/settings/repeat", "%d is outside 0..%d", s.Repeat, maxRepeat)
	}
	text("/static/patch_fetch_error", vf.m.Static.PatchFetchError)
	if vf.m.Static.InstalledSize < -1 {
		bad("/static/installed_size", "%d: a size is -1 (unknown) or not negative", vf.m.Static.InstalledSize)
	}
	for i, rp := range vf.m.Repetitions {
		for j, st := range rp.Stages {
			p := "/repetitions/" + strconv.Itoa(i) + "/stages/" + strconv.Itoa(j)
			if st.ExitCode != nil && (*st.ExitCode < 0 || *st.ExitCode > maxExitCode) {
				bad(p+"/exit_code", "%d is outside 0..%d (an exit status)", *st.ExitCode, maxExitCode)
			}
			for k, a := range st.Argv {
				if manifest.TextError(a) != nil { // the pointer is made only for a finding
					text(p+"/argv/"+strconv.Itoa(k), a)
				}
			}
			if st.Stage == string(rules.T4) && st.Liveness != nil && st.ExitCode != nil {
				l := st.Liveness
				if !l.AliveAtEnd && l.WindowMS > 0 && l.AliveMS == l.WindowMS && *st.ExitCode == KillExitCode && !st.TimedOut {
					vf.rep.addf(ClassTimeInconsistent, repField(i+1, st.Stage, "liveness", "alive_at_end"), `DESIGN.md "Liveness observation"`,
						"false, but the process was alive for the whole %d ms window and exited %d, the observer's stop at the window's end", l.WindowMS, KillExitCode)
				}
			}
		}
	}
}

// nameProblem says why v is not a name: non-empty printable ASCII, one
// line, no space at either end, at most maxNameBytes. "" if it is one.
func nameProblem(v string) string {
	switch {
	case v == "":
		return "empty"
	case len(v) > maxNameBytes:
		return fmt.Sprintf("longer than %d bytes", maxNameBytes)
	case strings.TrimSpace(v) != v:
		return "white space at an end"
	}
	for _, r := range v {
		if r < 0x20 || r > 0x7e {
			return fmt.Sprintf("holds %U; a name is printable ASCII, so that no look-alike or invisible character passes for another name", r)
		}
	}
	return ""
}

// isPlaceholder is a value that names nothing.
func isPlaceholder(v string) bool {
	switch strings.TrimSpace(v) {
	case "", "-", "—", "n/a", "none", "null":
		return true
	}
	return false
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// parseIntegrity reads the subject's integrity, the npm Subresource
// Integrity string of the tarball's sha512 the writer computed (the form
// schema/manifest.schema.json gives): "sha512-", then exactly 64 bytes in
// standard base64 with padding, one hash.
func parseIntegrity(s string) (digest []byte, why string) {
	b64, ok := strings.CutPrefix(s, "sha512-")
	if !ok {
		return nil, "not sha512-<base64>"
	}
	d, err := base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil || len(d) != 64 {
		return nil, "the sha512 digest is not 64 bytes of standard base64"
	}
	return d, ""
}
