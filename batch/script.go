package batch

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Exit codes a task can end with: `dshaudit run`'s, from
// cmd/dshaudit/exitcodes.go (a test there checks they are equal); the task
// script itself only adds ExitCouldNotRun for a failed pre-flight.
const (
	ExitOK          = 0
	ExitFindings    = 1
	ExitUsage       = 2
	ExitCouldNotRun = 3
	ExitInterrupted = 130
)

// taskScript is the program every task runs, on whatever node the scheduler
// chose: pre-flight (the container engine and dshaudit are there), then
// one ordinary `dshaudit run` with the task's arguments, whose first step
// is the image check by digest (exit 3 when the image is missing). The
// exit code goes to exit/<index> atomically, so it can be read after the
// scheduler has forgotten the task. A cancelled task (SIGTERM) waits for its
// run to clean up and writes no exit code: the batch sees it as
// cancelled. docs/batch.md "The task".
const taskScript = `#!/bin/bash
# dshaudit batch task: one array task = one ordinary dshaudit run.
set -u
i="${SLURM_ARRAY_TASK_ID:-${DSHAUDIT_BATCH_TASK:-}}"
state=%s
dshaudit=%s
engine=%s
node="$(hostname 2>/dev/null || echo unknown)"
finish() {
	printf '%%s\n' "$1" >"$state/exit/$i.tmp" && mv -f "$state/exit/$i.tmp" "$state/exit/$i"
	exit "$1"
}
preflight() {
	echo "dshaudit batch: task $i on node $node: pre-flight failed: $*" >&2
	finish 3
}
[[ "$i" =~ ^[0-9]+$ ]] || { echo "dshaudit batch: no task index (SLURM_ARRAY_TASK_ID or DSHAUDIT_BATCH_TASK)" >&2; exit 2; }
if [[ "$engine" == auto ]]; then
	command -v podman >/dev/null 2>&1 || command -v docker >/dev/null 2>&1 ||
		preflight "no container engine (podman or docker) on PATH ($PATH)"
else
	command -v "$engine" >/dev/null 2>&1 || preflight "container engine $engine not found on PATH ($PATH)"
fi
[[ -x "$dshaudit" ]] || preflight "dshaudit not found at $dshaudit (install it on every node, or put it on shared storage)"
mapfile -d '' args <"$state/args/$i" || preflight "cannot read $state/args/$i (is $state on shared storage?)"
echo "dshaudit batch: task $i on node $node: started $(date +%%s.%%N)" >"$state/logs/$i.start"
echo "dshaudit batch: task $i on node $node: dshaudit run ${args[*]}" >&2
# The run is waited for even when the engine cancels the task (SIGTERM):
# it removes its containers and temporary files first. A cancelled task
# writes no exit code.
"$dshaudit" run "${args[@]}" </dev/null &
child=$!
cancelled=
trap 'cancelled=1; kill -TERM "$child" 2>/dev/null' TERM INT
wait "$child"
code=$?
while kill -0 "$child" 2>/dev/null; do
	wait "$child"
	code=$?
done
[[ -z "$cancelled" ]] || exit 143
finish "$code"
`

// shellQuote quotes s for bash.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// writeJob writes an attempt's state directory: the task script and, for
// task k, args/k holding its `dshaudit run` arguments NUL-separated (any
// byte but NUL survives, no quoting).
func writeJob(dir, dshaudit, engineTool string, argv [][]string) (string, error) {
	for _, d := range []string{"args", "exit", "logs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return "", err
		}
	}
	for k, a := range argv {
		var b bytes.Buffer
		for _, s := range a {
			if strings.ContainsRune(s, 0) {
				return "", fmt.Errorf("task %d: argument %q holds a NUL byte", k, s)
			}
			b.WriteString(s)
			b.WriteByte(0)
		}
		if err := os.WriteFile(filepath.Join(dir, "args", strconv.Itoa(k)), b.Bytes(), 0o644); err != nil {
			return "", err
		}
	}
	script := filepath.Join(dir, "task.sh")
	text := fmt.Sprintf(taskScript, shellQuote(dir), shellQuote(dshaudit), shellQuote(engineTool))
	if err := os.WriteFile(script, []byte(text), 0o755); err != nil {
		return "", err
	}
	return script, nil
}

// readExit reads the exit code task k wrote, if it has.
func readExit(dir string, k int) (int, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "exit", strconv.Itoa(k)))
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, false
	}
	return n, true
}

// logPath is where task k's stdout and stderr go.
func logPath(dir string, k int) string {
	return filepath.Join(dir, "logs", strconv.Itoa(k)+".log")
}

// logTail returns the last non-empty line of task k's log that says
// why, for a failure message (bounded: the last 4 KiB).
func logTail(dir string, k int) string {
	f, err := os.Open(logPath(dir, k))
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(st.Size()-4096, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(buf)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "dshaudit") {
			return l
		}
	}
	return strings.TrimSpace(lines[len(lines)-1])
}
