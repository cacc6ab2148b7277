package report

import (
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/verify"
)

// rederived are the manifest fields verify re-derives from the raw
// evidence and compares (SPEC.md "Order of checks", steps 3–4): what the
// page shows of them is the re-derivation, not the manifest's value.
var rederived = map[string]bool{
	"claimed":               true,
	"declaration":           true,
	"static.report":         true,
	"repetitions[].verdict": true,
	"stages[].status":       true,
	"stages[].verdict":      true,
	"stages[].first_error":  true,
}

// shownFields are the manifest fields the page shows, in page order.
var shownFields = []string{
	"subject", "subject.spec", "subject.source", "subject.integrity",
	"image.name", "image.digest", "fingerprint", "baseline", "standards",
	"test_date", "started_at", "finished_at", "tool",
	"settings.observation_window_ms", "settings.repeat",
	"conditions", "deviations",
	"stages[].exit_code", "stages[].duration_ms", "stages[].network",
	"stages[].timed_out", "stages[].argv", "stages[].liveness",
	"static.evidence", "environment.evidence",
	"claimed", "declaration", "static.report",
	"repetitions[].verdict", "stages[].status", "stages[].verdict", "stages[].first_error",
}

// unverifiedFields lists the manifest fields the page shows whose values
// verify did not re-derive: for a verified bundle, the recorded
// observations and metadata (signed by the writer, checked for
// consistency, not re-observable offline); for a bundle that did not
// verify, every field shown. When verify reports its own list of
// unverified fields, this is where it plugs in.
func unverifiedFields(rep *verify.Report, _ *bundle.Manifest) []string {
	var out []string
	for _, f := range shownFields {
		if !rep.OK() || !rederived[f] {
			out = append(out, f)
		}
	}
	return out
}
