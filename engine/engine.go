package engine

import (
	"context"
	"time"
)

// Engine runs commands in fresh containers of images pinned by digest.
// DESIGN.md "Sandbox conditions".
type Engine interface {
	// Name is "podman" or "docker".
	Name() string
	// Version is the engine client's version string.
	Version(ctx context.Context) (string, error)
	// EnsureImage makes the image whose manifest digest is exactly the
	// digest in ref runnable by the engine without pulling at run time, and
	// returns the engine's ID for it (the ID Run should be given). It
	// refuses a reference without "@sha256:" (ErrNotPinned) and any image
	// whose digest differs (ErrDigestMismatch).
	EnsureImage(ctx context.Context, ref string, src Source) (Image, error)
	// Run runs spec.Argv to completion or to spec.Timeout.
	Run(ctx context.Context, spec RunSpec) (*Result, error)
	// Observe runs spec.Argv and watches it for window (liveness, DSHIO/T 20
	// 9.3). A command still running when the window closes is stopped; the
	// exit code then is the stop's, and Result.Liveness says it was alive.
	Observe(ctx context.Context, spec RunSpec, window time.Duration) (*Result, error)
}

// Image is an image the engine holds, resolved from a pinned reference.
type Image struct {
	// Ref is the pinned reference as given, NAME[:TAG]@sha256:HEX.
	Ref string
	// Digest is the manifest digest, "sha256:HEX".
	Digest string
	// ID is the engine's image ID (for podman and docker the config
	// digest's hex); RunSpec.Image takes it.
	ID string
}

// Network is the network state of a container (DSHIO/T 21 5.1.4).
type Network int

// Network states. NetworkNone is the zero value: off unless asked.
const (
	// NetworkNone gives the container no network but loopback.
	NetworkNone Network = iota
	// NetworkOn shares the host's network (T1 install only).
	NetworkOn
)

// String returns "none" or "on".
func (n Network) String() string {
	if n == NetworkOn {
		return "on"
	}
	return "none"
}

// Mount is a host directory or file bound into the container.
type Mount struct {
	Source   string // absolute host path
	Target   string // absolute container path
	ReadOnly bool
}

// Limits are the resource limits of DSHIO/T 21 5.1.3 and 5.1.5.
type Limits struct {
	// Memory is the engine's --memory value, e.g. "768m".
	Memory string
	// CPUs is the engine's --cpus value, e.g. "1".
	CPUs string
	// Pids is the --pids-limit value.
	Pids int
	// Ulimits are --ulimit values, e.g. "nofile=1024:1024".
	Ulimits []string
}

// The default limits. DSHIO/T 21 5.1.3's table was lost; these are the
// project's decisions (DESIGN.md "Sandbox conditions"): memory and CPU equal
// the T 21 5.2 example fingerprint (mem=768m;cpu=1).
const (
	DefaultMemory = "768m"
	DefaultCPUs   = "1"
	DefaultPids   = 256
)

// DefaultUlimits are the default rlimits; values above the host's hard
// limits make runc fail, so they are set explicitly and low.
var DefaultUlimits = []string{"nofile=1024:1024", "nproc=1024:1024"}

// DefaultLimits returns the default Limits.
func DefaultLimits() Limits {
	return Limits{
		Memory:  DefaultMemory,
		CPUs:    DefaultCPUs,
		Pids:    DefaultPids,
		Ulimits: append([]string(nil), DefaultUlimits...),
	}
}

// DefaultOutputLimit bounds each captured stream. Beyond it the head is
// kept and the stream is marked truncated; the command keeps running and its
// further output is read and discarded. Real stage output is a few KiB (a
// T3 dump about 16 KiB); the runner lowers the limit further so that a
// whole run fits a bundle reader's default limits (runner.OutputLimit).
const DefaultOutputLimit = 8 << 20

// CACertPath is where RunSpec.CACert is mounted inside the container, and
// the value NODE_EXTRA_CA_CERTS is given.
const CACertPath = "/etc/dshaudit/host-ca.crt"

// RunSpec is one command in one fresh container.
type RunSpec struct {
	// Image is what the engine runs: an ID from EnsureImage (preferred)
	// or a pinned reference already present. It is never pulled.
	Image string
	// Argv is the command; Argv[0] is looked up in the image's PATH.
	Argv []string
	// Network is the container's network state.
	Network Network
	// Env is the whole environment the command gets beyond the image's own
	// Env: nothing is taken from the host.
	Env map[string]string
	// Mounts are bind mounts (e.g. the profile directory as DSH_HOME).
	Mounts []Mount
	// Limits are the resource limits; the zero value means DefaultLimits.
	Limits Limits
	// Timeout is the wall-clock limit; zero means none.
	Timeout time.Duration
	// CACert is a host CA bundle to trust. It is mounted read-only at
	// CACertPath and NODE_EXTRA_CA_CERTS is set only when Network is
	// NetworkOn; with the network off it is ignored.
	CACert string
	// Workdir is the working directory inside the container, if set.
	Workdir string
	// User is the user[:group] to run as, if set.
	User string
	// OutputLimit bounds each stream; zero means DefaultOutputLimit.
	OutputLimit int
}

// Result is what one run produced.
type Result struct {
	// Container is the unique name the container ran under.
	Container string
	// Args is the engine command line used (argv of the client).
	Args []string
	// Stdout and Stderr are the two streams; Merged is both in arrival
	// order, chunk by chunk as the engine delivered them (the order between
	// two chunks written within one read is not resolved further).
	Stdout, Stderr, Merged []byte
	// StdoutTruncated and StderrTruncated are set when a stream exceeded
	// the output limit and only its head was kept.
	StdoutTruncated, StderrTruncated bool
	// ExitCode is the command's exit code (128+signal when killed).
	ExitCode int
	// TimedOut is set when the wall-clock limit stopped the command.
	TimedOut bool
	// Started and Ended bracket the engine client's life; Running is when
	// the engine reported the container running (zero if never seen).
	Started, Running, Ended time.Time
	// Duration is Ended - Started.
	Duration time.Duration
	// Liveness is set by Observe only.
	Liveness *Liveness
}

// Liveness is a liveness observation (DSHIO/T 20 9.3, T 21 5.1.6).
type Liveness struct {
	// Window is the observation window asked for.
	Window time.Duration
	// AliveFor is how long the command was seen alive: the whole window
	// when it was running at the end, otherwise the time to its exit.
	AliveFor time.Duration
	// AliveAtEnd is set when the command was still running when the window
	// closed and the observer stopped it.
	AliveAtEnd bool
}

var _ Engine = (*CLI)(nil)
