package main

import (
	"context"
	"errors"
)

// Exit codes, the one place they are mapped (SPEC.md "Exit codes"). Every command's
// help repeats the subset it uses.
const (
	// ExitOK: the command did what it says and found nothing wrong.
	ExitOK = 0
	// ExitFindings: the command ran and found something: verify found a
	// problem, run produced a bundle whose verdict is not pass, replay
	// result DIFFERENT, a claim not backed.
	ExitFindings = 1
	// ExitUsage: bad flags or arguments, or unreadable input.
	ExitUsage = 2
	// ExitCouldNotRun: the environment stopped the command (engine
	// missing, image unavailable, registry unreachable, disk full);
	// replay's COULD-NOT-RUN. Never a plugin result.
	ExitCouldNotRun = 3
	// ExitInterrupted: Ctrl-C or SIGTERM; nothing half-written is left.
	ExitInterrupted = 130
)

// Error classes the commands return; exitCode maps them.
var (
	// ErrUsage marks bad flags, arguments or unreadable input.
	ErrUsage = errors.New("usage error")
	// ErrFindings marks a completed command that found problems. Its
	// report was already printed, so it prints nothing more.
	ErrFindings = errors.New("findings reported")
	// ErrCouldNotRun marks an environment failure.
	ErrCouldNotRun = errors.New("could not run")
)

// silentError wraps an error whose message was already reported.
type silentError struct{ error }

func (s silentError) Unwrap() error { return s.error }

func isSilent(err error) bool {
	var s silentError
	return errors.As(err, &s)
}

// exitCode maps an error returned by a command to the process exit code.
func exitCode(ctx context.Context, err error) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return ExitInterrupted
	case errors.Is(err, ErrFindings):
		return ExitFindings
	case errors.Is(err, ErrCouldNotRun):
		return ExitCouldNotRun
	default:
		// cobra's own flag and argument errors, and ErrUsage.
		return ExitUsage
	}
}
