package batch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"github.com/dshaudit/dshaudit/internal/hosttool"
)

// ErrScheduler marks a scheduler that cannot take or report jobs: a missing
// tool (sbatch, squeue, scancel, scontrol), an unreachable slurmctld.
// dshaudit batch exits 3 on it.
var ErrScheduler = errors.New("batch engine unavailable")

// SlurmScheduler submits a job as one Slurm array job (sbatch --array=0-N%K -c 1
// --mem=…), one task per spec, and reads task states with squeue's plain
// --format output (its --json schema differs between Slurm versions).
// It needs no slurmdbd: sacct is never asked.
type SlurmScheduler struct {
	// Mem is each task's --mem (default DefaultSlurmMem).
	Mem string
	// CPUs is each task's -c (default 1: a run's containers get one CPU).
	CPUs int
	// Extra are further sbatch arguments (--partition=…, --account=…).
	Extra []string
	// JobName is sbatch --job-name (default "dshaudit-batch").
	JobName string
	// Run runs a Slurm client command and returns its stdout (exec in
	// production; tests may replace it).
	Run func(ctx context.Context, name string, args ...string) ([]byte, error)
}

// DefaultSlurmMem is a task's --mem: the 768 MiB every container is
// limited to (DSHIO/T 21 5.2), plus the runner, podman and conmon.
const DefaultSlurmMem = "1200M"

// Name implements Scheduler.
func (*SlurmScheduler) Name() string { return "slurm" }

func (s *SlurmScheduler) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	if s.Run != nil {
		return s.Run(ctx, name, args...)
	}
	if _, err := hosttool.Look(name, "install slurm-client; scripts/setup-slurm.sh does"); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrScheduler, err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = strings.TrimSpace(stdout.String())
		}
		return stdout.Bytes(), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, msg)
	}
	return stdout.Bytes(), nil
}

// Check implements Scheduler: slurmctld answers scontrol ping.
func (s *SlurmScheduler) Check(ctx context.Context) error {
	out, err := s.run(ctx, "scontrol", "ping")
	if err != nil {
		if errors.Is(err, ErrScheduler) {
			return err
		}
		return fmt.Errorf("%w: slurmctld unreachable: %w", ErrScheduler, err)
	}
	if !strings.Contains(string(out), "is UP") {
		return fmt.Errorf("%w: slurmctld unreachable: scontrol ping: %s", ErrScheduler, strings.TrimSpace(string(out)))
	}
	return nil
}

// SbatchArgs are the sbatch arguments for j.
func (s *SlurmScheduler) SbatchArgs(j Job) []string {
	array := fmt.Sprintf("0-%d", j.Tasks-1)
	if j.Parallel > 0 {
		array += "%" + strconv.Itoa(j.Parallel)
	}
	mem, cpus, name := s.Mem, s.CPUs, s.JobName
	if mem == "" {
		mem = DefaultSlurmMem
	}
	if cpus < 1 {
		cpus = 1
	}
	if name == "" {
		name = "dshaudit-batch"
	}
	args := []string{"--parsable", "--array=" + array, "-c", strconv.Itoa(cpus), "--mem=" + mem,
		"--job-name=" + name, "--output=" + j.Dir + "/logs/%a.log", "--chdir=" + j.WorkDir}
	args = append(args, s.Extra...)
	return append(args, j.Script)
}

// Submit implements Scheduler.
func (s *SlurmScheduler) Submit(ctx context.Context, j Job) (string, error) {
	out, err := s.run(ctx, "sbatch", s.SbatchArgs(j)...)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrScheduler, err)
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	if _, err := strconv.Atoi(id); err != nil {
		return "", fmt.Errorf("%w: sbatch --parsable printed %q, not a job id", ErrScheduler, out)
	}
	return id, nil
}

// States implements Scheduler: squeue -r lists each array task on its own
// line; a job Slurm no longer knows gives no tasks.
func (s *SlurmScheduler) States(ctx context.Context, id string) (map[int]TaskState, error) {
	out, err := s.run(ctx, "squeue", "-h", "-r", "-j", id, "-o", "%K|%T|%R")
	if err != nil {
		if strings.Contains(err.Error(), "Invalid job id") {
			return map[int]TaskState{}, nil
		}
		return nil, fmt.Errorf("%w: %w", ErrScheduler, err)
	}
	return ParseSqueue(out)
}

// ParseSqueue parses `squeue -h -r -o '%K|%T|%R'`.
func ParseSqueue(out []byte) (map[int]TaskState, error) {
	m := map[int]TaskState{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		f := strings.SplitN(line, "|", 3)
		if len(f) != 3 {
			return nil, fmt.Errorf("%w: squeue line %q: want 3 fields", ErrScheduler, line)
		}
		k, err := strconv.Atoi(f[0])
		if err != nil {
			return nil, fmt.Errorf("%w: squeue line %q: array index %q", ErrScheduler, line, f[0])
		}
		m[k] = TaskState{State: f[1], Reason: f[2]}
	}
	return m, nil
}

// Cancel implements Scheduler: scancel JOB or JOB_INDEX. Slurm sends SIGTERM
// to the task script and the dshaudit run under it, then SIGKILL after
// KillWait.
func (s *SlurmScheduler) Cancel(ctx context.Context, id string, index int) error {
	target := id
	if index >= 0 {
		target += "_" + strconv.Itoa(index)
	}
	if _, err := s.run(ctx, "scancel", target); err != nil {
		return fmt.Errorf("%w: %w", ErrScheduler, err)
	}
	return nil
}
