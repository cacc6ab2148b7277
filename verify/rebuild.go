package verify

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// rebuildClause is where SPEC.md defines the rebuild.
const rebuildClause = `SPEC.md "Rebuilding the manifest"`

// maxRebuildFindings bounds how many differing fields one rebuild names;
// the rest are counted in the last finding.
const maxRebuildFindings = 32

// recordedInput is the assemble.Input a manifest records: its inputs
// (SPEC.md "Manifest fields and how each is checked", column "kind"
// input) copied, the evidence bytes read from the trusted files under the
// paths the manifest names. Nothing derived (statuses, verdicts, the T0
// report, claimed, the declaration, durations, the file list, the
// evidence layout, the editions cited) is read. ok is false when a time
// does not parse or an evidence file is not trusted: the checks before the
// rebuild name those.
func recordedInput(m *manifest.Manifest, files map[string][]byte, lim rules.Limits) (assemble.Input, bool) {
	ok := true
	parse := func(v string) time.Time {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			ok = false
		}
		return t
	}
	file := func(p string) []byte {
		if p == "" {
			return nil
		}
		b, have := files[p]
		if !have {
			ok = false
		}
		return b
	}
	in := assemble.Input{
		Tool:        m.Tool,
		Subject:     m.Subject,
		Baseline:    m.Baseline,
		Fingerprint: m.Fingerprint,
		Image:       m.Image,
		Conditions: manifest.Conditions{
			Fixed:    slices.Clone(m.Conditions.Fixed),
			Variable: slices.Clone(m.Conditions.Variable),
		},
		Deviations: slices.Clone(m.Deviations),
		Settings: manifest.Settings{
			ObservationWindowMS: m.Settings.ObservationWindowMS,
			TimeoutsMS:          maps.Clone(m.Settings.TimeoutsMS),
			Repeat:              m.Settings.Repeat,
		},
		StartedAt:  parse(m.StartedAt),
		FinishedAt: parse(m.FinishedAt),
		Static: assemble.StaticInput{
			Metadata:         file(m.Static.Evidence[manifest.RoleMetadata]),
			Patch:            file(m.Static.Evidence[manifest.RolePatch]),
			PatchFetchError:  m.Static.PatchFetchError,
			README:           file(m.Static.Evidence[manifest.RoleREADME]),
			Schema:           file(m.Static.Evidence[manifest.RoleSchema]),
			EntryDeclaration: file(m.Static.Evidence[manifest.RoleEntryDeclaration]),
			Tarball:          file(m.Static.Evidence[manifest.RoleTarball]),
			InstalledSize:    m.Static.InstalledSize,
		},
		Dynamic:    m.Dynamic,
		RuleLimits: lim,
	}
	if len(m.Environment.Evidence) > 0 {
		in.Versions = map[string][]byte{}
		for role, p := range m.Environment.Evidence {
			in.Versions[role] = file(p)
		}
	}
	for _, rp := range m.Repetitions {
		var runs []assemble.StageRun
		for _, st := range rp.Stages {
			if st.ExitCode == nil {
				continue // not executed: Build records it from its absence
			}
			r := assemble.StageRun{
				Stage:     rules.Stage(st.Stage),
				Argv:      slices.Clone(st.Argv),
				Network:   st.Network,
				StartedAt: parse(st.StartedAt),
				EndedAt:   parse(st.EndedAt),
				ExitCode:  *st.ExitCode,
				TimedOut:  st.TimedOut,
				Stdout:    file(st.Evidence[manifest.RoleStdout]),
				Stderr:    file(st.Evidence[manifest.RoleStderr]),
				Merged:    file(st.Evidence[manifest.RoleMerged]),
			}
			if p := st.Evidence[manifest.RoleProfilePackageJSON]; p != "" {
				r.ProfilePackageJSON = file(p)
			}
			if l := st.Liveness; l != nil {
				r.Liveness = &rules.Liveness{Window: ms(l.WindowMS), AliveFor: ms(l.AliveMS), AliveAtEnd: l.AliveAtEnd}
			}
			runs = append(runs, r)
		}
		in.Repetitions = append(in.Repetitions, runs)
	}
	return in, ok
}

func ms(v int64) time.Duration { return time.Duration(v) * time.Millisecond }

// checkRebuild rebuilds the whole manifest from the recorded inputs, the
// trusted evidence and the edition facts with assemble.Build, the code
// the runner writes bundles with, and compares the canonical bytes of the
// result with the signed manifest (SPEC.md "Rebuilding the manifest").
// Every field that differs is one finding naming it by JSON Pointer (RFC
// 6901). It runs last and only on a bundle nothing else has found wrong:
// the specific checks say better why a field is wrong, and the rebuild is
// what makes "derived, cross-checked or unverified" hold for the fields
// no specific check was written for.
func (vf *verification) checkRebuild() {
	if len(vf.rep.Findings) > 0 {
		return
	}
	in, ok := recordedInput(vf.m, vf.trusted, vf.lim)
	if !ok {
		vf.rep.add(Finding{Class: ClassVerdictMismatch, File: manifest.Path, Clause: rebuildClause,
			Message: "the manifest cannot be rebuilt: a recorded time does not parse or an evidence file it names is not present"})
		return
	}
	// The derivation of these inputs is the one made above: the rebuild
	// runs only when it found no problem (no finding at all).
	derived := vf.derived
	in.Derived = &derived
	in.KnownSum = vf.knownSum
	rebuilt, _, err := assemble.Build(in)
	if err != nil {
		vf.rep.add(Finding{Class: ClassVerdictMismatch, File: manifest.Path, Clause: rebuildClause,
			Message: message("the recorded inputs do not rebuild a manifest: %s", err.Error())})
		return
	}
	// The writer's informative texts are inputs: adopted wherever the
	// normative values agree (SPEC.md "Normative and informative values").
	assemble.AdoptInformative(rebuilt, vf.m)
	// Equal manifests encode alike, and the signed bytes are m's
	// canonical encoding (manifest.Decode accepted nothing else), so a
	// rebuilt manifest equal to m, every field, rebuilds the signed bytes
	// without being encoded. Where they are not equal (a nil list beside
	// an empty one encodes alike), the encodings decide.
	if reflect.DeepEqual(rebuilt, vf.m) {
		return
	}
	// The rebuilt encoding is hashed as it is written, not held: the
	// signed manifest's bytes are no longer held either (readManifest).
	h := sha256.New()
	if err := manifest.EncodeTo(h, rebuilt); err != nil {
		vf.rep.add(Finding{Class: ClassVerdictMismatch, File: manifest.Path, Clause: rebuildClause,
			Message: message("the rebuilt manifest does not encode: %s", err.Error())})
		return
	}
	if [sha256.Size]byte(h.Sum(nil)) == vf.digest {
		return
	}
	// Both encodings again, to name the fields that differ: the signed
	// bytes are m's canonical encoding (manifest.Decode accepted nothing
	// else), and neither encoding fails, as each succeeded before.
	signed, _ := manifest.Encode(vf.m)
	want, _ := manifest.Encode(rebuilt)
	diffs := manifestDiff(signed, want)
	if len(diffs) == 0 {
		diffs = []fieldDiff{{pointer: "", signed: "(the document)", rebuilt: "(another byte form)"}}
	}
	for i, d := range diffs {
		if i == maxRebuildFindings {
			vf.rep.add(Finding{Class: ClassVerdictMismatch, File: manifest.Path, Clause: rebuildClause,
				Message: fmt.Sprintf("and %d more field(s) differ from the rebuilt manifest", len(diffs)-i)})
			break
		}
		vf.rep.add(Finding{Class: ClassVerdictMismatch, File: manifest.Path, Field: d.pointer, Clause: rebuildClause,
			Message: message("the signed manifest holds %s, the manifest rebuilt from the evidence and the recorded inputs %s", d.signed, d.rebuilt)})
	}
}

// fieldDiff is one leaf (or member, or element) where two manifests
// differ; values are their JSON text.
type fieldDiff struct {
	pointer, signed, rebuilt string
}

// manifestDiff lists every field where two JSON documents differ, by
// JSON Pointer, in document order.
func manifestDiff(a, b []byte) []fieldDiff {
	va, vb := decodeAny(a), decodeAny(b)
	var out []fieldDiff
	diffValue("", va, vb, &out)
	return out
}

func decodeAny(b []byte) any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil
	}
	return v
}

// absent marks a member or element one side lacks.
const absent = "(absent)"

func diffValue(ptr string, a, b any, out *[]fieldDiff) {
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			keys := make([]string, 0, len(x)+len(y))
			for k := range x {
				keys = append(keys, k)
			}
			for k := range y {
				if _, dup := x[k]; !dup {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				diffMember(ptr+"/"+escapePointer(k), x, y, k, out)
			}
			return
		}
	case []any:
		if y, ok := b.([]any); ok {
			for i := range max(len(x), len(y)) {
				p := ptr + "/" + strconv.Itoa(i)
				switch {
				case i >= len(x):
					*out = append(*out, fieldDiff{p, absent, jsonText(y[i])})
				case i >= len(y):
					*out = append(*out, fieldDiff{p, jsonText(x[i]), absent})
				default:
					diffValue(p, x[i], y[i], out)
				}
			}
			return
		}
	}
	if ja, jb := jsonText(a), jsonText(b); ja != jb {
		*out = append(*out, fieldDiff{ptr, ja, jb})
	}
}

func diffMember(ptr string, x, y map[string]any, k string, out *[]fieldDiff) {
	va, okA := x[k]
	vb, okB := y[k]
	switch {
	case !okA:
		*out = append(*out, fieldDiff{ptr, absent, jsonText(vb)})
	case !okB:
		*out = append(*out, fieldDiff{ptr, jsonText(va), absent})
	default:
		diffValue(ptr, va, vb, out)
	}
}

// jsonText is v as compact JSON.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// escapePointer escapes one reference token (RFC 6901 section 3).
func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
