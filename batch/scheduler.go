package batch

import "context"

// Job is one submission: Tasks tasks, task k running the task script with
// index k (docs/batch.md "The task").
type Job struct {
	// Dir is the attempt's state directory on shared storage: the task
	// script, one argument file per task, exit codes, logs.
	Dir string
	// Script is the task script; Tasks how many tasks.
	Script string
	Tasks  int
	// Parallel bounds how many tasks run at once (Slurm's %K); 0 leaves
	// it to the scheduler.
	Parallel int
	// WorkDir is the tasks' working directory.
	WorkDir string
}

// TaskState is the scheduler's own word for a task it still knows
// ("PENDING", "RUNNING", "COMPLETING" …) and its reason or node.
type TaskState struct {
	State  string
	Reason string
}

// Scheduler runs jobs: Slurm (SlurmScheduler) or processes on this
// machine (LocalScheduler). It reports what it knows of each task; what
// a task did is read from the exit code the task script wrote and from
// the bundle, never from the scheduler's accounting.
type Scheduler interface {
	// Name is "slurm", "local", ….
	Name() string
	// Check fails (ErrScheduler) when the scheduler cannot take jobs.
	Check(ctx context.Context) error
	// Submit starts a job and returns its id.
	Submit(ctx context.Context, j Job) (string, error)
	// States lists the tasks of job id the scheduler still holds, by index;
	// a task absent from the map has left the scheduler.
	States(ctx context.Context, id string) (map[int]TaskState, error)
	// Cancel stops one task (index ≥ 0) or the whole job (index < 0).
	Cancel(ctx context.Context, id string, index int) error
}
