package batch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// StateDirName is the directory in the output directory that holds each
// attempt's task script, arguments, exit codes and logs. verify DIR finds
// no bundle there.
const StateDirName = ".dshaudit-batch"

// ErrBusy marks an output directory another batch is using.
var ErrBusy = errors.New("output directory in use")

// Defaults.
const (
	DefaultRetries = 2
	DefaultBackoff = 30 * time.Second
	DefaultPoll    = 2 * time.Second
	// maxBackoff caps the doubling backoff.
	maxBackoff = 10 * time.Minute
	// lostAfter is how many polls a task may be missing from the scheduler
	// without an exit code before it counts as cancelled or lost (shared
	// storage may show the exit code a little after the scheduler forgot
	// the task).
	lostAfter = 3
	// cancelWait bounds the wait for cancelled tasks to leave the scheduler.
	cancelWait = killWait + 30*time.Second
)

// Options configure Run.
type Options struct {
	// Dir is the output directory (absolute, on storage every node
	// shares); WorkDir the tasks' working directory.
	Dir       string
	WorkDir   string
	Scheduler Scheduler
	// Parallel bounds the tasks running at once (0: the scheduler decides).
	Parallel int
	// Retries is how many more attempts a failed task gets; Backoff the
	// wait before the first retry, doubled for each further one.
	Retries int
	Backoff time.Duration
	// Poll is how often the scheduler and the exit codes are read.
	Poll time.Duration
	// Dshaudit is the dshaudit executable the tasks run; EngineTool the
	// container engine the pre-flight looks for ("auto": podman or
	// docker).
	Dshaudit   string
	EngineTool string
	// TaskArgs gives a task's `dshaudit run` arguments.
	TaskArgs func(Task) []string
	// Check verifies a task's bundle (see BundleChecker) and returns its
	// re-derived verdict.
	Check func(ctx context.Context, t Task) (verdict string, err error)
	// Progress receives one line per event (nil: none).
	Progress func(line string)
}

// Run runs every task whose bundle does not already verify, retrying
// failed ones, and returns one outcome per task in order. It returns an
// error only when it had to stop: the context was cancelled (the running
// job is cancelled first and its tasks waited for), the scheduler failed, or
// the state directory could not be written.
func Run(ctx context.Context, tasks []Task, o Options) ([]Outcome, error) {
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	begin := time.Now()
	say := func(format string, a ...any) {
		if o.Progress != nil {
			o.Progress(fmt.Sprintf("[%6.1fs] ", time.Since(begin).Seconds()) + fmt.Sprintf(format, a...))
		}
	}
	root := filepath.Join(o.Dir, StateDirName)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockDir(root)
	if err != nil {
		return nil, err
	}
	defer unlock()
	removeTemps(tasks)

	outs := make([]Outcome, len(tasks))
	var todo []int
	for i, t := range tasks {
		outs[i] = Outcome{Task: t, Exit: -1}
		if _, err := os.Stat(t.Bundle); err == nil {
			v, err := o.Check(ctx, t)
			if err == nil {
				outs[i].State, outs[i].Verdict = StateSkipped, v
				continue
			}
			say("%s: the bundle there does not verify (%v): running it again", label(t), err)
		}
		todo = append(todo, i)
	}
	say("plan: %d tasks, %d done earlier (bundle verifies), %d to run on %s", len(tasks), len(tasks)-len(todo), len(todo), o.Scheduler.Name())

	for attempt := 1; len(todo) > 0; attempt++ {
		if attempt > 1 {
			if attempt-1 > o.Retries {
				break
			}
			d := min(o.Backoff<<(attempt-2), maxBackoff)
			say("retry %d of %d for %d task(s) in %s", attempt-1, o.Retries, len(todo), d)
			select {
			case <-ctx.Done():
				markCancelled(outs, todo)
				return outs, ctx.Err()
			case <-time.After(d):
			}
		}
		a := &submission{o: o, say: say, tasks: tasks, outs: outs, todo: todo, n: attempt}
		retry, err := a.run(ctx, root)
		if err != nil {
			return outs, err
		}
		todo = retry
	}
	return outs, nil
}

// submission is one attempt: a job of the tasks still to do.
type submission struct {
	o     Options
	say   func(string, ...any)
	tasks []Task
	outs  []Outcome
	todo  []int // task indexes; array index k runs tasks[todo[k]]
	n     int
	id    string // the scheduler's job id
}

func (a *submission) run(ctx context.Context, root string) (retry []int, err error) {
	dir := filepath.Join(root, time.Now().UTC().Format("20060102T150405.000Z")+"-attempt"+strconv.Itoa(a.n))
	argv := make([][]string, len(a.todo))
	for k, i := range a.todo {
		argv[k] = a.o.TaskArgs(a.tasks[i])
	}
	script, err := writeJob(dir, a.o.Dshaudit, a.o.EngineTool, argv)
	if err != nil {
		return nil, fmt.Errorf("write the job's state directory: %w", err)
	}
	if err := ctx.Err(); err != nil {
		markCancelled(a.outs, a.todo)
		return nil, err
	}
	// A submission is not interrupted half-way: the scheduler may have
	// accepted it, and then it must be cancelled by id.
	_ = os.WriteFile(filepath.Join(dir, "submitted"), []byte(fmt.Sprintf("%.3f\n", float64(time.Now().UnixNano())/1e9)), 0o644)
	id, err := a.o.Scheduler.Submit(context.WithoutCancel(ctx), Job{Dir: dir, Script: script, Tasks: len(a.todo), Parallel: a.o.Parallel, WorkDir: a.o.WorkDir})
	if err != nil {
		return nil, err
	}
	a.id = id
	_ = os.WriteFile(filepath.Join(dir, "job-id"), []byte(id+"\n"), 0o644)
	a.say("%s: submitted job %s: %d task(s), attempt %d (state and logs: %s)", a.o.Scheduler.Name(), id, len(a.todo), a.n, dir)

	last := make([]string, len(a.todo))
	missing := make([]int, len(a.todo))
	ended := make([]bool, len(a.todo))
	left := len(a.todo)
	started := make([]time.Time, len(a.todo))
	counts := ""
	tick := time.NewTicker(a.o.Poll)
	defer tick.Stop()
	for left > 0 {
		select {
		case <-ctx.Done():
			a.cancel(id, dir, ended)
			return nil, ctx.Err()
		case <-tick.C:
		}
		states, err := a.o.Scheduler.States(ctx, id)
		if err != nil {
			if ctx.Err() != nil {
				continue
			}
			a.say("%s: cannot read job %s's state (will try again): %v", a.o.Scheduler.Name(), id, err)
			continue
		}
		queued, running := 0, 0
		for k := range a.todo {
			if ended[k] {
				continue
			}
			t := a.tasks[a.todo[k]]
			if code, ok := readExit(dir, k); ok {
				ended[k], left = true, left-1
				if a.classify(ctx, k, code, dir, time.Since(started[k])) {
					retry = append(retry, a.todo[k])
				}
				continue
			}
			st, in := states[k]
			if !in {
				missing[k]++
				if missing[k] >= lostAfter {
					ended[k], left = true, left-1
					if a.classify(ctx, k, -1, dir, time.Since(started[k])) {
						retry = append(retry, a.todo[k])
					}
				}
				continue
			}
			missing[k] = 0
			if st.State == "PENDING" {
				queued++
			} else {
				running++
			}
			now := st.State
			switch {
			case st.Reason == "" || st.Reason == "None" || st.Reason == "(None)":
			case strings.HasPrefix(st.Reason, "("):
				now += " " + st.Reason
			default:
				now += " (" + st.Reason + ")"
			}
			if now != last[k] {
				if started[k].IsZero() && st.State != "PENDING" {
					started[k] = time.Now()
				}
				a.say("task %s_%d %s: %s", id, k, label(t), now)
				last[k] = now
			}
		}
		done, failed := 0, 0
		for k, i := range a.todo {
			if ended[k] {
				if a.outs[i].State == StateFailed {
					failed++
				} else {
					done++
				}
			}
		}
		if c := fmt.Sprintf("queued %d, running %d, done %d, failed %d", queued, running, done, failed); c != counts {
			a.say("%s job %s: %s", a.o.Scheduler.Name(), id, c)
			counts = c
		}
	}
	return retry, nil
}

// classify records how task k ended and says whether to retry it.
func (a *submission) classify(ctx context.Context, k, code int, dir string, took time.Duration) (retry bool) {
	o := &a.outs[a.todo[k]]
	o.Attempts++
	o.Exit = code
	o.Verdict, o.Why = "", ""
	_, statErr := os.Stat(o.Bundle)
	hasBundle := statErr == nil
	switch {
	case (code == ExitOK || code == ExitFindings) && hasBundle:
		v, err := a.o.Check(ctx, o.Task)
		if err != nil {
			o.State, o.Why, retry = StateFailed, "bundle does not verify: "+err.Error(), true
			break
		}
		o.State, o.Verdict = StateDone, v
	case code == ExitFindings:
		o.State, o.Why = StateUnresolvable, "no bundle: "+logTail(dir, k)
	case code == -1:
		o.State, o.Why, retry = StateFailed, "cancelled or lost: the task left "+a.o.Scheduler.Name()+" without an exit code", true
	case code == ExitOK:
		o.State, o.Why, retry = StateFailed, "exit 0 but no bundle at "+o.Bundle, true
	default:
		o.State, o.Why, retry = StateFailed, fmt.Sprintf("exit %d: %s", code, logTail(dir, k)), retriable(code)
	}
	switch o.State {
	case StateDone:
		a.say("task %s_%d %s: done, %s (exit %d, %.0fs)", a.id, k, label(o.Task), o.Verdict, code, took.Seconds())
	default:
		a.say("task %s_%d %s: %s: %q (log: %s)", a.id, k, label(o.Task), o.State, o.Why, logPath(dir, k))
	}
	return retry
}

// cancel stops the job, waits until its tasks have left the scheduler (so
// every dshaudit run under it has removed its containers and temporary
// files or been killed), then removes temporary bundle files a killed
// run could not.
func (a *submission) cancel(id, dir string, ended []bool) {
	a.say("interrupted: cancelling %s job %s", a.o.Scheduler.Name(), id)
	cctx, stop := context.WithTimeout(context.Background(), cancelWait)
	defer stop()
	if err := a.o.Scheduler.Cancel(cctx, id, -1); err != nil {
		a.say("cancel job %s: %v", id, err)
	}
	for cctx.Err() == nil {
		st, err := a.o.Scheduler.States(cctx, id)
		if err == nil && len(st) == 0 {
			break
		}
		time.Sleep(a.o.Poll / 2)
	}
	var left []int
	for k, i := range a.todo {
		if !ended[k] {
			left = append(left, i)
		}
	}
	markCancelled(a.outs, left)
	var ts []Task
	for _, i := range a.todo {
		ts = append(ts, a.tasks[i])
	}
	removeTemps(ts)
	a.say("job %s cancelled; no bundle half-written", id)
}

func markCancelled(outs []Outcome, idx []int) {
	for _, i := range idx {
		if !outs[i].Finished() {
			outs[i].State, outs[i].Why = StateCancelled, "interrupted before the task ended"
		}
	}
}

// removeTemps removes the temporary files a killed writer leaves beside
// a task's bundle (bundle.WriteFileAtomicContext names them
// ".<name>.tmp-*"). Only called with the directory's lock held and no
// task of ours running.
func removeTemps(tasks []Task) {
	for _, t := range tasks {
		m, _ := filepath.Glob(filepath.Join(filepath.Dir(t.Bundle), "."+globEscape(filepath.Base(t.Bundle))+".tmp-*"))
		for _, p := range m {
			_ = os.Remove(p)
		}
	}
}

func globEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	return r.Replace(s)
}

// lockDir takes an exclusive lock on root/lock so two batches never write
// into one directory at once.
func lockDir(root string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(root, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: another dshaudit batch holds %s: %w", ErrBusy, f.Name(), err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

func label(t Task) string {
	if t.Package != "" && t.Package != t.Spec {
		return fmt.Sprintf("%q (%s)", t.Spec, t.Package)
	}
	return fmt.Sprintf("%q", t.Spec)
}
