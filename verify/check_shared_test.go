package verify

import (
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// A manifest can name the same stream files in every repetition (the
// sequence check reports it, and verification goes on): the files are
// tied to one another and read for the run model once, not once per
// stage naming them. n repetitions naming one output of n lines cost
// n² before (issue 48); allocations per repetition stay flat from n to
// 4n.
func TestSharedStreamsAreReadOnce(t *testing.T) {
	perRep := func(n int) float64 {
		out := []byte(strings.Repeat("Done in 1s using pnpm v9.15.9\n", n))
		zero := 0
		m := &manifest.Manifest{}
		ev := map[string]string{manifest.RoleStdout: "o", manifest.RoleStderr: "e", manifest.RoleMerged: "m"}
		for i := range n {
			m.Repetitions = append(m.Repetitions, manifest.Repetition{Index: i + 1, Stages: []manifest.Stage{{Stage: string(rules.T1), ExitCode: &zero, Evidence: ev}}})
		}
		var models []stageModel
		allocs := testing.AllocsPerRun(1, func() {
			vf := &verification{rep: &Report{}, m: m, trusted: map[string][]byte{"o": out, "e": nil, "m": out}, untrusted: map[string]bool{}}
			vf.checkStreams()
			models = vf.stageModels()
			if len(vf.rep.Findings) > 0 || len(vf.untrusted) > 0 {
				t.Fatalf("%d repetitions: %v, untrusted %v", n, vf.rep.Findings, vf.untrusted)
			}
		})
		if len(models) != n || len(models[n-1].model.Done) != n {
			t.Fatalf("%d repetitions: %d models", n, len(models))
		}
		return allocs / float64(n)
	}
	a, b := perRep(100), perRep(400)
	t.Logf("100 repetitions: %.1f allocations each; 400: %.1f", a, b)
	if b > 1.5*a {
		t.Errorf("%.1f allocations per repetition for 400 repetitions naming one output, %.1f for 100: the output is read again per stage", b, a)
	}
}
