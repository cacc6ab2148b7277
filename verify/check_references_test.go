package verify

import (
	"bytes"
	"context"
	"fmt"
	"maps"
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
