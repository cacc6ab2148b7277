package engine

import (
	"context"
	"errors"
	"fmt"

	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
	"time"
)

func spec(f *fixture, argv ...string) RunSpec {
	return RunSpec{Image: f.image.ID, Argv: argv, Limits: DefaultLimits(), Timeout: 2 * time.Minute}
}

func run(t *testing.T, s RunSpec) *Result {
	t.Helper()
	f := base(t)
	res, err := f.eng.Run(context.Background(), s)
	if err != nil {
		t.Fatalf("Run %q: %v (result %+v)", s.Argv, err, res)
	}
	return res
}

func TestRunEcho(t *testing.T) {
	f := base(t)
	res := run(t, spec(f, "echo", "hello"))
	if string(res.Stdout) != "hello\n" || len(res.Stderr) != 0 || string(res.Merged) != "hello\n" {
		t.Errorf("stdout %q stderr %q merged %q, want hello on stdout only", res.Stdout, res.Stderr, res.Merged)
	}
	if res.ExitCode != 0 || res.TimedOut {
		t.Errorf("exit %d timedOut %v, want 0 false", res.ExitCode, res.TimedOut)
	}
	if res.Ended.Before(res.Started) || res.Duration <= 0 {
		t.Errorf("bad times: %v → %v (%v)", res.Started, res.Ended, res.Duration)
	}
	assertGone(t, res.Container)
}

func TestRunInterleavedMergedOrder(t *testing.T) {
	f := base(t)
	res := run(t, spec(f, "interleave"))
	if got, want := string(res.Stdout), "out-1\nout-2\nout-3\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	if got, want := string(res.Stderr), "err-1\nerr-2\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	if got, want := string(res.Merged), "out-1\nerr-1\nout-2\nerr-2\nout-3\n"; got != want {
		t.Errorf("merged %q, want arrival order %q", got, want)
	}
}

func TestRunExitCodes(t *testing.T) {
	f := base(t)
	for _, tc := range []struct {
		argv []string
		want int
	}{
		{[]string{"sh", "-c", "exit 3"}, 3},
		{[]string{"false"}, 1},
		{[]string{"sh", "-c", "echo partial; exit 42"}, 42},
		{[]string{"no-such-command"}, 127},
	} {
		res, err := f.eng.Run(context.Background(), spec(f, tc.argv...))
		if err != nil {
			t.Errorf("%q: %v", tc.argv, err)
			continue
		}
		if res.ExitCode != tc.want {
			t.Errorf("%q: exit %d, want %d (stderr %q)", tc.argv, res.ExitCode, tc.want, res.Stderr)
		}
		assertGone(t, res.Container)
	}
}

func TestRunTimeoutKills(t *testing.T) {
	f := base(t)
	s := spec(f, "sh", "-c", "echo before; echo warn >&2; sleep 60; echo after")
	s.Timeout = 2 * time.Second
	start := time.Now()
	res := run(t, s)
	if !res.TimedOut {
		t.Errorf("TimedOut false after %v", res.Duration)
	}
	if res.ExitCode != 137 {
		t.Errorf("exit %d, want 137 (SIGKILL)", res.ExitCode)
	}
	if string(res.Stdout) != "before\n" || string(res.Stderr) != "warn\n" {
		t.Errorf("output printed before the timeout not collected: stdout %q stderr %q", res.Stdout, res.Stderr)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("timeout of 2s took %v to stop", el)
	}
	assertGone(t, res.Container)
}

func TestRunCancelRemovesContainer(t *testing.T) {
	f := base(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(1500 * time.Millisecond); cancel() }()
	start := time.Now()
	res, err := f.eng.Run(ctx, spec(f, "sleep", "60"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if res == nil {
		t.Fatal("no result after cancellation")
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("cancellation took %v", el)
	}
	assertGone(t, res.Container)
}

func TestObserveAlive(t *testing.T) {
	f := base(t)
	s := spec(f, "sh", "-c", "echo up; sleep 60")
	res, err := f.eng.Observe(context.Background(), s, 2*time.Second)
	if err != nil {
		t.Fatalf("Observe: %v", err)
	}
	l := res.Liveness
	if l == nil || !l.AliveAtEnd || l.AliveFor != 2*time.Second || l.Window != 2*time.Second {
		t.Fatalf("liveness %+v, want alive at end for the 2s window", l)
	}
	if res.ExitCode != 137 || res.TimedOut {
		t.Errorf("exit %d timedOut %v, want 137 from the stop, not a timeout", res.ExitCode, res.TimedOut)
	}
	if res.Running.IsZero() || res.Ended.Sub(res.Running) < 2*time.Second {
		t.Errorf("window not measured from running: running %v ended %v", res.Running, res.Ended)
	}
	if string(res.Stdout) != "up\n" {
		t.Errorf("stdout %q", res.Stdout)
	}
	assertGone(t, res.Container)
}

func TestObserveEarlyExit(t *testing.T) {
	f := base(t)
	res, err := f.eng.Observe(context.Background(), spec(f, "sh", "-c", "sleep 1; exit 3"), 6*time.Second)
	if err != nil {
		t.Fatalf("Observe: %v", err)
	}
	l := res.Liveness
	if l == nil || l.AliveAtEnd {
		t.Fatalf("liveness %+v, want exited before the window", l)
	}
	if res.ExitCode != 3 {
		t.Errorf("exit %d, want 3", res.ExitCode)
	}
	// At least the command's own 1 s; less than the window, with room for
	// the engine's teardown on a loaded machine.
	if l.AliveFor < 900*time.Millisecond || l.AliveFor >= 6*time.Second {
		t.Errorf("AliveFor %v, want about 1s", l.AliveFor)
	}
	assertGone(t, res.Container)
}

func TestNetworkNoneIsOff(t *testing.T) {
	f := base(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "hello-from-host")
	}))
	defer srv.Close()
	url := srv.URL + "/"
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("test server not on loopback: %s", url)
	}
	get := spec(f, "wget", "-q", "-O", "-", url) // busybox 1.35 static wget -T segfaults
	get.Timeout = 30 * time.Second

	get.Network = NetworkNone
	res := run(t, get)
	if res.ExitCode == 0 || strings.Contains(string(res.Stdout), "hello-from-host") {
		t.Errorf("network none reached the host listener: exit %d stdout %q", res.ExitCode, res.Stdout)
	}
	if !strings.Contains(string(res.Stderr), "refused") {
		t.Errorf("network none: want the connection refused inside the container's own loopback, stderr %q", res.Stderr)
	}
	get.Network = NetworkOn
	res = run(t, get)
	if res.ExitCode != 0 || string(res.Stdout) != "hello-from-host" {
		t.Errorf("network on did not reach the host listener: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// cgroupFile prints a cgroup v2 file or its v1 counterpart, whichever exists.
func cgroupRead(v2, v1 string) []string {
	return []string{"sh", "-c", fmt.Sprintf("if [ -e /sys/fs/cgroup/%s ]; then cat /sys/fs/cgroup/%s; else cat /sys/fs/cgroup/%s; fi", v2, v2, v1)}
}

func TestMemoryLimitApplies(t *testing.T) {
	f := base(t)
	for _, tc := range []struct {
		mem  string
		want string
	}{{DefaultMemory, "805306368"}, {"256m", "268435456"}} {
		s := spec(f, cgroupRead("memory.max", "memory/memory.limit_in_bytes")...)
		s.Limits.Memory = tc.mem
		res := run(t, s)
		if got := strings.TrimSpace(string(res.Stdout)); got != tc.want {
			t.Errorf("memory %s: cgroup limit %q (stderr %q), want %s", tc.mem, got, res.Stderr, tc.want)
		}
	}
}

func TestCPULimitApplies(t *testing.T) {
	f := base(t)
	res := run(t, spec(f, "sh", "-c", "if [ -e /sys/fs/cgroup/cpu.max ]; then cat /sys/fs/cgroup/cpu.max; else echo $(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) $(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us); fi"))
	fields := strings.Fields(string(res.Stdout))
	if len(fields) != 2 || fields[0] != fields[1] {
		t.Errorf("cpu quota/period %q (stderr %q), want quota == period for cpus=1", res.Stdout, res.Stderr)
	}
}

func TestPidsLimitApplies(t *testing.T) {
	f := base(t)
	res := run(t, spec(f, cgroupRead("pids.max", "pids/pids.max")...))
	if got := strings.TrimSpace(string(res.Stdout)); got != "256" {
		t.Errorf("pids.max %q (stderr %q), want 256", got, res.Stderr)
	}
	// And it bites: with 16 pids, 40 background sleeps cannot all start.
	s := spec(f, "sh", "-c", "n=0; for i in $(seq 40); do sleep 5 & n=$((n+1)); done; echo tried=$n")
	s.Limits.Pids = 16
	res = run(t, s)
	if !strings.Contains(strings.ToLower(string(res.Merged)), "fork") {
		t.Errorf("40 processes under pids-limit 16 did not fail to fork: exit %d output %q", res.ExitCode, res.Merged)
	}
}

func TestNoHostEnvLeak(t *testing.T) {
	f := base(t)
	t.Setenv("DSHAUDIT_SECRET", "1")
	t.Setenv("http_proxy", "http://leak.invalid:1")
	t.Setenv("HTTPS_PROXY", "http://leak.invalid:1")
	s := spec(f, "env")
	s.Env = map[string]string{"DSH_HOME": "/dsh-home", "FOO": "bar baz"}
	res := run(t, s)
	env := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(res.Stdout)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		env[k] = v
	}
	for _, k := range []string{"DSHAUDIT_SECRET", "http_proxy", "HTTPS_PROXY", "https_proxy", "TERM"} {
		if v, ok := env[k]; ok {
			t.Errorf("host variable %s=%q visible inside the container", k, v)
		}
	}
	if env["FOO"] != "bar baz" || env["DSH_HOME"] != "/dsh-home" || env["PATH"] != "/usr/local/bin:/bin" {
		t.Errorf("asked-for or image variables missing: %q", res.Stdout)
	}
	allowed := map[string]bool{"FOO": true, "DSH_HOME": true, "PATH": true, "HOME": true, "HOSTNAME": true, "container": true}
	for k := range env {
		if !allowed[k] {
			t.Errorf("unexpected variable %s inside the container", k)
		}
	}
}

func TestCACertOnlyWithNetwork(t *testing.T) {
	f := base(t)
	ca := filepath.Join(t.TempDir(), "ca.crt")
	must(t, os.WriteFile(ca, []byte("test-ca-bundle\n"), 0o644))
	s := spec(f, "sh", "-c", `echo "var=$NODE_EXTRA_CA_CERTS"; cat "`+CACertPath+`" 2>/dev/null || echo no-file`)
	s.CACert = ca
	s.Network = NetworkOn
	res := run(t, s)
	if want := "var=" + CACertPath + "\ntest-ca-bundle\n"; string(res.Stdout) != want {
		t.Errorf("network on: %q, want %q", res.Stdout, want)
	}
	s.Network = NetworkNone
	res = run(t, s)
	if want := "var=\nno-file\n"; string(res.Stdout) != want {
		t.Errorf("network none: %q, want %q", res.Stdout, want)
	}
}

func TestMounts(t *testing.T) {
	f := base(t)
	home, ro := t.TempDir(), t.TempDir()
	must(t, os.WriteFile(filepath.Join(ro, "in"), []byte("x"), 0o644))
	s := spec(f, "sh", "-c", `echo written > "$DSH_HOME/profile"; touch /ro/new && echo ro-writable || echo ro-refused`)
	s.Env = map[string]string{"DSH_HOME": "/dsh-home"}
	s.Mounts = []Mount{{Source: home, Target: "/dsh-home"}, {Source: ro, Target: "/ro", ReadOnly: true}}
	res := run(t, s)
	b, err := os.ReadFile(filepath.Join(home, "profile"))
	if err != nil || string(b) != "written\n" {
		t.Errorf("rw mount: host sees %q, %v", b, err)
	}
	if !strings.Contains(string(res.Stdout), "ro-refused") {
		t.Errorf("read-only mount was writable: %q %q", res.Stdout, res.Stderr)
	}
}

func TestOutputLimitKeepsHead(t *testing.T) {
	f := base(t)
	s := spec(f, "sh", "-c", "yes abcdefgh | head -c 100000; echo tail >&2")
	s.OutputLimit = 1000
	res := run(t, s)
	if len(res.Stdout) != 1000 || !res.StdoutTruncated || !strings.HasPrefix(string(res.Stdout), "abcdefgh\n") {
		t.Errorf("stdout %d bytes truncated=%v, want the first 1000", len(res.Stdout), res.StdoutTruncated)
	}
	if res.StderrTruncated || string(res.Stderr) != "tail\n" || res.ExitCode != 0 {
		t.Errorf("stderr %q truncated=%v exit %d", res.Stderr, res.StderrTruncated, res.ExitCode)
	}
}

func TestRunMissingImageIsEngineError(t *testing.T) {
	f := base(t)
	s := spec(f, "true")
	s.Image = "localhost/dshaudit-enginetest/absent@sha256:" + strings.Repeat("0", 64)
	res, err := f.eng.Run(context.Background(), s)
	if !errors.Is(err, ErrEngine) {
		t.Fatalf("err %v, want ErrEngine (--pull=never, image absent)", err)
	}
	assertGone(t, res.Container)
}

func TestDetect(t *testing.T) {
	e2etest.Require(t, "podman")
	ctx := context.Background()
	e, err := Detect(ctx, "")
	if err != nil {
		t.Fatalf("Detect auto: %v", err)
	}
	if e.Name() != "podman" {
		t.Errorf("auto picked %q, want podman first", e.Name())
	}
	if v, err := e.Version(ctx); err != nil || v == "" {
		t.Errorf("version %q, %v", v, err)
	}
	if _, err := Detect(ctx, "lxc"); !errors.Is(err, ErrBadSpec) {
		t.Errorf("Detect(lxc): %v, want ErrBadSpec", err)
	}
	// No docker daemon here: docker must be reported missing, naming the fix.
	if _, err := Detect(ctx, "docker"); err != nil && (!errors.Is(err, ErrEngineMissing) || !strings.Contains(err.Error(), "install podman")) {
		t.Errorf("Detect(docker): %v, want nil or ErrEngineMissing naming what to install", err)
	}
}

func TestBadSpecRefused(t *testing.T) {
	f := base(t)
	for _, s := range []RunSpec{
		{Argv: []string{"true"}},
		{Image: f.image.ID},
		{Image: f.image.ID, Argv: []string{"true"}, Env: map[string]string{"A=B": "x"}},
		{Image: f.image.ID, Argv: []string{"true"}, Mounts: []Mount{{Source: "rel", Target: "/x"}}},
	} {
		if _, err := f.eng.Run(context.Background(), s); !errors.Is(err, ErrBadSpec) {
			t.Errorf("%+v: %v, want ErrBadSpec", s, err)
		}
	}
}
