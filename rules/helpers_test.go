package rules

import (
	"strings"
	"testing"
)

var helloSub = Subject{Name: "hello-dsh-plugin", Version: "1.0.0"}

const helloAddOut = "Progress: resolved 1, reused 0, downloaded 1, added 1, done\n\ndependencies:\n+ hello-dsh-plugin 1.0.0\n\nDone in 1.1s using pnpm v9.15.9\n"

const helloProfile = `{"name":"dsh-profile-web","dependencies":{"hello-dsh-plugin":"file:/pkgs/hello-dsh-plugin-1.0.0.tgz"}}`

const emptyProfile = `{"name":"dsh-profile-web","dependencies":{}}`

func obs(stage Stage, exit int, stdout, stderr string) Observation {
	return Observation{Stage: stage, ExitCode: exit, Stdout: []byte(stdout), Stderr: []byte(stderr),
		Merged: []byte(stdout + stderr)}
}

// checkResult compares a stage result with the wanted status, verdict and,
// when wantFE is not "", the first_error (a prefix when it ends with "*").
func checkResult(t *testing.T, r StageResult, status StageStatus, v Verdict, wantFE string) {
	t.Helper()
	if r.Status != status || r.Verdict != v {
		t.Fatalf("got %s %q, want %s %q; reasons %q", r.Status, r.Verdict, status, v, r.Reasons)
	}
	if len(r.Reasons) == 0 {
		t.Errorf("no reasons recorded")
	}
	if status != StageFailed {
		if r.FirstError != "" {
			t.Errorf("first_error %q on a %s stage", r.FirstError, status)
		}
		return
	}
	if r.FirstError == "" {
		t.Errorf("failed stage without first_error")
	}
	if wantFE == "" {
		return
	}
	if p, ok := strings.CutSuffix(wantFE, "*"); ok {
		if !strings.HasPrefix(r.FirstError, p) {
			t.Errorf("first_error %q, want prefix %q", r.FirstError, p)
		}
	} else if r.FirstError != wantFE {
		t.Errorf("first_error %q, want %q", r.FirstError, wantFE)
	}
}

func hasReason(r StageResult, sub string) bool {
	for _, x := range r.Reasons {
		if strings.Contains(x, sub) {
			return true
		}
	}
	return false
}
