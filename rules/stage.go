package rules

import "fmt"

// SyntheticPrefix starts a first_error that dshaudit wrote because no
// output line locates the cause (the command succeeded but an observation
// disagreed). TimeoutPrefix starts the first_error of a timed-out stage.
// SPEC.md "first_error".
const (
	SyntheticPrefix = "dshaudit: "
	TimeoutPrefix   = "timeout: "
)

// mergedOutput is the output line searches read: Merged when recorded,
// otherwise Stdout followed by Stderr.
func mergedOutput(o Observation) []byte {
	if len(o.Merged) > 0 {
		return o.Merged
	}
	b := make([]byte, 0, len(o.Stdout)+len(o.Stderr)+1)
	b = append(b, o.Stdout...)
	if len(o.Stdout) > 0 && o.Stdout[len(o.Stdout)-1] != '\n' && len(o.Stderr) > 0 {
		b = append(b, '\n')
	}
	return append(b, o.Stderr...)
}

func passed(s Stage, reasons []string) StageResult {
	return StageResult{Stage: s, Status: StagePassed, Reasons: reasons}
}

func failed(s Stage, v Verdict, firstError string, reasons []string) StageResult {
	return StageResult{Stage: s, Status: StageFailed, Verdict: v, FirstError: firstError, Reasons: reasons}
}

func notExecuted(s Stage, reason string) StageResult {
	return StageResult{Stage: s, Status: StageNotExecuted, Reasons: []string{reason}}
}

// timeoutResult is the result of a stage whose command hit its time limit.
func timeoutResult(s Stage, v Verdict, o Observation) StageResult {
	reasons := []string{fmt.Sprintf("%s did not finish within its time limit", s)}
	if line := FirstError(mergedOutput(o)); line != "" {
		reasons = append(reasons, fmt.Sprintf("first output line before the limit: %q", line))
	}
	return failed(s, v, TimeoutPrefix+reasons[0], reasons)
}

// commandFailedError is the first_error of a command that exited non-zero.
func commandFailedError(o Observation) string {
	if line := FirstError(mergedOutput(o)); line != "" {
		return line
	}
	return fmt.Sprintf("%sexit code %d with no output", SyntheticPrefix, o.ExitCode)
}

// disagreementError is the first_error of a stage whose command exited 0
// but whose observations disagree: an error-looking output line if there is
// one, else the first reason, marked as written by dshaudit.
func disagreementError(o Observation, reasons []string) string {
	if line, errLike := scanFirstError(mergedOutput(o)); errLike {
		return line
	}
	return boundLine(SyntheticPrefix + reasons[0])
}
