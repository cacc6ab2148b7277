package faulttest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/internal/owner"
	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
)

// repo is the repository root, from this package's directory.
const repo = "../.."

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// suite is what every fault test shares: the dshaudit binary, the
// sandbox image, a key pair and a temp directory the children use as
// TMPDIR (so what they leave there can be counted).
type suite struct {
	bin, image, key, pub string
	tmp                  string
}

func setup(t *testing.T) *suite {
	t.Helper()
	e2etest.Require(t, "podman", "npm")
	if e2etest.EngineName() != "podman" {
		t.Skip("the fault suite injects podman's faults (conmon); scripts/test.sh runs it once, on podman")
	}
	img := e2etest.SandboxImage(t)
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "faulttest-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "dshaudit")
		out, err := exec.Command("go", "build", "-o", binPath, repo+"/cmd/dshaudit").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	s := &suite{bin: binPath, image: img, tmp: filepath.Join(t.TempDir(), "tmp")}
	if err := os.Mkdir(s.tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	kd := t.TempDir()
	if out, err := exec.Command(s.bin, "key", "generate", "--out-dir", kd, "--name", "k").CombinedOutput(); err != nil {
		t.Fatalf("key generate: %v\n%s", err, out)
	}
	s.key, s.pub = filepath.Join(kd, "k.key"), filepath.Join(kd, "k.pub")
	return s
}

func fixture(name string) string {
	p, _ := filepath.Abs(filepath.Join(repo, "testdata", "plugins", name))
	return p
}

// proc is a running dshaudit whose stderr is read line by line.
type proc struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	mu     sync.Mutex
	lines  []string
	done   chan struct{}
	code   int
}

// start starts dshaudit with args.
func (s *suite) start(t *testing.T, args ...string) *proc {
	t.Helper()
	return s.startEnv(t, os.Environ(), args...)
}

// startEnv starts dshaudit with args in env (and the suite's TMPDIR).
func (s *suite) startEnv(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(s.bin, args...), done: make(chan struct{})}
	p.cmd.Env = append(env, "TMPDIR="+s.tmp)
	p.cmd.Stdout = &p.stdout
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
		}
		io.Copy(io.Discard, stderr)
		p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Signal(os.Interrupt)
			<-p.done
		}
	})
	return p
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// waitLine waits for a stderr line containing sub.
func (p *proc) waitLine(t *testing.T, sub string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if strings.Contains(p.stderr(), sub) {
			return
		}
		select {
		case <-p.done:
			if strings.Contains(p.stderr(), sub) {
				return
			}
			t.Fatalf("dshaudit ended (exit %d) before printing %q:\n%s", p.code, sub, p.stderr())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("no %q within %v:\n%s", sub, d, p.stderr())
}

// wait waits for the process to end and returns its exit code.
func (p *proc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(d):
		t.Fatalf("dshaudit still running after %v:\n%s", d, p.stderr())
	}
	return -1
}

// lastLine is the last stderr line.
func (p *proc) lastLine() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.lines) == 0 {
		return ""
	}
	return p.lines[len(p.lines)-1]
}

// errorLines are the stderr lines that are not progress ("[  1.0s] …").
func (p *proc) errorLines() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, l := range p.lines {
		if !strings.HasPrefix(l, "[") {
			out = append(out, l)
		}
	}
	return out
}

// run runs dshaudit to its end and returns exit code, stdout, stderr.
func (s *suite) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return s.runEnv(t, os.Environ(), args...)
}

// runEnv is run in env (and the suite's TMPDIR).
func (s *suite) runEnv(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.bin, args...)
	cmd.Env = append(env, "TMPDIR="+s.tmp)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if cmd.ProcessState == nil {
		t.Fatalf("dshaudit %s: %v", strings.Join(args, " "), err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// runArgs are the flags of a run of fixture dir into out.
func (s *suite) runArgs(dir, out string, extra ...string) []string {
	a := []string{"run", fixture(dir), "--image", s.image, "--signing-key", s.key, "--t1-workspace-root",
		"--repeat", "1", "--out", out, "--progress", "always"}
	return append(a, extra...)
}

// podman runs a podman command and returns its stdout.
func podman(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("podman", append([]string{"--runtime", "runc"}, args...)...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("podman %s: %v %s", strings.Join(args, " "), err, stderr)
	}
	return string(out)
}

// containersOf lists the containers whose owner label names pid on
// this host, with their state.
func containersOf(t *testing.T, pid int) map[string]string {
	t.Helper()
	me, err := owner.Self()
	if err != nil {
		t.Fatal(err)
	}
	out := podman(t, "ps", "--all", "--filter", "label="+owner.Label, "--format", "{{.Names}}\t{{.State}}\t{{index .Labels \""+owner.Label+"\"}}")
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(l, "\t")
		if len(f) != 3 {
			continue
		}
		o, err := owner.Parse(f[2])
		if err == nil && o.PID == pid && o.Host == me.Host && o.Boot == me.Boot {
			got[f[0]] = f[1]
		}
	}
	return got
}

// runningContainerOf waits until the process pid has a running container
// and returns its name.
func runningContainerOf(t *testing.T, pid int, d time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		for n, st := range containersOf(t, pid) {
			if strings.HasPrefix(st, "Up") { // podman ps: "Up 2 seconds ago"
				return n
			}
		}
		time.Sleep(30 * time.Millisecond)
	}
	t.Fatalf("pid %d had no running container within %v", pid, d)
	return ""
}

// tempOf lists the entries of the suite's TMPDIR that dshaudit names.
func (s *suite) tempOf(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir(s.tmp)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "dshaudit-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// tempOfPid lists the entries of TMPDIR whose owner token names pid.
func (s *suite) tempOfPid(t *testing.T, pid int) []string {
	var out []string
	for _, n := range s.tempOf(t) {
		if strings.Contains(n, fmt.Sprintf(".%d.", pid)) {
			out = append(out, n)
		}
	}
	return out
}

// bystander starts a container that no sweep may remove, with extra
// podman run flags (labels), and removes it when the test ends.
func (s *suite) bystander(t *testing.T, name string, flags ...string) string {
	t.Helper()
	id := strings.TrimSpace(podman(t, "image", "inspect", "--format", "{{.Id}}", s.image))
	args := append([]string{"run", "-d", "--name", name, "--network", "none", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"}, flags...)
	podman(t, append(args, "--entrypoint", "sleep", id, "600")...)
	t.Cleanup(func() { exec.Command("podman", "rm", "--force", "--time", "0", name).Run() })
	return name
}

func exists(t *testing.T, name string) bool {
	t.Helper()
	out := podman(t, "ps", "--all", "--format", "{{.Names}}")
	for _, n := range strings.Fields(out) {
		if n == name {
			return true
		}
	}
	return false
}

// dirEntries lists a directory's entries by name.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func kill9(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %d: %v", pid, err)
	}
}
