package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dshaudit/dshaudit/internal/owner"
)

// ContainerPrefix starts the name of every container this package creates.
const ContainerPrefix = "dshaudit-"

// Timing of the stop and cleanup machinery.
const (
	pollEvery = 20 * time.Millisecond // pidfile poll for "running"
	// dockerPollEvery paces `docker container inspect` for "running".
	dockerPollEvery = 100 * time.Millisecond
	stopGrace       = 10 * time.Second // client exit after kill
	cleanupWait     = 30 * time.Second // budget of each cleanup command
)

// Run runs spec.Argv to completion or to spec.Timeout (DESIGN.md
// "Sandbox conditions"). A non-zero exit is not an error; an engine
// failure (client exit 125) is, with the Result still returned.
func (c *CLI) Run(ctx context.Context, spec RunSpec) (*Result, error) {
	return c.run(ctx, spec, 0)
}

// Observe runs spec.Argv and watches it for window, measured from the
// moment the engine reports the container process running. DESIGN.md
// "Liveness observation".
func (c *CLI) Observe(ctx context.Context, spec RunSpec, window time.Duration) (*Result, error) {
	if window <= 0 {
		return nil, fmt.Errorf("observe window %v: %w (must be positive)", window, ErrBadSpec)
	}
	return c.run(ctx, spec, window)
}

func validate(spec RunSpec) error {
	var problems []string
	if spec.Image == "" {
		problems = append(problems, "no image")
	}
	if len(spec.Argv) == 0 || spec.Argv[0] == "" {
		problems = append(problems, "no command")
	}
	if spec.Timeout < 0 {
		problems = append(problems, fmt.Sprintf("negative timeout %v", spec.Timeout))
	}
	for k := range spec.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			problems = append(problems, fmt.Sprintf("bad environment variable name %q", k))
		}
	}
	if _, ok := spec.Env["NODE_EXTRA_CA_CERTS"]; ok && spec.CACert != "" && spec.Network == NetworkOn {
		problems = append(problems, "both CACert and Env NODE_EXTRA_CA_CERTS given")
	}
	for _, m := range spec.Mounts {
		for _, p := range []string{m.Source, m.Target} {
			if !filepath.IsAbs(p) || strings.ContainsAny(p, ",\x00") {
				problems = append(problems, fmt.Sprintf("mount path %q must be absolute and contain no comma", p))
			}
		}
	}
	if spec.CACert != "" && (!filepath.IsAbs(spec.CACert) || strings.ContainsAny(spec.CACert, ",\x00")) {
		problems = append(problems, fmt.Sprintf("CA bundle path %q must be absolute and contain no comma", spec.CACert))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrBadSpec, strings.Join(problems, "; "))
	}
	return nil
}

// runArgs builds the client argv for one run.
func (c *CLI) runArgs(name, pidfile string, spec RunSpec) []string {
	lim := spec.Limits
	if lim.Memory == "" && lim.CPUs == "" && lim.Pids == 0 && lim.Ulimits == nil {
		lim = DefaultLimits()
	}
	a := append([]string(nil), c.pre...)
	// No --rm: with --rm, podman run races its own cleanup process for the
	// container and can lose the exit code (seen here: exit 127 after the
	// command printed its output). remove() runs on every path instead.
	a = append(a, "run", "--name", name, "--pull=never")
	if me, err := owner.Self(); err == nil {
		// Who made it, so that a later sweep can tell a killed run's
		// container from a live one's (DESIGN.md "Leftovers of a killed run").
		a = append(a, "--label", owner.Label+"="+me.String())
	}
	if spec.Network == NetworkOn {
		a = append(a, "--network", "host")
	} else {
		a = append(a, "--network", "none")
	}
	if lim.Memory != "" {
		a = append(a, "--memory", lim.Memory)
	}
	if lim.CPUs != "" {
		a = append(a, "--cpus", lim.CPUs)
	}
	if lim.Pids > 0 {
		a = append(a, "--pids-limit", strconv.Itoa(lim.Pids))
	}
	for _, u := range lim.Ulimits {
		a = append(a, "--ulimit", u)
	}
	if c.podman {
		// Nothing from the host: no proxy variables, no TERM from
		// containers.conf. DESIGN.md "Environment".
		a = append(a, "--http-proxy=false", "--unsetenv", "TERM")
		if pidfile != "" {
			a = append(a, "--pidfile", pidfile)
		}
	}
	env := map[string]string{}
	for k, v := range spec.Env {
		env[k] = v
	}
	mounts := append([]Mount(nil), spec.Mounts...)
	if spec.Network == NetworkOn && spec.CACert != "" {
		mounts = append(mounts, Mount{Source: spec.CACert, Target: CACertPath, ReadOnly: true})
		env["NODE_EXTRA_CA_CERTS"] = CACertPath
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		a = append(a, "--env", k+"="+env[k])
	}
	for _, m := range mounts {
		opt := "type=bind,source=" + m.Source + ",destination=" + m.Target
		if m.ReadOnly {
			opt += ",readonly=true"
		}
		a = append(a, "--mount", opt)
	}
	if spec.Workdir != "" {
		a = append(a, "--workdir", spec.Workdir)
	}
	if spec.User != "" {
		a = append(a, "--user", spec.User)
	}
	// Argv runs exactly as given, whatever ENTRYPOINT the image has.
	a = append(a, "--entrypoint", spec.Argv[0], spec.Image)
	return append(a, spec.Argv[1:]...)
}

func newContainerName() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return ContainerPrefix + hex.EncodeToString(b), nil
}

func (c *CLI) run(ctx context.Context, spec RunSpec, window time.Duration) (res *Result, err error) {
	if err := validate(spec); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("run %q: %w", spec.Argv, err)
	}
	name, err := newContainerName()
	if err != nil {
		return nil, fmt.Errorf("container name: %w", err)
	}
	var pidfile string
	if c.podman {
		dir, err := owner.MkdirTemp("", TempPrefixPidfile)
		if err != nil {
			return nil, fmt.Errorf("pidfile directory: %w", err)
		}
		defer os.RemoveAll(dir)
		pidfile = filepath.Join(dir, "pid")
	}
	args := c.runArgs(name, pidfile, spec)
	res = &Result{Container: name, Args: append([]string{c.bin}, args...)}
	capt, out, errs := newCapture(spec.OutputLimit)

	cmd := exec.Command(c.bin, args...)
	cmd.Stdin = nil // /dev/null
	cmd.Stdout, cmd.Stderr = out, errs
	cmd.WaitDelay = stopGrace
	// Own process group: a terminal's Ctrl-C reaches dshaudit, which then
	// stops and removes the container itself, not the client directly.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	// Whatever happens from here, the container is removed, with a fresh
	// context so that a cancelled ctx cannot prevent it.
	defer func() {
		if rmErr := c.remove(name); rmErr != nil && err == nil {
			err = rmErr
		}
	}()

	res.Started = time.Now()
	if err := cmd.Start(); err != nil {
		res.Ended = time.Now()
		res.Duration = res.Ended.Sub(res.Started)
		return res, fmt.Errorf("%w: start %s: %v", ErrEngine, c.name, err)
	}
	waitc := make(chan error, 1)
	go func() { waitc <- cmd.Wait() }()

	var timeoutc, windowc <-chan time.Time
	if spec.Timeout > 0 {
		t := time.NewTimer(spec.Timeout)
		defer t.Stop()
		timeoutc = t.C
	}
	// "Running" is seen through podman's pidfile, or for docker by asking
	// the daemon for the container's host pid (same host, so the pid can
	// be signalled like podman's).
	var pollc <-chan time.Time
	every := pollEvery
	if pidfile == "" {
		every = dockerPollEvery
	}
	tk := time.NewTicker(every)
	defer tk.Stop()
	pollc = tk.C
	pid := 0
	var waitErr error
	var stopReason error
	aliveAtEnd := false
loop:
	for {
		select {
		case waitErr = <-waitc:
			break loop
		case <-pollc:
			if p := c.runningPid(name, pidfile); p > 0 {
				pid = p
				res.Running = time.Now()
				pollc = nil
				if window > 0 {
					t := time.NewTimer(window)
					defer t.Stop()
					windowc = t.C
				}
			}
		case <-windowc:
			// Alive at the end of the window means the container's main
			// process still exists (or, without a pid, the client runs).
			aliveAtEnd = pid == 0 || syscall.Kill(pid, 0) == nil
			waitErr = c.stop(name, cmd, waitc)
			break loop
		case <-timeoutc:
			res.TimedOut = true
			waitErr = c.stop(name, cmd, waitc)
			break loop
		case <-ctx.Done():
			stopReason = ctx.Err()
			waitErr = c.stop(name, cmd, waitc)
			break loop
		}
	}
	res.Ended = time.Now()
	res.Duration = res.Ended.Sub(res.Started)
	capt.fill(res, out, errs)
	res.ExitCode = exitCode(waitErr, cmd)
	if window > 0 {
		l := &Liveness{Window: window, AliveAtEnd: aliveAtEnd}
		switch {
		case aliveAtEnd:
			l.AliveFor = window
		case !res.Running.IsZero():
			l.AliveFor = min(res.Ended.Sub(res.Running), window)
		default:
			l.AliveFor = min(res.Duration, window)
		}
		res.Liveness = l
	}
	switch {
	case stopReason != nil:
		return res, fmt.Errorf("run %s: stopped: %w", name, stopReason)
	case res.ExitCode == 125 && !res.TimedOut && !aliveAtEnd:
		return res, fmt.Errorf("%w: %s run exited 125: %s", ErrEngine, c.name, lastLine(res.Stderr))
	case res.ExitCode < 0 && !res.TimedOut && !aliveAtEnd:
		return res, fmt.Errorf("%w: %s client: %v", ErrEngine, c.name, waitErr)
	case res.ExitCode != 0:
		// A non-zero exit is the command's only if the engine itself
		// recorded it (DESIGN.md "Engine failures", rule 26).
		if err := c.checkRecordedExit(name, res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// checkRecordedExit compares the client's exit code with the engine's
// record of the container. When the engine's container monitor (podman's
// conmon, docker's daemon or shim) dies mid-command, the client gives up
// with an exit code of its own (podman: 127, "no such exit code") while
// the record still says running: that exit is the engine's, not the
// command's, and must not become a stage's failure.
func (c *CLI) checkRecordedExit(name string, res *Result) error {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupWait)
	defer cancel()
	out, err := c.output(ctx, "container", "inspect", "--format", "{{.State.Status}} {{.State.ExitCode}}", name)
	if err != nil {
		return fmt.Errorf("%w: %s lost container %s: its client exited %d and the engine has no record of it (%v); this is not the plugin's result: check %s and run again",
			ErrEngine, c.name, name, res.ExitCode, err, c.name)
	}
	status, code, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	switch {
	case status == "exited" && code == strconv.Itoa(res.ExitCode):
		return nil
	case status == "created" && (res.ExitCode == 126 || res.ExitCode == 127):
		// The runtime could not execute the command (not found, not
		// executable): the container never started, and rule 25 makes
		// that exit the command's.
		return nil
	}
	why := lastLine(res.Stderr)
	if len(why) > 300 {
		why = why[:300] + "…"
	}
	return fmt.Errorf("%w: %s lost container %s: its client exited %d but the engine records it %s (exit %s), so the command's exit is not known (%s); this is not the plugin's result: check %s and run again",
		ErrEngine, c.name, name, res.ExitCode, status, code, why, c.name)
}

// runningPid returns the container's main process id on the host once the
// engine reports it running, else 0.
func (c *CLI) runningPid(name, pidfile string) int {
	if pidfile != "" {
		return readPid(pidfile)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := c.output(ctx, "container", "inspect", "--format", "{{.State.Pid}}", name)
	if err != nil {
		return 0
	}
	p, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || p <= 0 {
		return 0
	}
	return p
}

func readPid(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	p, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || p <= 0 {
		return 0
	}
	return p
}

func exitCode(waitErr error, cmd *exec.Cmd) int {
	if cmd.ProcessState != nil {
		return cmd.ProcessState.ExitCode()
	}
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		return ee.ExitCode()
	}
	return -1
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// stop kills the container and waits for the client to exit, which
// flushes what the command printed. If the container does not exist yet
// (the client is still creating it), the kill is retried; a client that
// does not exit within stopGrace is killed.
func (c *CLI) stop(name string, cmd *exec.Cmd, waitc <-chan error) error {
	ctx, cancel := context.WithTimeout(context.Background(), stopGrace)
	defer cancel()
	killArgs := []string{"kill", "--signal", "KILL", name}
	if !c.podman {
		killArgs = []string{"kill", "-s", "KILL", name}
	}
	retry := time.NewTicker(200 * time.Millisecond)
	defer retry.Stop()
	_, _ = c.output(ctx, killArgs...)
	for {
		select {
		case err := <-waitc:
			return err
		case <-retry.C:
			_, _ = c.output(ctx, killArgs...)
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			return <-waitc
		}
	}
}

// remove force-removes the container if it still exists. It runs with a
// fresh background context: it must happen after success, failure,
// timeout and cancellation alike.
func (c *CLI) remove(name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupWait)
	defer cancel()
	// --volumes: an anonymous volume the image declares goes with it.
	args := []string{"rm", "--force", "--volumes", "--ignore", name}
	if !c.podman {
		args = []string{"rm", "--force", "--volumes", name}
	}
	_, err := c.output(ctx, args...)
	if err != nil && !c.podman && strings.Contains(stderrOf(err), "No such container") {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("%w: remove container %s: %v", ErrEngine, name, err)
	}
	return nil
}
