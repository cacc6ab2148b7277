package faulttest

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cluster is a one-node Slurm of the test's own (its own slurm.conf,
// ports and state; munged is the machine's, scripts/setup-slurm.sh
// starts it), so that the test may kill its slurmd without touching the
// Slurm other tests use.
type cluster struct {
	conf, dir, node string
	ctld, slurmd    *exec.Cmd
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	if out, err := exec.Command("munge", "-n").CombinedOutput(); err != nil {
		t.Fatalf("the Slurm fault needs munged (scripts/setup-slurm.sh start, as scripts/test.sh does): %v %s", err, out)
	}
	c := &cluster{dir: t.TempDir(), node: "faultnode"}
	c.conf = filepath.Join(c.dir, "slurm.conf")
	for _, d := range []string{"state", "spool"} {
		if err := os.Mkdir(filepath.Join(c.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	conf := fmt.Sprintf(`ClusterName=fault
SlurmctldHost=localhost
SlurmctldPort=%d
SlurmdPort=%d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
JobRequeue=0
KillWait=30
StateSaveLocation=%[3]s/state
SlurmdSpoolDir=%[3]s/spool
SlurmctldPidFile=%[3]s/slurmctld.pid
SlurmdPidFile=%[3]s/slurmd.pid
SlurmctldLogFile=%[3]s/slurmctld.log
SlurmdLogFile=%[3]s/slurmd.log
NodeName=%[4]s NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=2400 State=UNKNOWN
PartitionName=fault Nodes=ALL Default=YES MaxTime=INFINITE State=UP
`, freePort(t), freePort(t), c.dir, c.node)
	if err := os.WriteFile(c.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	c.ctld = exec.Command("slurmctld", "-D", "-i", "-f", c.conf)
	if err := c.ctld.Start(); err != nil {
		t.Fatal(err)
	}
	c.startSlurmd(t)
	t.Cleanup(func() {
		for _, p := range []*exec.Cmd{c.slurmd, c.ctld} {
			if p != nil && p.Process != nil {
				p.Process.Kill()
				p.Wait()
			}
		}
	})
	c.waitIdle(t)
	return c
}

func (c *cluster) startSlurmd(t *testing.T) {
	t.Helper()
	c.slurmd = exec.Command("slurmd", "-D", "-N", c.node, "-f", c.conf)
	c.slurmd.Env = c.env()
	if err := c.slurmd.Start(); err != nil {
		t.Fatal(err)
	}
}

func (c *cluster) env() []string { return append(os.Environ(), "SLURM_CONF="+c.conf) }

func (c *cluster) cmd(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = c.env()
	out, _ := cmd.CombinedOutput()
	return strings.TrimSpace(string(out))
}

func (c *cluster) waitIdle(t *testing.T) {
	t.Helper()
	for i := 0; i < 150; i++ {
		st := c.cmd(t, "sinfo", "-h", "-N", "-o", "%T")
		if strings.HasPrefix(st, "idle") {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(c.dir, "slurmctld.log"))
	t.Fatalf("the test's Slurm node never became idle (sinfo: %s)\n%s", c.cmd(t, "sinfo", "-N"), log)
}

// loseNode kills, as a power cut would, the node's slurmd and every
// slurmstepd of job id with all their descendants (the task and its
// dshaudit run), then has the controller mark the node down. It returns
// the pids of the dshaudit processes it killed.
func (c *cluster) loseNode(t *testing.T, job string) []int {
	t.Helper()
	// The job ids of the array's tasks (each task is a job of its own).
	ids := map[string]bool{}
	for _, id := range strings.Fields(c.cmd(t, "squeue", "-h", "-r", "-j", job, "-o", "%A")) {
		ids[id] = true
	}
	procs := processTable(t)
	var roots []int
	for pid, p := range procs {
		if rest, ok := strings.CutPrefix(p.cmd, "slurmstepd: ["); ok && ids[strings.SplitN(rest, ".", 2)[0]] {
			roots = append(roots, pid)
		}
	}
	if len(roots) == 0 {
		t.Fatalf("no slurmstepd of job %s", job)
	}
	var victims, runs []int
	var walk func(int)
	walk = func(pid int) {
		victims = append(victims, pid)
		if strings.Contains(procs[pid].cmd, "dshaudit run ") || strings.HasSuffix(procs[pid].exe, "/dshaudit") && strings.Contains(procs[pid].cmd, " run ") {
			runs = append(runs, pid)
		}
		for child, p := range procs {
			if p.ppid == pid {
				walk(child)
			}
		}
	}
	for _, r := range roots {
		walk(r)
	}
	c.slurmd.Process.Kill()
	for _, pid := range victims {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	c.slurmd.Wait()
	c.slurmd = nil
	c.cmd(t, "scontrol", "update", "nodename="+c.node, "state=down", "reason=fault test: node lost")
	t.Logf("node lost: slurmd, slurmstepd %v and descendants %v killed (dshaudit runs %v)", roots, victims, runs)
	return runs
}

type procInfo struct {
	ppid     int
	cmd, exe string
}

func processTable(t *testing.T) map[int]procInfo {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	m := map[int]procInfo{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		cl, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		exe, _ := os.Readlink("/proc/" + e.Name() + "/exe")
		m[pid] = procInfo{ppid: ppid, cmd: strings.TrimSpace(strings.ReplaceAll(string(cl), "\x00", " ")), exe: exe}
	}
	return m
}

// TestFaultSlurmNodeLost loses the node of a running array task (slurmd,
// the task's slurmstepd and its dshaudit run killed, the node marked
// down): batch reports that task as lost and exits 3, keeps the other's
// bundle, and a re-run on the node brought back runs only that spec; the
// killed run's container is swept by the re-run's task.
func TestFaultSlurmNodeLost(t *testing.T) {
	s := setup(t)
	e2eSlurmTools(t)
	c := newCluster(t)
	out := t.TempDir()
	const victim = "boot-failed" // reaches T4, runs longest
	plan := filepath.Join(t.TempDir(), "plan.txt")
	if err := os.WriteFile(plan, []byte(fixture("install-failed")+"\n"+fixture(victim)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"batch", plan, "--on", "slurm", "--image", s.image, "--signing-key", s.key, "--out", out,
		"--t1-workspace-root", "--repeat", "1", "--retries", "0", "--poll", "500ms", "--json"}
	p := s.startEnv(t, c.env(), args...)
	p.waitLine(t, "submitted job", 2*time.Minute)
	job := regexp.MustCompile(`submitted job (\d+)`).FindStringSubmatch(p.stderr())[1]
	running := regexp.MustCompile(`task ` + job + `_\d+ "[^"]*/` + victim + `"[^:]*: RUNNING`)
	deadline := time.Now().Add(3 * time.Minute)
	for !running.MatchString(p.stderr()) {
		if time.Now().After(deadline) {
			t.Fatalf("the %s task never ran:\n%s", victim, p.stderr())
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The other task finishes first; then the node is lost with the
	// victim's run inside its stages.
	p.waitLine(t, "/install-failed\" (dshaudit-fixture-install-failed@1.0.0): done", 3*time.Minute)
	if strings.Contains(p.stderr(), "/"+victim+"\" (dshaudit-fixture-"+victim+"@1.0.0): done") {
		t.Fatalf("the %s task ended before the node could be lost:\n%s", victim, p.stderr())
	}
	runs := c.loseNode(t, job)
	code := p.wait(t, 3*time.Minute)
	var res struct {
		Tasks []struct {
			Spec, State, Why string
		} `json:"tasks"`
	}
	if err := json.Unmarshal(p.stdout.Bytes(), &res); err != nil {
		t.Fatalf("batch --json: %v\n%s\n%s", err, p.stdout.String(), p.stderr())
	}
	t.Logf("batch after the node was lost: exit %d, tasks %+v", code, res.Tasks)
	for _, l := range p.errorLines() {
		if strings.Contains(l, "lost") {
			t.Logf("batch said: %s", l)
		}
	}
	for _, pid := range runs {
		t.Logf("left by the lost run %d: containers %v, temporary directories %v", pid, containersOf(t, pid), s.tempOfPid(t, pid))
	}
	if code != 3 {
		t.Errorf("exit %d, want 3 (a task lost):\n%s", code, p.stderr())
	}
	for _, tk := range res.Tasks {
		isVictim := strings.HasSuffix(tk.Spec, "/"+victim)
		if isVictim && (tk.State != "failed" || !strings.Contains(tk.Why, "lost")) || !isVictim && tk.State != "done" {
			t.Errorf("%s: %s %q", tk.Spec, tk.State, tk.Why)
		}
	}
	// No bundle of the lost task, no temporary file; its killed run's
	// lock file (empty, unlocked) stays until the next run of that path.
	for _, n := range dirEntries(t, out) {
		if strings.Contains(n, victim) && !strings.HasSuffix(n, ".lock") {
			t.Errorf("the lost task left %s", n)
		}
	}

	// The node comes back; the same plan runs only the lost spec.
	c.startSlurmd(t)
	c.cmd(t, "scontrol", "update", "nodename="+c.node, "state=resume")
	c.waitIdle(t)
	code, stdout, stderr := s.runEnv(t, c.env(), args...)
	if !strings.Contains(stderr, "plan: 2 tasks, 1 done earlier (bundle verifies), 1 to run on slurm") || code != 1 {
		t.Fatalf("re-run: exit %d, want 1 running only the lost spec:\n%s\n%s", code, stderr, stdout)
	}
	for _, n := range dirEntries(t, out) {
		if strings.HasSuffix(n, ".lock") || strings.Contains(n, ".tmp-") {
			t.Errorf("left beside the bundles after the re-run: %s", n)
		}
	}
	if len(runs) == 0 {
		t.Error("no dshaudit run was found among the lost node's processes")
	}
	for _, pid := range runs {
		if left := containersOf(t, pid); len(left) != 0 {
			t.Errorf("containers of the lost node's run (pid %d) left after the re-run: %v", pid, left)
		}
		if d := s.tempOfPid(t, pid); len(d) != 0 {
			t.Errorf("temporary directories of the lost run left: %v", d)
		}
	}
}

func e2eSlurmTools(t *testing.T) {
	for _, tool := range []string{"slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "munge"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the Slurm fault needs %s (scripts/setup-slurm.sh installs it): %v", tool, err)
		}
	}
}
