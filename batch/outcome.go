package batch

// Outcome states of a task at the end of a batch.
const (
	// StateDone: the task wrote its bundle and it verifies.
	StateDone = "done"
	// StateSkipped: the bundle was there from an earlier batch and
	// verifies; nothing ran.
	StateSkipped = "done earlier"
	// StateUnresolvable: the spec names no exact version (DSHIO/T 20 5.5):
	// no bundle.
	StateUnresolvable = "unresolvable"
	// StateDuplicate: another plan line names the same package@version.
	StateDuplicate = "duplicate"
	// StateFailed: the task did not give a verified bundle, after every
	// retry.
	StateFailed = "failed"
	// StateCancelled: the batch was interrupted before the task ended.
	StateCancelled = "cancelled"
)

// Outcome is what became of one task.
type Outcome struct {
	Task
	State string `json:"state"`
	// Verdict is the re-derived verdict of the verified bundle.
	Verdict string `json:"verdict,omitempty"`
	// Exit is the last attempt's exit code (-1: none was written).
	Exit int `json:"exit"`
	// Attempts counts the submissions of this task.
	Attempts int    `json:"attempts"`
	Why      string `json:"why,omitempty"`
}

// Finished says whether the outcome is final for this plan: a verified
// bundle, or a spec that can have none.
func (o Outcome) Finished() bool {
	switch o.State {
	case StateDone, StateSkipped, StateUnresolvable, StateDuplicate:
		return true
	}
	return false
}

// retriable says whether a task attempt that ended with exit code exit
// (-1: no exit code written: cancelled or lost) is worth another
// attempt. A bundle that does not verify is, too (see classify).
// Exit 1 without a bundle is T0 unresolvable and 2 a usage error: both
// come out the same on any node.
func retriable(exit int) bool {
	return exit != ExitFindings && exit != ExitUsage && exit != ExitOK
}
