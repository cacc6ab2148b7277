package rules

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func passingObs() []*Observation {
	t1 := withProfile(obs(T1, 0, helloAddOut, ""), helloProfile)
	t2 := obs(T2, 0, helloList, "")
	t3 := obs(T3, 0, "- id: hello-dsh\n  name: hello-dsh-plugin\n", "")
	t4 := boot(137, marker, "", true, 14*time.Second)
	return []*Observation{&t1, &t2, &t3, &t4}
}

func statuses(r SequenceResult) []StageStatus {
	var s []StageStatus
	for _, x := range r.Stages {
		s = append(s, x.Status)
	}
	return s
}

func TestDeriveSequence(t *testing.T) {
	r, err := DeriveSequence(helloSub, helloEntries, passingObs(), 0, Limits{})
	if err != nil || r.Verdict != Pass {
		t.Fatalf("all passing: %v %s %v", err, r.Verdict, statuses(r))
	}

	// Evidence exists for every later stage, some of it passing and some
	// failing: none of it may be read once T2 failed.
	o := passingObs()
	bad := obs(T2, 0, "dependencies:\nother 1.0.0\n", "")
	o[1] = &bad
	t4 := boot(1, "", "Error: boom\n", false, 0)
	o[3] = &t4
	r, err = DeriveSequence(helloSub, helloEntries, o, 0, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []StageStatus{StagePassed, StageFailed, StageNotExecuted, StageNotExecuted}
	if r.Verdict != InstallFailed || !equalStatuses(statuses(r), want) {
		t.Errorf("got %s %v, want install_failed %v", r.Verdict, statuses(r), want)
	}
	for _, s := range r.Stages[2:] {
		if s.Verdict != "" || s.FirstError != "" {
			t.Errorf("%s not executed but has verdict %q first_error %q", s.Stage, s.Verdict, s.FirstError)
		}
	}

	// The failing stage's verdict is the sequence verdict.
	o = passingObs()
	o[2] = &Observation{Stage: T3, ExitCode: 0, Stdout: []byte("- id: x\n  name: y\n")}
	if r, _ := DeriveSequence(helloSub, helloEntries, o, 0, Limits{}); r.Verdict != InstallsButNotRegistered {
		t.Errorf("T3 failure gives %s", r.Verdict)
	}
	o = passingObs()
	o[3].Liveness.AliveFor = time.Second
	if r, _ := DeriveSequence(helloSub, helloEntries, o, 0, Limits{}); r.Verdict != BootFailed {
		t.Errorf("T4 failure gives %s", r.Verdict)
	}
	// The window is passed through to T4.
	if r, _ := DeriveSequence(helloSub, helloEntries, passingObs(), 15*time.Second, Limits{}); r.Verdict != BootFailed {
		t.Errorf("15 s window over a 14 s observation gives %s", r.Verdict)
	}

	// No observation for T1 and stages after it: a plain not-executed T1 is
	// impossible in a dynamic run.
	if _, err := DeriveSequence(helloSub, helloEntries, nil, 0, Limits{}); !errors.Is(err, ErrMissingObservation) {
		t.Errorf("no observations: err %v", err)
	}
}

func TestDeriveSequenceMissingEvidence(t *testing.T) {
	o := passingObs()
	o[2] = nil // T2 passed, T3 has no observation
	r, err := DeriveSequence(helloSub, helloEntries, o, 0, Limits{})
	if !errors.Is(err, ErrMissingObservation) {
		t.Fatalf("err %v, want ErrMissingObservation", err)
	}
	if r.Verdict != "" {
		t.Errorf("verdict %q despite missing evidence", r.Verdict)
	}
	want := []StageStatus{StagePassed, StagePassed, StageNotExecuted, StageNotExecuted}
	if !equalStatuses(statuses(r), want) {
		t.Errorf("statuses %v, want %v", statuses(r), want)
	}
	// Short slices mean the tail was not executed.
	if _, err := DeriveSequence(helloSub, helloEntries, passingObs()[:3], 0, Limits{}); !errors.Is(err, ErrMissingObservation) {
		t.Errorf("3 observations, T3 passed: err %v", err)
	}
	// Missing later evidence after a failure is fine.
	o = passingObs()
	o[0].ExitCode = 1
	o[1], o[2], o[3] = nil, nil, nil
	if r, err := DeriveSequence(helloSub, helloEntries, o[:1], 0, Limits{}); err != nil || r.Verdict != InstallFailed {
		t.Errorf("T1 failed, rest absent: %v %s", err, r.Verdict)
	}
}

func TestDeriveSequenceStageMismatch(t *testing.T) {
	o := passingObs()
	o[1], o[2] = o[2], o[1]
	if _, err := DeriveSequence(helloSub, helloEntries, o, 0, Limits{}); !errors.Is(err, ErrStageMismatch) {
		t.Errorf("swapped observations: err %v", err)
	}
	if _, err := DeriveSequence(helloSub, helloEntries, append(passingObs(), passingObs()[0]), 0, Limits{}); err == nil {
		t.Error("five observations accepted")
	}
}

func equalStatuses(a, b []StageStatus) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestStability(t *testing.T) {
	tests := []struct {
		in       []Verdict
		want     Verdict
		unstable bool
	}{
		{nil, "", false},
		{[]Verdict{Pass}, Pass, false},
		{[]Verdict{Pass, Pass}, Pass, false},
		{[]Verdict{BootFailed, BootFailed, BootFailed}, BootFailed, false},
		{[]Verdict{Pass, BootFailed}, Unstable, true},
		{[]Verdict{InstallFailed, InstallFailed, Pass}, Unstable, true},
	}
	for _, tt := range tests {
		got, unstable := Stability(tt.in)
		if got != tt.want || unstable != tt.unstable {
			t.Errorf("Stability(%v) = %s %v, want %s %v", tt.in, got, unstable, tt.want, tt.unstable)
		}
	}
}

// Two real repetitions that differ: one boots, one exits.
func TestStabilityOfEvidence(t *testing.T) {
	var vs []Verdict
	for _, c := range []string{"hello", "exits"} {
		lc := loadCase(t, c, c)
		lc.obs[3].Stage = T4
		r, err := DeriveSequence(helloSub, helloEntries, []*Observation{
			ptr(withProfile(obs(T1, 0, helloAddOut, ""), helloProfile)), ptr(obs(T2, 0, helloList, "")),
			ptr(obs(T3, 0, "- id: hello-dsh\n  name: hello-dsh-plugin\n", "")), lc.obs[3]}, 0, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, r.Verdict)
	}
	if v, u := Stability(vs); v != Unstable || !u {
		t.Errorf("pass then boot_failed: %s %v", v, u)
	}
}

func ptr(o Observation) *Observation { return &o }

// DeriveRepetitions gives each repetition exactly what DeriveSequence
// gives it, whether a stage's observation repeats an earlier one or not.
func TestDeriveRepetitionsEqualsSequence(t *testing.T) {
	changed := passingObs()
	changed[2] = ptr(obs(T3, 0, "- id: other\n  name: other\n", ""))
	reps := [][]*Observation{passingObs(), passingObs(), changed, passingObs()[:2]}
	got, errs := DeriveRepetitions(helloSub, helloEntries, reps, 0, Limits{})
	if len(got) != len(reps) || len(errs) != len(reps) {
		t.Fatalf("%d results, %d errors for %d repetitions", len(got), len(errs), len(reps))
	}
	for i, o := range reps {
		want, werr := DeriveSequence(helloSub, helloEntries, o, 0, Limits{})
		if !reflect.DeepEqual(got[i], want) || (werr == nil) != (errs[i] == nil) {
			t.Errorf("repetition %d: got %+v (%v), want %+v (%v)", i, got[i], errs[i], want, werr)
		}
	}
	if got[0].Verdict != Pass || got[2].Verdict != InstallsButNotRegistered {
		t.Errorf("verdicts %s, %s", got[0].Verdict, got[2].Verdict)
	}
	// A repeated result is a copy: changing it leaves the other alone.
	got[1].Stages[2].Reasons[0] = "x"
	if got[0].Stages[2].Reasons[0] == "x" {
		t.Error("repetitions share a reasons slice")
	}
}

// A memo of R repetitions whose observations all differ looks each one
// up once, not against every earlier one: an author controls R (up to
// the bundle's entry limit) and how alike the outputs are (equal length,
// differing in the last byte), so comparing each stage's observation
// with every earlier one was R²/2 comparisons over the whole output
// (issue 48). Allocations per repetition stay flat from R to 4R.
func TestDeriveRepetitionsComparesEachOnce(t *testing.T) {
	build := func(r int) [][]*Observation {
		reps := make([][]*Observation, r)
		for i := range reps {
			o := obs(T1, 1, fmt.Sprintf("%s %08d\n", strings.Repeat("x", 2000), i), "")
			reps[i] = []*Observation{&o}
		}
		return reps
	}
	perRep := func(r int) float64 {
		reps := build(r)
		var failed int
		allocs := testing.AllocsPerRun(1, func() {
			res, _ := DeriveRepetitions(helloSub, helloEntries, reps, 0, Limits{})
			failed = 0
			for _, s := range res {
				if s.Stages[0].Status == StageFailed {
					failed++
				}
			}
		})
		if failed != r {
			t.Fatalf("%d repetitions, %d with T1 failed", r, failed)
		}
		return allocs / float64(r)
	}
	a, b := perRep(200), perRep(800)
	t.Logf("200 repetitions: %.0f allocations each; 800: %.0f", a, b)
	if b > 1.5*a {
		t.Errorf("%.0f allocations per repetition for 800 repetitions, %.0f for 200: each observation is compared with every earlier one", b, a)
	}
}

// An output that every repetition's stage names (a manifest can name one
// evidence file in each) is hashed once, not once per repetition: 2,000
// repetitions naming one 8 MiB output took 3.5 s hashing it each time
// (issue 48).
func TestStageMemoHashesSharedOutputOnce(t *testing.T) {
	out := []byte(strings.Repeat("x", 4096))
	o := Observation{Stage: T1, ExitCode: 1, Stdout: out, Merged: out}
	memo := &stageMemo{}
	for range 100 {
		if _, err := deriveSequence(helloSub, helloEntries, []*Observation{&o}, 0, Limits{}, memo); err != nil {
			t.Fatal(err)
		}
	}
	if len(memo.sums) != 2 { // the output, and the empty stderr and profile package.json
		t.Errorf("%d outputs hashed for 100 repetitions naming the same two: each is hashed again", len(memo.sums))
	}
	if n := len(memo.seen); n != 1 {
		t.Errorf("%d memo keys for one observation", n)
	}
}
