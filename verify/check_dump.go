package verify

import (
	"bytes"
	"maps"
	"slices"
	"strings"

	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// checkDumpAgainstPatch holds T3's dump, dsh's own composed tree, to the
// patch T0 judged (SPEC.md "What the verifier cross-checks", class 6):
// every root entry the dump gives the package's name is an insert entry
// of the recorded patch, stands in the plugin's own `# ==` section and
// equals, every field, the row the recorded patch gives it
// (rules.Dump.EntryPlacement). An entry of the plugin that the patch lacks, or
// that differs from it, shows that dsh loaded another patch than the one
// retained, so T0 judged a patch that was not the package's; one in
// another bundle's section shows that the plugin's own patch never
// applied. Each dump's sections name only bundles of the repetition's
// profile (checkDumpSections).
func (vf *verification) checkDumpAgainstPatch() {
	defer vf.dropDumps()
	// The derivation read the same trusted patch (assemble.Derived.Entries
	// and Patch); T0 and T3 already fail on an unreadable one, and
	// without one only the dump's sections are checked.
	_, patchOK := vf.trusted[vf.m.Static.Evidence[manifest.RolePatch]]
	patchOK = patchOK && vf.derived.EntriesErr == nil
	entries := vf.derived.Entries
	// The same reading's rows (rules.ReadPatch); they fail only on
	// insert entries that expand beyond what it copies.
	rowsErr := vf.derived.Patch.RowsErr
	rows := rules.IndexRows(vf.derived.Patch.Rows)
	maxDump := vf.lim.MaxDumpSize
	if maxDump <= 0 {
		maxDump = rules.DefaultLimits().MaxDumpSize
	}
	ids := map[string]bool{}
	for _, e := range entries {
		ids[e.ID] = true
	}
	// Repetitions whose dumps are the same bytes share one reading, the
	// derivation's where it read them.
	var read []byte
	var dump *rules.Dump
	var dumpErr error
	for i, rp := range vf.m.Repetitions {
		for _, st := range rp.Stages {
			if st.Stage != string(rules.T3) || st.ExitCode == nil || *st.ExitCode != 0 || st.TimedOut {
				continue
			}
			out, ok := vf.trusted[st.Evidence[manifest.RoleStdout]]
			if !ok || int64(len(out)) > maxDump {
				continue
			}
			if dump == nil && dumpErr == nil || !bytes.Equal(out, read) {
				read = out
				dump, dumpErr = vf.derivedDump(i, out), nil
				if dump == nil {
					dump, dumpErr = rules.ReadDump(out)
				}
			}
			if dumpErr != nil {
				continue
			}
			vf.checkDumpSections(i, st, dump)
			if !patchOK {
				continue
			}
			for _, d := range dump.Entries {
				if d.Name != vf.m.Subject.Name {
					continue
				}
				if !ids[d.ID] {
					vf.rep.addf(ClassSubjectMismatch, "static.evidence.patch", "DSHIO/T 20 8.4",
						"the T3 dump of repetition %d (line %d) holds entry %q named %q, which the recorded patch does not insert: dsh loaded another patch than the one T0 judged",
						i+1, d.Line, d.ID, d.Name)
					continue
				}
				if rowsErr != nil {
					vf.rep.addf(ClassSubjectMismatch, repField(i+1, st.Stage, "evidence", manifest.RoleStdout), "DSHIO/T 20 8.4",
						"the T3 dump of repetition %d (line %d) holds entry %q, which cannot be compared with the recorded patch: %v", i+1, d.Line, d.ID, rowsErr)
					continue
				}
				for _, why := range dump.EntryPlacement(d, vf.m.Subject.Name, rows) {
					vf.rep.addf(ClassSubjectMismatch, repField(i+1, st.Stage, "evidence", manifest.RoleStdout), "DSHIO/T 20 8.4",
						"the T3 dump of repetition %d against the recorded patch: %s", i+1, why)
				}
			}
		}
	}
}

// derivedDump returns the derivation's reading of repetition i's T3 dump
// when it read out.
func (vf *verification) derivedDump(i int, out []byte) *rules.Dump {
	if i >= len(vf.derived.Repetitions) {
		return nil
	}
	for _, st := range vf.derived.Repetitions[i].Stages {
		if st.Stage == rules.T3 && st.Dump != nil && st.Dump.Reads(out) {
			return st.Dump
		}
	}
	return nil
}

// dropDumps drops the derivation's readings of the T3 dumps and the
// patch's rows once they are checked, so that a large dump's tree or the
// rows read for the check do not stay beside what follows.
func (vf *verification) dropDumps() {
	vf.derived.Patch.Rows = nil
	for i := range vf.derived.Repetitions {
		for j := range vf.derived.Repetitions[i].Stages {
			vf.derived.Repetitions[i].Stages[j].Dump = nil
		}
	}
}

// checkDumpSections holds the `# ==` sections of repetition i's passed
// T3 dump to the profile T1 recorded (SPEC.md "The run model", relation
// 8): dsh composes the dump from the bundles of the profile's
// dsh.profile.bundles alone and labels each bundle layer with its package
// name, so a section naming a bundle that the repetition's trusted T1
// profile package.json does not list shows another profile than the one
// recorded, or a plugin installed beside the subject. A file layer (a
// label starting with "/") changed rows, which in a fresh profile and
// without --patch in T3's argv no file does: dsh's new profile's patch
// file is its template "[]" and a fresh home holds none. One finding of
// each kind per dump, on its first such section.
func (vf *verification) checkDumpSections(i int, t3 manifest.Stage, dump *rules.Dump) {
	listed := vf.profileBundles(i)
	field := repField(i+1, t3.Stage, "evidence", manifest.RoleStdout)
	bundleDone := listed == nil
	fileDone := slices.ContainsFunc(t3.Argv, func(a string) bool { return a == "--patch" || strings.HasPrefix(a, "--patch=") })
	dump.EachSection(func(line int, label string) bool {
		for _, l := range rules.DumpSectionLayers(label) {
			switch {
			case strings.HasPrefix(l, "/"):
				if !fileDone {
					vf.rep.addf(ClassConditionMismatch, field, "DSHIO/T 21 5.1.7",
						"the T3 dump of repetition %d has a section patched by the file %q (line %d, %q), but the profile condition records a fresh profile and T3 ran without --patch: a new profile's patch file is dsh's template [] and a fresh home holds none, so no file changes a row",
						i+1, l, line, rules.DumpSectionPrefix+label)
					fileDone = true
				}
			case !bundleDone && !listed[l]:
				vf.rep.addf(ClassConditionMismatch, field, "DSHIO/T 21 5.1.7",
					"the T3 dump of repetition %d has a section of bundle %q (line %d, %q), but the profile package.json T1 recorded lists the bundles %q: dsh composes the dump from the profile's bundles alone",
					i+1, l, line, rules.DumpSectionPrefix+label, slices.Sorted(maps.Keys(listed)))
				bundleDone = true
			}
		}
		return !bundleDone || !fileDone
	})
}

// profileBundles returns the bundles of repetition i's trusted T1 profile
// package.json's dsh.profile.bundles array, or nil when there is no such
// array to read.
func (vf *verification) profileBundles(i int) map[string]bool {
	for _, st := range vf.m.Repetitions[i].Stages {
		if st.Stage != string(rules.T1) {
			continue
		}
		pm, ok := vf.profileManifest(st.Evidence[manifest.RoleProfilePackageJSON])
		if !ok || !pm.Bundles {
			return nil // the T1 rule reads it and says why not; dsh reads no bundles of another shape
		}
		listed := make(map[string]bool, len(pm.BundleNames))
		for _, b := range pm.BundleNames {
			listed[b] = true
		}
		return listed
	}
	return nil
}
