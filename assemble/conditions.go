package assemble

import "github.com/dshaudit/dshaudit/rules"

// Deviation "what" names the verifier recognises (SPEC.md "Deviation names").
const (
	DeviationDSHVersion        = "dsh version"
	DeviationObservationWindow = "T4 observation window"
	DeviationRepeatCount       = "repeat count"
	DeviationNetwork           = "network state"
)

// DeviationCommand is the deviation name for a changed stage command.
func DeviationCommand(stage rules.Stage) string { return string(stage) + " command" }

// StandardArgv is the verbatim DSHIO/T 21 5.1.8 command of a stage;
// spec is the package spec for T1.
func StandardArgv(stage rules.Stage, spec string) []string {
	switch stage {
	case rules.T1:
		return []string{"dsh", "plugin", "--profile", "web", "add", spec}
	case rules.T2:
		return []string{"dsh", "plugin", "--profile", "web", "list"}
	case rules.T3:
		return []string{"dsh", "--profile", "web", "--dump-config"}
	case rules.T4:
		return []string{"dsh", "--profile", "web"}
	}
	return nil
}

// StandardNetwork is the network state DSHIO/T 20 4 requires per stage.
func StandardNetwork(stage rules.Stage) string {
	if stage == rules.T1 {
		return "on"
	}
	return "none"
}

// MinObservationWindowMS is DSHIO/T 21 5.1.6's 12 seconds.
const MinObservationWindowMS = 12000

// MinRepeat is the repetition count the verifier expects without a
// recorded deviation (DSHIO/T 10 7.4 and T 21 5.1.9 speak of "the two
// dynamic verdicts").
const MinRepeat = 2
