package rules

// Stability combines the verdicts of the repetitions of one sequence
// (DSHIO/T 20 11.3, DSHIO/T 21 5.1.9). When every verdict is the same,
// that verdict is the overall one; when any two differ the overall verdict
// is Unstable and unstable is true. No verdicts gives "" and false: there
// is nothing to combine. SPEC.md "Propagation and stability".
func Stability(verdicts []Verdict) (overall Verdict, unstable bool) {
	if len(verdicts) == 0 {
		return "", false
	}
	for _, v := range verdicts[1:] {
		if v != verdicts[0] {
			return Unstable, true
		}
	}
	return verdicts[0], false
}
