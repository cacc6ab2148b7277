package verify

import (
	"bytes"

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
// applied.
func (vf *verification) checkDumpAgainstPatch() {
	defer vf.dropDumps()
	if _, ok := vf.trusted[vf.m.Static.Evidence[manifest.RolePatch]]; !ok {
		return
	}
	// The derivation read the same trusted patch (assemble.Derived.Entries).
	entries := vf.derived.Entries
	if vf.derived.EntriesErr != nil {
		return // T0 and T3 already fail on an unreadable patch
	}
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
