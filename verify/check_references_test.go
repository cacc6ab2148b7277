package verify

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/manifest"
)

// TestFileReferredTwiceIsReadByNoRule gives repetition 1's T3 dump K
// entries of the plugin that its patch does not insert, each a
// subject-mismatch where a rule reads the dump, and has repetition 2's T3
// name repetition 1's files instead of its own. A file that two roles
// refer to is nobody's evidence: no rule reads it, so no finding comes
// from its content, and no verdict is derived from it. Before, every
// stage naming the file read it: one dump within the limits, named by
// every repetition a manifest can hold, multiplied the dump check and
// its findings by the repetitions (DESIGN.md "Work an author can
// multiply"). The control, each repetition with its own copy of the
// dump, shows the entries are found where the evidence is where the
// layout puts it.
func TestFileReferredTwiceIsReadByNoRule(t *testing.T) {
	a, signer, pol := passVectorToResign(t)
	m, err := manifest.Decode(a.RawManifest)
	if err != nil {
		t.Fatal(err)
	}
	const k = 5
	var forged strings.Builder
	forged.Write(a.Files["repetitions/1/T3/stdout"])
	for i := range k {
		fmt.Fprintf(&forged, "- id: forged-%d\n  name: %s\n", i, m.Subject.Name)
	}
	dump := []byte(forged.String())

	verifyWith := func(t *testing.T, shared bool) *Report {
		t.Helper()
		files := maps.Clone(a.Files)
		mm, _ := manifest.Decode(a.RawManifest)
		for n := 1; n <= 2; n++ {
			dir := fmt.Sprintf("repetitions/%d/T3/", n)
			files[dir+"stdout"] = dump
			files[dir+"merged"] = append(append([]byte{}, dump...), files[dir+"stderr"]...)
		}
		if shared {
			for role := range mm.Repetitions[1].Stages[2].Evidence {
				delete(files, mm.Repetitions[1].Stages[2].Evidence[role])
				mm.Repetitions[1].Stages[2].Evidence[role] = mm.Repetitions[0].Stages[2].Evidence[role]
			}
		}
		mraw, err := manifest.Encode(mm)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Verify(context.Background(), "shared", bytes.NewReader(resign(t, mraw, files, signer)), Options{Policy: pol})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	forgedFindings := func(rep *Report) int {
		n := 0
		for _, f := range rep.Findings {
			if f.Class == ClassSubjectMismatch && strings.Contains(f.Message, "forged-") {
				n++
			}
		}
		return n
	}

	if got := forgedFindings(verifyWith(t, false)); got != 2*k {
		t.Fatalf("control, each repetition its own dump: %d findings name a forged entry, want %d", got, 2*k)
	}
	rep := verifyWith(t, true)
	if got := forgedFindings(rep); got != 0 {
		t.Errorf("a dump two T3 stages name was read: %d findings name a forged entry", got)
	}
	if rep.DerivedVerdict != "" {
		t.Errorf("derived verdict %q from evidence two stages name, want none", rep.DerivedVerdict)
	}
	referred := 0
	for _, f := range rep.Findings {
		if f.Class == ClassSequenceShape && strings.Contains(f.Message, "is referred to 2 times") {
			referred++
		}
	}
	if referred != 3 {
		t.Errorf("%d findings name a file referred to twice, want 3 (stdout, stderr, merged): %v", referred, rep.Findings)
	}
}

// TestCheckReferences holds checkReferences to SPEC.md "Evidence file
// layout": a file is left trusted only where one role refers to it, at
// the path the layout gives that role, of static, environment or an
// executed stage; every other referred file is moved out of trusted and
// counted in references.
func TestCheckReferences(t *testing.T) {
	zero := 0
	stage := func(name string, executed bool, ev map[string]string) manifest.Stage {
		st := manifest.Stage{Stage: name, Evidence: ev}
		if executed {
			st.ExitCode = &zero
		}
		return st
	}
	cases := []struct {
		name      string
		m         manifest.Manifest
		untrusted []string
	}{
		{"every file at its place", manifest.Manifest{
			Static:      manifest.Static{Evidence: map[string]string{manifest.RolePatch: "static/patch.yml"}},
			Environment: manifest.Environment{Evidence: map[string]string{manifest.RoleDSHVersion: "environment/dsh_version.txt"}},
			Repetitions: []manifest.Repetition{{Index: 1, Stages: []manifest.Stage{
				stage("T1", true, map[string]string{manifest.RoleStdout: "repetitions/1/T1/stdout"})}}},
		}, nil},
		{"static role off its place", manifest.Manifest{
			Static: manifest.Static{Evidence: map[string]string{manifest.RolePatch: "static/patch.yaml"}},
		}, []string{"static/patch.yaml"}},
		{"environment role off its place", manifest.Manifest{
			Environment: manifest.Environment{Evidence: map[string]string{manifest.RoleDSHVersion: "environment/node_version.txt"}},
		}, []string{"environment/node_version.txt"}},
		{"a role the layout lacks", manifest.Manifest{
			Static: manifest.Static{Evidence: map[string]string{"notes": "static/patch.yml"}},
		}, []string{"static/patch.yml"}},
		{"the numbering is the position, not the index", manifest.Manifest{
			Repetitions: []manifest.Repetition{{Index: 2, Stages: []manifest.Stage{
				stage("T1", true, map[string]string{manifest.RoleStdout: "repetitions/2/T1/stdout"})}}},
		}, []string{"repetitions/2/T1/stdout"}},
		{"a stage not executed refers to a file", manifest.Manifest{
			Repetitions: []manifest.Repetition{{Index: 1, Stages: []manifest.Stage{
				stage("T4", false, map[string]string{manifest.RoleStdout: "repetitions/1/T4/stdout"})}}},
		}, []string{"repetitions/1/T4/stdout"}},
		{"two stages, one file at the first's place", manifest.Manifest{
			Repetitions: []manifest.Repetition{
				{Index: 1, Stages: []manifest.Stage{stage("T3", true, map[string]string{manifest.RoleStdout: "repetitions/1/T3/stdout"})}},
				{Index: 2, Stages: []manifest.Stage{stage("T3", true, map[string]string{manifest.RoleStdout: "repetitions/1/T3/stdout"})}},
			},
		}, []string{"repetitions/1/T3/stdout"}},
		{"one stage recorded twice", manifest.Manifest{
			Repetitions: []manifest.Repetition{{Index: 1, Stages: []manifest.Stage{
				stage("T2", true, map[string]string{manifest.RoleStdout: "repetitions/1/T2/stdout"}),
				stage("T2", true, map[string]string{manifest.RoleStdout: "repetitions/1/T2/stdout"})}}},
		}, []string{"repetitions/1/T2/stdout"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := c.m
			trusted := map[string][]byte{}
			refer := func(ev map[string]string) {
				for _, p := range ev {
					trusted[p] = []byte("x")
				}
			}
			refer(m.Static.Evidence)
			refer(m.Environment.Evidence)
			for _, rp := range m.Repetitions {
				for _, st := range rp.Stages {
					refer(st.Evidence)
				}
			}
			trusted["unlisted/by/any/role"] = []byte("x")
			vf := &verification{rep: &Report{}, m: &m, trusted: trusted, untrusted: map[string]bool{}}
			vf.checkReferences()
			var got []string
			for p := range vf.untrusted {
				got = append(got, p)
				if _, ok := vf.trusted[p]; ok || !vf.misreferred[p] {
					t.Errorf("%s: untrusted but still trusted or not marked misreferred", p)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, c.untrusted) {
				t.Errorf("untrusted %q, want %q", got, c.untrusted)
			}
			if _, ok := vf.trusted["unlisted/by/any/role"]; !ok {
				t.Error("a file no role refers to left trusted: it is the file list's finding, not the references'")
			}
			if len(vf.rep.Findings) != 0 {
				t.Errorf("checkReferences reports nothing itself (checkSequence does): %v", vf.rep.Findings)
			}
		})
	}
}
