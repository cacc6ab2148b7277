package assemble

import (
	"fmt"
	"time"

	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/rules/static"
)

// Derived is every verdict re-derived from a manifest's recorded
// observations and the raw evidence files (SPEC.md "Derivation").
type Derived struct {
	Static      static.Report
	Repetitions []rules.SequenceResult
	// Overall is the verdict over all repetitions; "" when not dynamic.
	Overall  rules.Verdict
	Unstable bool
	Deviated bool
	// Usable says whether the result may back a certification; Why lists
	// every reason it may not (DSHIO/T 20 11.3, DSHIO/T 21 8.2).
	Usable bool
	Why    []string
	// Entries are the insert entries of the recorded patch as
	// rules.InsertEntries reads them, and EntriesErr its error (both nil
	// without a patch): T3 looks for them, and the verifier holds the dump
	// to them without reading the patch again (issue 48).
	Entries    []rules.Entry
	EntriesErr error
	// Patch is the same reading's root rows (rules.ReadPatch), which the
	// verifier compares the dump's entries with; not part of the result.
	Patch rules.PatchReading `json:"-"`
}

// Problem is evidence the derivation needed and did not find.
type Problem struct {
	Path   string // file or manifest field
	Clause string // DSHIO clause requiring it
	Detail string
}

func (p Problem) String() string { return fmt.Sprintf("%s: %s (%s)", p.Path, p.Detail, p.Clause) }

// Derive re-derives the T0 clauses and every stage verdict of every
// repetition from m's recorded observations and the evidence in files.
// It trusts nothing in m's claimed fields (Status, Verdict, FirstError,
// Claimed, Static.Report). files must already be checked against m.Files.
// lim bounds what the rules parse; runner and verifier pass the same.
func Derive(m *manifest.Manifest, files map[string][]byte, lim rules.Limits) (Derived, []Problem) {
	var d Derived
	var probs []Problem
	get := func(path, role, clause string, required bool) []byte {
		if path == "" {
			if required {
				probs = append(probs, Problem{Path: role, Clause: clause, Detail: "no evidence file recorded"})
			}
			return nil
		}
		b, ok := files[path]
		if !ok {
			probs = append(probs, Problem{Path: path, Clause: clause, Detail: "evidence file not present"})
			return nil
		}
		return b
	}

	// T0 (DSHIO/T 20 5, 12.1).
	ev := m.Static.Evidence
	in := static.Input{
		PackageJSON:      get(ev[manifest.RoleMetadata], "static.evidence.metadata", "DSHIO/T 20 12.1", false),
		Patch:            get(ev[manifest.RolePatch], "static.evidence.patch", "DSHIO/T 20 12.1", false),
		PatchFetchError:  m.Static.PatchFetchError,
		README:           get(ev[manifest.RoleREADME], "static.evidence.readme", "DSHIO/T 10 5.5.3", false),
		EntrySchema:      get(ev[manifest.RoleSchema], "static.evidence.schema", "DSHIO/T 10 5.1.6", false),
		EntryDeclaration: get(ev[manifest.RoleEntryDeclaration], "static.evidence.entry_declaration", "DSHIO/T 10 5.1.6", false),
		Baseline:         m.Baseline,
		InstalledSize:    m.Static.InstalledSize,
		MaxInputBytes:    lim.MaxStaticInput,
	}
	d.Static = static.Check(in)
	probs = append(probs, entryDefinitionProblems(m, files, d.Static)...)

	if in.Patch != nil {
		d.Patch, d.EntriesErr = rules.ReadPatch(in.Patch, lim)
		d.Entries = d.Patch.Entries
	}
	entries := d.Entries // unparseable patch: no entries (SPEC.md "T3 mount")
	sub := rules.Subject{Name: m.Subject.Name, Version: m.Subject.Version}
	window := time.Duration(m.Settings.ObservationWindowMS) * time.Millisecond

	// The observations of every repetition, and where each repetition's
	// evidence problems end, so that its derivation problem follows them.
	var reps [][]*rules.Observation
	var ends []int
	for n, rep := range m.Repetitions {
		obs := make([]*rules.Observation, len(rules.DynamicStages))
		for _, st := range rep.Stages {
			i := stageIndex(st.Stage)
			if i < 0 {
				continue // not a T1–T4 stage: the verifier's report rules name it
			}
			if st.ExitCode == nil {
				continue // not executed
			}
			// Repetitions are numbered by position from 1, as the
			// evidence paths number them; rep.Index is the writer's.
			field := fmt.Sprintf("repetitions[%d].%s", n+1, st.Stage)
			o := &rules.Observation{Stage: rules.Stage(st.Stage), ExitCode: *st.ExitCode, TimedOut: st.TimedOut}
			o.Stdout = get(st.Evidence[manifest.RoleStdout], field+".evidence.stdout", "DSHIO/T 20 12.1", true)
			o.Stderr = get(st.Evidence[manifest.RoleStderr], field+".evidence.stderr", "DSHIO/T 20 12.1", true)
			o.Merged = get(st.Evidence[manifest.RoleMerged], field+".evidence.merged", "DSHIO/T 20 6.6", true)
			if o.Stage == rules.T1 {
				o.ProfilePackageJSON = get(st.Evidence[manifest.RoleProfilePackageJSON], field+".evidence.profile_package_json", "DSHIO/T 20 6.4", true)
			}
			if o.Stage == rules.T4 {
				if st.Liveness == nil {
					probs = append(probs, Problem{Path: field + ".liveness", Clause: "DSHIO/T 20 12.1", Detail: "no liveness observation recorded"})
				} else {
					o.Liveness = &rules.Liveness{
						Window:     time.Duration(st.Liveness.WindowMS) * time.Millisecond,
						AliveFor:   time.Duration(st.Liveness.AliveMS) * time.Millisecond,
						AliveAtEnd: st.Liveness.AliveAtEnd,
					}
				}
			}
			obs[i] = o
		}
		reps = append(reps, obs)
		ends = append(ends, len(probs))
	}
	results, errs := rules.DeriveRepetitions(sub, entries, reps, window, lim)
	var verdicts []rules.Verdict
	var ordered []Problem
	start := 0
	for i, res := range results {
		ordered = append(ordered, probs[start:ends[i]]...)
		start = ends[i]
		if errs[i] != nil {
			ordered = append(ordered, Problem{Path: fmt.Sprintf("repetitions[%d]", i+1), Clause: "DSHIO/T 20 11.2", Detail: errs[i].Error()})
		}
		d.Repetitions = append(d.Repetitions, res)
		verdicts = append(verdicts, res.Verdict)
	}
	probs = append(ordered, probs[start:]...)
	if m.Dynamic && len(verdicts) > 0 {
		d.Overall, d.Unstable = rules.Stability(verdicts)
	}
	d.Deviated = len(m.Deviations) > 0
	d.Usable, d.Why = usable(m, d)
	return d, probs
}

// usable applies DSHIO/T 20 11.3, 12.2 and DSHIO/T 21 8.2: only a passed,
// stable, undeviated static + dynamic result may back a certification.
func usable(m *manifest.Manifest, d Derived) (bool, []string) {
	var why []string
	if !m.Dynamic {
		why = append(why, "static layer only: the dynamic layer (T1–T4) was not run")
	} else if d.Overall != rules.Pass {
		why = append(why, fmt.Sprintf("overall verdict is %s, not pass", d.Overall))
	}
	if d.Unstable {
		why = append(why, "unstable: repetitions disagree (DSHIO/T 20 11.3)")
	}
	if d.Deviated {
		why = append(why, fmt.Sprintf("condition deviation: %d item(s) (DSHIO/T 21 8.2)", len(m.Deviations)))
	}
	if d.Static.ConformingStatic == nil {
		why = append(why, "T0 unresolvable: metadata could not be had (DSHIO/T 20 5.5)")
	} else if !*d.Static.ConformingStatic {
		why = append(why, "T0 critical non-conformance (DSHIO/T 20 Annex A)")
	}
	return len(why) == 0, why
}

// entryDefinitionProblems applies SPEC.md "5.1.6 Optional entry fields"
// to a dynamic bundle: its image's dsh ran, so the entry definition it
// boots patch entries with was there to record, and clause 5.1.6 cannot
// have been "not checkable". Leaving the declaration out (or recording
// one that cannot be read) would otherwise turn a critical
// non-conformance into "not checkable" and issue a declaration of
// conformity. A recorded file that is not present is already named by
// its own problem (or the verifier's file finding), so it adds none.
func entryDefinitionProblems(m *manifest.Manifest, files map[string][]byte, rep static.Report) []Problem {
	if !m.Dynamic {
		return nil
	}
	ev := m.Static.Evidence
	for _, role := range []string{manifest.RoleSchema, manifest.RoleEntryDeclaration} {
		if p := ev[role]; p != "" {
			if _, ok := files[p]; !ok {
				return nil
			}
		}
	}
	for _, c := range rep.Clauses {
		if c.Clause != "5.1.6" || c.Status != static.NotCheckable {
			continue
		}
		field, what := "static.evidence.entry_declaration", "no entry declaration is recorded"
		switch {
		case ev[manifest.RoleSchema] != "":
			field, what = "static.evidence.schema", "the recorded entry schema cannot be read ("+c.Message+")"
		case ev[manifest.RoleEntryDeclaration] != "":
			what = "the recorded entry declaration cannot be read (" + c.Message + ")"
		}
		return []Problem{{Path: field, Clause: "DSHIO/T 10 5.1.6", Detail: what + ", though the dynamic layer ran the image's dsh, whose entry declaration was there to record: clause 5.1.6 is left not checkable"}}
	}
	return nil
}

func stageIndex(s string) int {
	for i, st := range rules.DynamicStages {
		if string(st) == s {
			return i
		}
	}
	return -1
}
