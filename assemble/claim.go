package assemble

import (
	"github.com/dshaudit/dshaudit/manifest"
)

// Claim records a derivation as the manifest's claims: each repetition's
// and stage's status, verdict and first_error, the T0 report, the claimed
// summary and the declaration. A repetition or stage the derivation does
// not cover keeps what it had. assemble.Build claims this way, and so does
// anything that writes a manifest as an honest writer would from what it
// recorded (the vector generator, the mutation harness).
func Claim(m *manifest.Manifest, d Derived) {
	for i := range m.Repetitions {
		if i >= len(d.Repetitions) {
			break
		}
		res := d.Repetitions[i]
		m.Repetitions[i].Verdict = string(res.Verdict)
		for j := range m.Repetitions[i].Stages {
			if j >= len(res.Stages) {
				break
			}
			sr := res.Stages[j]
			st := &m.Repetitions[i].Stages[j]
			st.Status = string(sr.Status)
			st.Verdict = string(sr.Verdict)
			st.FirstError = sr.FirstError
		}
	}
	m.Static.Report = WireStaticReport(d.Static)
	m.Claimed = manifest.Claimed{
		Verdict:                string(d.Overall),
		ConformingStatic:       d.Static.ConformingStatic,
		Unstable:               d.Unstable,
		Deviated:               d.Deviated,
		UsableForCertification: d.Usable,
	}
	m.Declaration = Declaration(m)
}
