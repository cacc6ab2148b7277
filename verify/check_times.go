package verify

import (
	"strings"
	"time"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// DurationToleranceMS is how far a stage's duration_ms may be from its
// ended_at − started_at: the writer truncates to whole milliseconds
// (SPEC.md "Time and process facts").
const DurationToleranceMS = 1

// TimeoutReactionMS is how far past its time limit a stage that did not
// time out may have run: the writer measures around the engine call,
// whose own clock stopped the command before the limit (SPEC.md "Time
// and process facts").
const TimeoutReactionMS = 1000

// KillExitCode is the exit status the T4 observer's stop produces (the
// engine kills the container with SIGKILL: 128+9). DESIGN.md "Liveness
// observation".
const KillExitCode = 137

// checkTimes checks the time and process facts (SPEC.md "What the
// verifier cross-checks", class 5).
func (vf *verification) checkTimes() {
	bad := func(field, clause, format string, args ...any) {
		vf.rep.addf(ClassTimeInconsistent, field, clause, format, args...)
	}
	parse := func(field, v string) (time.Time, bool) {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			bad(field, `SPEC.md "Conventions used in this document"`, "%q is not an RFC 3339 time", v)
			return time.Time{}, false
		}
		if !strings.HasSuffix(v, "Z") {
			// One spelling of each instant: UTC, written with Z, never
			// +00:00 or another offset.
			bad(field, `SPEC.md "Conventions used in this document"`, "%q is not a UTC time written with Z", v)
			return time.Time{}, false
		}
		return t, true
	}
	runStart, okS := parse("started_at", vf.m.StartedAt)
	runEnd, okE := parse("finished_at", vf.m.FinishedAt)
	if okS && okE && runEnd.Before(runStart) {
		bad("finished_at", `SPEC.md "Manifest fields"`, "%s is before started_at %s", vf.m.FinishedAt, vf.m.StartedAt)
	}
	if okE && vf.m.TestDate != runEnd.UTC().Format(time.DateOnly) {
		bad("test_date", "DSHIO/T 10 8.1", "%q, but finished_at %s is on %s (UTC)", vf.m.TestDate, vf.m.FinishedAt, runEnd.UTC().Format(time.DateOnly))
	}
	prevEnd, prevField := runStart, "started_at"
	if !okS {
		prevEnd = time.Time{}
	}
	for i, rp := range vf.m.Repetitions {
		for _, st := range inStageOrder(rp.Stages) {
			if st.ExitCode == nil {
				continue
			}
			field := repField(i+1, st.Stage)
			s, ok1 := parse(field+".started_at", st.StartedAt)
			e, ok2 := parse(field+".ended_at", st.EndedAt)
			if !ok1 || !ok2 {
				continue
			}
			if e.Before(s) {
				bad(field+".ended_at", `SPEC.md "Manifest fields"`, "%s is before started_at %s", st.EndedAt, st.StartedAt)
			}
			if !prevEnd.IsZero() && s.Before(prevEnd) {
				bad(field+".started_at", "DSHIO/T 20 4", "%s is before %s (%s): stages run one after another", st.StartedAt, prevField, prevEnd.Format(time.RFC3339Nano))
			}
			if okE && e.After(runEnd) {
				bad(field+".ended_at", `SPEC.md "Manifest fields"`, "%s is after finished_at %s", st.EndedAt, vf.m.FinishedAt)
			}
			prevEnd, prevField = e, field+".ended_at"
			if diff := st.DurationMS - e.Sub(s).Milliseconds(); diff > DurationToleranceMS || diff < -DurationToleranceMS {
				bad(field+".duration_ms", `SPEC.md "Time and process facts"`, "%d ms, but ended_at − started_at is %d ms", st.DurationMS, e.Sub(s).Milliseconds())
			}
			if limit, ok := vf.m.Settings.TimeoutsMS[st.Stage]; ok {
				switch {
				case st.TimedOut && st.DurationMS < limit:
					bad(field+".timed_out", "DSHIO/T 21 5.1.6", "true, but the stage ran %d ms of its %d ms limit", st.DurationMS, limit)
				case !st.TimedOut && st.DurationMS >= limit+TimeoutReactionMS:
					bad(field+".timed_out", "DSHIO/T 21 5.1.6", "false, but the stage ran %d ms, past its %d ms limit", st.DurationMS, limit)
				}
			}
			if st.Stage == string(rules.T4) && st.Liveness != nil {
				checkLiveness(bad, field, vf.m, st)
			}
		}
	}
}

// checkLiveness checks the T4 observation against the stage and the
// recorded window (DESIGN.md "Liveness observation").
func checkLiveness(bad func(field, clause, format string, args ...any), field string, m *manifest.Manifest, st manifest.Stage) {
	l := st.Liveness
	if l.WindowMS != m.Settings.ObservationWindowMS {
		bad(field+".liveness.window_ms", "DSHIO/T 21 5.1.6", "%d ms, settings.observation_window_ms is %d ms", l.WindowMS, m.Settings.ObservationWindowMS)
	}
	if l.AliveMS < 0 || l.AliveMS > l.WindowMS {
		bad(field+".liveness.alive_ms", "DSHIO/T 20 9.3", "%d ms, outside 0..window (%d ms)", l.AliveMS, l.WindowMS)
	}
	if l.AliveMS > st.DurationMS+DurationToleranceMS {
		bad(field+".liveness.alive_ms", "DSHIO/T 20 9.3", "%d ms alive in a stage that lasted %d ms", l.AliveMS, st.DurationMS)
	}
	if l.AliveAtEnd {
		if l.AliveMS != l.WindowMS {
			bad(field+".liveness.alive_ms", "DSHIO/T 20 9.3", "%d ms, but alive_at_end says the process lived the whole %d ms window", l.AliveMS, l.WindowMS)
		}
		if *st.ExitCode != KillExitCode {
			bad(field+".liveness.alive_at_end", `DESIGN.md "Liveness observation"`, "true, but the exit status is %d; the observer's stop at the window's end gives %d", *st.ExitCode, KillExitCode)
		}
		if st.TimedOut {
			bad(field+".liveness.alive_at_end", `DESIGN.md "Liveness observation"`, "true, but the stage timed out: the window closed before the time limit")
		}
	}
}

// inStageOrder is the executed T1–T4 records in the standard's order, so
// a misordered record is reported once, as a sequence finding.
func inStageOrder(stages []manifest.Stage) []manifest.Stage {
	var out []manifest.Stage
	for _, s := range rules.DynamicStages {
		for _, st := range stages {
			if st.Stage == string(s) {
				out = append(out, st)
				break
			}
		}
	}
	return out
}

// ClockSkewMS is how far after the verifier's clock a run may say it
// finished: the writer's and the verifier's clocks are different
// machines' (SPEC.md "Time and process facts").
const ClockSkewMS = 5 * 60 * 1000

// checkDates holds the run's dates to the editions it cites and to the
// verifier's clock: a run cannot have started before the editions were
// published, nor finished after now (SPEC.md "Time and process facts").
func (vf *verification) checkDates() {
	start, errS := time.Parse(time.RFC3339Nano, vf.m.StartedAt)
	end, errE := time.Parse(time.RFC3339Nano, vf.m.FinishedAt)
	if ed, ok := assemble.EditionFor(vf.m.Standards); ok && errS == nil && start.Before(ed.Published) {
		vf.rep.addf(ClassTimeInconsistent, "started_at", "DSHIO/T 20 12.2", "%s is before %s, when the editions it cites (%s) were published",
			vf.m.StartedAt, ed.Published.Format(time.DateOnly), strings.Join(vf.m.Standards, ", "))
	}
	if errE == nil && end.After(vf.now.Add(ClockSkewMS*time.Millisecond)) {
		vf.rep.addf(ClassTimeInconsistent, "finished_at", `SPEC.md "Time and process facts"`, "%s is after the verifier's clock (the result's now) by more than %d minutes",
			vf.m.FinishedAt, ClockSkewMS/60000)
	}
}
