package compare

import "github.com/dshaudit/dshaudit/bundle"

// Variable conditions a replay adds to its new bundle (SPEC.md "Replay").
// They say what the bundle is, not under which conditions it ran, so the
// comparison does not list them as changed conditions.
const (
	// ConditionReplayOf is "sha256:<hex>" of the original bundle file.
	ConditionReplayOf = "replay_of"
	// ConditionReplayOfUnverified is the original's verification status
	// when it was replayed with UnverifiedUnsafe.
	ConditionReplayOfUnverified = "replay_of_unverified_bundle"
)

// Result is a finished replay.
type Result struct {
	Outcome        Outcome `json:"outcome"`
	Original       string  `json:"original"`
	OriginalSHA256 string  `json:"original_sha256"`
	// Verified says whether the original verified.
	Verified   bool            `json:"original_verified"`
	Unsafe     bool            `json:"unverified_unsafe,omitempty"`
	Written    *bundle.Written `json:"written,omitempty"`
	Comparison *Comparison     `json:"comparison,omitempty"`
	// Why says why the replay could not run, when it could not.
	Why string `json:"why,omitempty"`
}
