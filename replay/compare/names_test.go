package compare

import "testing"

// TestReplayConditionNames: the variable conditions a replay adds are
// named as the verifier's closed set of variable conditions names them
// (verify/check_variable.go, SPEC.md "Recorded conditions"); renaming
// one makes every replayed bundle input-invalid.
func TestReplayConditionNames(t *testing.T) {
	if ConditionReplayOf != "replay_of" || ConditionReplayOfUnverified != "replay_of_unverified_bundle" {
		t.Errorf("replay conditions %q, %q: verify knows replay_of and replay_of_unverified_bundle", ConditionReplayOf, ConditionReplayOfUnverified)
	}
}
