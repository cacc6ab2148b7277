package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// DefaultPodmanRuntime is the OCI runtime podman is told to use. crun,
// podman's own default, fails on hosts with hybrid cgroups ("cgroups in
// hybrid mode not supported"); runc works on both.
const DefaultPodmanRuntime = "runc"

// CLI drives a container engine through its command-line client.
type CLI struct {
	name string   // "podman" or "docker"
	bin  string   // resolved client path
	pre  []string // global flags before the subcommand
	// podman-only features
	podman bool
}

// NewPodman returns a podman driver using the given OCI runtime ("" means
// DefaultPodmanRuntime). It fails with ErrEngineMissing when the podman
// client is not installed.
func NewPodman(runtime string) (*CLI, error) {
	bin, err := exec.LookPath("podman")
	if err != nil {
		return nil, fmt.Errorf("%w: podman client not found (install: apt-get install -y podman runc): %v", ErrEngineMissing, err)
	}
	if runtime == "" {
		runtime = DefaultPodmanRuntime
	}
	return &CLI{name: "podman", bin: bin, pre: []string{"--runtime", runtime}, podman: true}, nil
}

// NewDocker returns a docker driver. It fails with ErrEngineMissing when
// the docker client is not installed.
func NewDocker() (*CLI, error) {
	bin, err := exec.LookPath("docker")
	if err != nil {
		return nil, fmt.Errorf("%w: docker client not found: %v", ErrEngineMissing, err)
	}
	return &CLI{name: "docker", bin: bin}, nil
}

// Detect returns a working engine. preference is "podman", "docker", or
// "" / "auto" for the first that works, podman first. "Works" means the
// client answers a version query that needs the engine itself (for docker,
// a reachable daemon).
func Detect(ctx context.Context, preference string) (*CLI, error) {
	var order []string
	switch preference {
	case "", "auto":
		order = []string{"podman", "docker"}
	case "podman", "docker":
		order = []string{preference}
	default:
		return nil, fmt.Errorf("engine %q: %w (want podman, docker or auto)", preference, ErrBadSpec)
	}
	var problems []string
	for _, n := range order {
		var c *CLI
		var err error
		if n == "podman" {
			c, err = NewPodman("")
		} else {
			c, err = NewDocker()
		}
		if err == nil {
			_, err = c.Version(ctx)
		}
		if err == nil {
			return c, nil
		}
		// Each err starts with ErrEngineMissing's text; keep only its cause.
		problems = append(problems, strings.TrimPrefix(err.Error(), ErrEngineMissing.Error()+": "))
	}
	return nil, fmt.Errorf("%w: %s; install podman and runc (apt-get install -y podman runc) or start a docker daemon",
		ErrEngineMissing, strings.Join(problems, "; "))
}

// Name returns "podman" or "docker".
func (c *CLI) Name() string { return c.name }

// Version returns the engine's version (docker: the daemon's).
func (c *CLI) Version(ctx context.Context) (string, error) {
	format := "{{.Client.Version}}"
	if !c.podman {
		format = "{{.Server.Version}}"
	}
	out, err := c.output(ctx, "version", "--format", format)
	if err != nil {
		return "", fmt.Errorf("%w: %s version: %v", ErrEngineMissing, c.name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// output runs one client command and returns its stdout; on failure the
// error carries the client's stderr.
func (c *CLI) output(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, c.bin, append(append([]string(nil), c.pre...), args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), &clientError{args: args, err: err, stderr: strings.TrimSpace(stderr.String())}
	}
	return stdout.Bytes(), nil
}

// clientError is a failed client command.
type clientError struct {
	args   []string
	err    error
	stderr string
}

func (e *clientError) Error() string {
	msg := e.stderr
	if len(msg) > 2000 {
		msg = msg[:2000] + "…"
	}
	return fmt.Sprintf("%s: %v: %s", strings.Join(e.args, " "), e.err, msg)
}

func (e *clientError) Unwrap() error { return e.err }

// stderrOf returns the client's stderr of a failed command, or "".
func stderrOf(err error) string {
	var ce *clientError
	if errors.As(err, &ce) {
		return ce.stderr
	}
	return ""
}
