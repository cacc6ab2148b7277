package rules

import "time"

// Stage is a DSHIO/T 20 stage code.
type Stage string

// The stage codes of DSHIO/T 20 chapter 4. T5 is planned, not in force.
const (
	T0 Stage = "T0"
	T1 Stage = "T1"
	T2 Stage = "T2"
	T3 Stage = "T3"
	T4 Stage = "T4"
)

// DynamicStages are the sandbox stages in the order DSHIO/T 20 4 requires.
var DynamicStages = []Stage{T1, T2, T3, T4}

// Verdict is a DSHIO/T 20 11.1 verdict code, or Unstable (T 20 11.3).
type Verdict string

// Verdict codes.
const (
	Pass                     Verdict = "pass"
	InstallFailed            Verdict = "install_failed"
	ConfigFailed             Verdict = "config_failed"
	InstallsButNotRegistered Verdict = "installs_but_not_registered"
	BootFailed               Verdict = "boot_failed"
	Unstable                 Verdict = "unstable"
)

// Verdicts are every Verdict code, pass first.
var Verdicts = []Verdict{Pass, InstallFailed, ConfigFailed, InstallsButNotRegistered, BootFailed, Unstable}

// StageStatus is the outcome of one stage of one repetition.
type StageStatus string

// Stage statuses. NotExecuted is neither passed nor failed (T 20 11.2).
const (
	StagePassed      StageStatus = "passed"
	StageFailed      StageStatus = "failed"
	StageNotExecuted StageStatus = "not_executed"
)

// Subject is the exact plugin object under test (DSHIO/T 10 7.2).
type Subject struct {
	Name    string
	Version string
}

// Entry is one insert entry of a plugin's patch (DSHIO/T 10 5.1.5).
type Entry struct {
	ID   string
	Name string
}

// Liveness is the T4 liveness observation (DSHIO/T 20 9.3).
type Liveness struct {
	// Window is the observation window the observer used.
	Window time.Duration
	// AliveFor is how long the process was seen alive: the whole window
	// when it was still running at the end, otherwise its time to exit.
	AliveFor time.Duration
	// AliveAtEnd is true when the process was still running when the
	// window closed and the observer stopped it.
	AliveAtEnd bool
}

// Observation is what one executed stage produced: the raw output and the
// facts the runner recorded about the process. Stdout, Stderr and Merged
// are the raw evidence bytes; Merged is both streams in arrival order.
type Observation struct {
	Stage    Stage
	ExitCode int
	TimedOut bool
	Stdout   []byte
	Stderr   []byte
	Merged   []byte
	// ProfilePackageJSON is the profile's package.json after T1.
	ProfilePackageJSON []byte
	// Liveness is set for T4 only.
	Liveness *Liveness
}

// StageResult is the derived outcome of one stage.
type StageResult struct {
	Stage  Stage
	Status StageStatus
	// Verdict is the failure verdict when Status is StageFailed.
	Verdict Verdict
	// FirstError is the DSHIO/T 20 6.6 first error, on failure only.
	FirstError string
	// Reasons lists, in words, each observation that decided the result.
	Reasons []string
	// Dump is T3's dump as the derivation read it (ReadDump), for the
	// checks of the same dump (Dump.EntryPlacement), which need not read
	// it again; nil for every other stage, and for a dump not read (the
	// command failed or timed out, the dump is above the size limit or
	// not a config tree). It is no part of the result.
	Dump *Dump `json:"-"`
}

// SequenceResult is the derived outcome of one repetition of T1–T4.
type SequenceResult struct {
	Stages  []StageResult
	Verdict Verdict
}
