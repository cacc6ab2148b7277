package runner

import (
	"time"

	"github.com/dshaudit/dshaudit/rules"
)

// Phase is the step an Event reports.
type Phase string

// Phases, in the order a run goes through them.
const (
	PhaseStatic   Phase = "T0 static check"
	PhaseImage    Phase = "image"
	PhaseVersions Phase = "versions"
	PhaseStage    Phase = "stage"
	PhaseWarning  Phase = "warning"
)

// Event is one progress report: a phase or stage starting (Done false)
// or ending (Done true, with Elapsed and, for a stage, its outcome).
type Event struct {
	Phase Phase
	// Repetition (1-based) and Stage are set for PhaseStage.
	Repetition int
	Stage      rules.Stage
	Done       bool
	Elapsed    time.Duration
	// Status and Verdict are a finished stage's derived result.
	Status  rules.StageStatus
	Verdict rules.Verdict
	// Message is free text (a warning, what is being done).
	Message string
}

func (r *Runner) report(e Event) {
	if r.Progress != nil {
		r.Progress(e)
	}
}
