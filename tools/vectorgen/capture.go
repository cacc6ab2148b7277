package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/runner"
)

// capture is one case directory of testdata/dsh-evidence.
type capture struct {
	dir    string
	plugin string // directory under plugins/
	// withW says the T1 command carried -w (every case but noflag).
	withW bool
}

// captureWindow is the window the vectors record: the capture observed
// T4 for 14 s before SIGKILL, which is alive through the standard's 12 s.
const captureWindow = 12 * time.Second

// earlyExitAlive is the liveness recorded for a T4 that exited on its
// own: the capture kept no duration, so the vectors state 2 s (any value
// below 12 s derives the same verdict).
const earlyExitAlive = 2 * time.Second

// stages reads the capture's stage files and returns the runs of the
// stages that DSHIO/T 20 11.2 executes: the capture ran every stage, the
// sequence stops at the first failure.
func (c capture) stages(evidence string, sub rules.Subject, entries []rules.Entry, start time.Time) ([]assemble.StageRun, error) {
	dir := filepath.Join(evidence, c.dir)
	var runs []assemble.StageRun
	var obs []*rules.Observation
	t := start
	for i, st := range rules.DynamicStages {
		n := strings.ToLower(string(st))
		exitB, err := os.ReadFile(filepath.Join(dir, n+".exit"))
		if os.IsNotExist(err) {
			break
		} else if err != nil {
			return nil, err
		}
		code, err := strconv.Atoi(strings.TrimSpace(string(exitB)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, n+".exit"), err)
		}
		stdout, err := os.ReadFile(filepath.Join(dir, n+".stdout"))
		if err != nil {
			return nil, err
		}
		stderr, err := os.ReadFile(filepath.Join(dir, n+".stderr"))
		if err != nil {
			return nil, err
		}
		r := assemble.StageRun{
			Stage: st, Argv: c.argv(st, sub), Network: assemble.StandardNetwork(st),
			StartedAt: t, EndedAt: t.Add(3 * time.Second), ExitCode: code,
			Stdout: stdout, Stderr: stderr, Merged: append(append([]byte{}, stdout...), stderr...),
		}
		if st == rules.T1 {
			r.ProfilePackageJSON, err = os.ReadFile(filepath.Join(dir, "t1.profile-package.json"))
			if err != nil {
				return nil, err
			}
		}
		if st == rules.T4 {
			r.Liveness = &rules.Liveness{Window: captureWindow, AliveFor: earlyExitAlive}
			if code == 137 {
				r.Liveness.AliveFor, r.Liveness.AliveAtEnd = captureWindow, true
			}
			r.EndedAt = t.Add(r.Liveness.AliveFor)
		}
		t = r.EndedAt.Add(time.Second)
		runs = append(runs, r)
		o := &rules.Observation{Stage: st, ExitCode: code, Stdout: stdout, Stderr: stderr, Merged: r.Merged, ProfilePackageJSON: r.ProfilePackageJSON, Liveness: r.Liveness}
		obs = append(obs, o)
		res, _ := rules.DeriveSequence(sub, entries, padded(obs), 12*time.Second, rules.DefaultLimits())
		if res.Stages[i].Status == rules.StageFailed {
			break
		}
	}
	return runs, nil
}

func padded(obs []*rules.Observation) []*rules.Observation {
	out := make([]*rules.Observation, len(rules.DynamicStages))
	copy(out, obs)
	return out
}

func (c capture) spec(sub rules.Subject) string {
	name, err := runner.TarballFileName(sub.Name, sub.Version)
	if err != nil {
		panic(err) // the fixture plugins' names are valid npm names
	}
	return "/pkgs/" + name
}

func (c capture) argv(st rules.Stage, sub rules.Subject) []string {
	switch st {
	case rules.T1:
		if c.withW {
			return []string{"dsh", "plugin", "--profile", "web", "add", "-w", c.spec(sub)}
		}
	case rules.T4:
		return []string{"dsh", "--profile", "web", "--no-open"}
	}
	return assemble.StandardArgv(st, c.spec(sub))
}

// plugin reads the fixture plugin's package.json and patch.
func (c capture) pluginFiles(evidence string) (pkg, patch []byte, sub rules.Subject, err error) {
	dir := filepath.Join(evidence, "plugins", c.plugin)
	if pkg, err = os.ReadFile(filepath.Join(dir, "package.json")); err != nil {
		return
	}
	if patch, err = os.ReadFile(filepath.Join(dir, "cordis.patch.yml")); err != nil {
		return
	}
	var meta struct{ Name, Version string }
	if err = json.Unmarshal(pkg, &meta); err != nil {
		return
	}
	sub = rules.Subject{Name: meta.Name, Version: meta.Version}
	return
}
