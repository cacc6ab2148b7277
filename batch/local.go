package batch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/dshaudit/dshaudit/internal/hosttool"
)

// DefaultLocalParallel is --parallel's default for --on local: half the
// CPUs, at least one. Each run's containers get one CPU (--cpus 1), and
// the host side of a run (podman, conmon, the runner, pnpm's network
// wait) needs CPU too; on a machine that also does other work a second
// concurrent run per two CPUs is what starves dsh's boot inside T4's 12 s
// window (DESIGN.md "T4 command": boot_failed under load). docs/batch.md
// "Local engine" has the measurement.
func DefaultLocalParallel() int { return max(1, runtime.NumCPU()/2) }

// LocalScheduler runs a job's tasks as processes on this machine, Parallel at
// once, each in its own process group so that cancelling stops the task
// script and the dshaudit run under it (which removes its containers on
// SIGTERM).
type LocalScheduler struct {
	mu   sync.Mutex
	jobs map[string]*localJob
	n    int
}

type localJob struct {
	mu     sync.Mutex
	state  map[int]string // PENDING, RUNNING; deleted when done
	procs  map[int]*os.Process
	cancel map[int]bool
	all    bool
}

// Name implements Scheduler.
func (*LocalScheduler) Name() string { return "local" }

// Check implements Scheduler: bash runs the task script.
func (*LocalScheduler) Check(context.Context) error {
	if _, err := hosttool.Look("bash", "apt-get install -y bash"); err != nil {
		return fmt.Errorf("%w: %w", ErrScheduler, err)
	}
	return nil
}

// Submit implements Scheduler.
func (l *LocalScheduler) Submit(_ context.Context, j Job) (string, error) {
	l.mu.Lock()
	if l.jobs == nil {
		l.jobs = map[string]*localJob{}
	}
	l.n++
	id := "local-" + strconv.Itoa(l.n)
	lj := &localJob{state: map[int]string{}, procs: map[int]*os.Process{}, cancel: map[int]bool{}}
	for k := 0; k < j.Tasks; k++ {
		lj.state[k] = "PENDING"
	}
	l.jobs[id] = lj
	l.mu.Unlock()
	par := j.Parallel
	if par < 1 {
		par = DefaultLocalParallel()
	}
	sem := make(chan struct{}, par)
	go func() {
		for k := 0; k < j.Tasks; k++ {
			sem <- struct{}{}
			go func(k int) {
				defer func() { <-sem }()
				lj.run(j, k)
			}(k)
		}
	}()
	return id, nil
}

func (lj *localJob) run(j Job, k int) {
	lj.mu.Lock()
	if lj.all || lj.cancel[k] {
		delete(lj.state, k)
		lj.mu.Unlock()
		return
	}
	log, err := os.OpenFile(logPath(j.Dir, k), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		delete(lj.state, k)
		lj.mu.Unlock()
		return
	}
	defer log.Close()
	cmd := exec.Command("bash", j.Script)
	cmd.Dir = j.WorkDir
	cmd.Env = append(os.Environ(), "DSHAUDIT_BATCH_TASK="+strconv.Itoa(k))
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(log, "dshaudit batch: cannot start the task script: %v\n", err)
		delete(lj.state, k)
		lj.mu.Unlock()
		return
	}
	lj.state[k] = "RUNNING"
	lj.procs[k] = cmd.Process
	lj.mu.Unlock()
	_ = cmd.Wait()
	lj.mu.Lock()
	delete(lj.state, k)
	delete(lj.procs, k)
	lj.mu.Unlock()
}

// States implements Scheduler.
func (l *LocalScheduler) States(_ context.Context, id string) (map[int]TaskState, error) {
	l.mu.Lock()
	lj := l.jobs[id]
	l.mu.Unlock()
	out := map[int]TaskState{}
	if lj == nil {
		return out, nil
	}
	lj.mu.Lock()
	defer lj.mu.Unlock()
	for k, s := range lj.state {
		out[k] = TaskState{State: s}
	}
	return out, nil
}

// Cancel implements Scheduler: SIGTERM to the task's process group (the
// script and the dshaudit run it started, nothing else), SIGKILL after
// killWait if it is still there.
func (l *LocalScheduler) Cancel(_ context.Context, id string, index int) error {
	l.mu.Lock()
	lj := l.jobs[id]
	l.mu.Unlock()
	if lj == nil {
		return nil
	}
	lj.mu.Lock()
	var procs []*os.Process
	if index < 0 {
		lj.all = true
		for _, p := range lj.procs {
			procs = append(procs, p)
		}
		for k, s := range lj.state {
			if s == "PENDING" {
				delete(lj.state, k)
			}
		}
	} else {
		lj.cancel[index] = true
		if p := lj.procs[index]; p != nil {
			procs = append(procs, p)
		} else if lj.state[index] == "PENDING" {
			delete(lj.state, index)
		}
	}
	lj.mu.Unlock()
	for _, p := range procs {
		_ = syscall.Kill(-p.Pid, syscall.SIGTERM)
		pid := p.Pid
		time.AfterFunc(killWait, func() {
			lj.mu.Lock()
			defer lj.mu.Unlock()
			for _, q := range lj.procs {
				if q.Pid == pid {
					_ = syscall.Kill(-pid, syscall.SIGKILL)
				}
			}
		})
	}
	return nil
}

// killWait is how long a cancelled local task gets to clean up (remove
// its containers and temporary files) before SIGKILL: Slurm's KillWait
// default.
const killWait = 30 * time.Second
