package rules

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"reflect"
	"slices"
	"time"
)

// DeriveSequence derives one repetition of T1–T4 (DSHIO/T 20 11.1, 11.2).
// obs[i] is the observation of DynamicStages[i], or nil when that stage
// was not executed. Stages are derived in order; after the first failed
// stage every later stage is not_executed, whatever evidence exists for it
// (that evidence is never read). The verdict is the failed stage's verdict,
// or pass when T4 passed.
//
// A stage that had to run (T1, or any stage whose predecessor passed) with
// no observation is an error wrapping ErrMissingObservation; an observation
// labelled with another stage wraps ErrStageMismatch. On error the result
// still lists every stage, the one without evidence as not_executed with a
// reason, and its Verdict is empty: no verdict can be derived. lim bounds
// what the stage rules parse (DeriveT3).
// SPEC.md "Propagation and stability".
func DeriveSequence(sub Subject, entries []Entry, obs []*Observation, window time.Duration, lim Limits) (SequenceResult, error) {
	return deriveSequence(sub, entries, obs, window, lim, nil)
}

// DeriveRepetitions derives every repetition with DeriveSequence: reps[i]
// is the observations of repetition i. A stage whose observation is the
// same, byte for byte, as the same stage's in an earlier repetition gets
// that result again instead of being derived twice: the rules are pure
// functions, so the result is identical, and a dump repeated in every
// repetition is parsed once.
func DeriveRepetitions(sub Subject, entries []Entry, reps [][]*Observation, window time.Duration, lim Limits) ([]SequenceResult, []error) {
	memo := &stageMemo{}
	results := make([]SequenceResult, len(reps))
	errs := make([]error, len(reps))
	for i, obs := range reps {
		results[i], errs[i] = deriveSequence(sub, entries, obs, window, lim, memo)
	}
	return results, errs
}

// stageMemo holds the stage results derived so far, with their inputs,
// indexed by a hash of the stage and its observation: an observation is
// compared (sameObservation) only with those of the same hash, not with
// every earlier one. An author controls the number of repetitions and
// how alike their outputs are, so comparing with each earlier one cost
// repetitions² comparisons, each over a whole output (issue 48). Each
// output is hashed once however many stages refer to it (sums, by its
// bytes' address and length): a manifest can name one evidence file in
// every repetition.
type stageMemo struct {
	seed maphash.Seed
	seen map[uint64][]memoEntry
	sums map[outputID]uint64
}

type memoEntry struct {
	s   Stage
	o   Observation
	res StageResult
}

// outputID names an output's bytes by where they are.
type outputID struct {
	p *byte
	n int
}

func (m *stageMemo) derive(s Stage, sub Subject, entries []Entry, o Observation, window time.Duration, lim Limits) StageResult {
	if m == nil {
		return deriveStage(s, sub, entries, o, window, lim)
	}
	if m.seen == nil {
		m.seed, m.seen, m.sums = maphash.MakeSeed(), map[uint64][]memoEntry{}, map[outputID]uint64{}
	}
	k := m.key(s, o)
	for _, e := range m.seen[k] {
		if e.s == s && sameObservation(e.o, o) {
			return cloneResult(e.res)
		}
	}
	r := deriveStage(s, sub, entries, o, window, lim)
	m.seen[k] = append(m.seen[k], memoEntry{s, o, r})
	return r
}

// key hashes the stage, the exit code and the sums of the observation's
// outputs; equal observations hash alike, and sameObservation decides
// among those that do (a field it compares and key leaves out only adds
// candidates, and a sum kept for bytes since changed only a miss).
func (m *stageMemo) key(s Stage, o Observation) uint64 {
	var b [8 * 5]byte
	binary.LittleEndian.PutUint64(b[:], uint64(o.ExitCode))
	for i, out := range [][]byte{o.Stdout, o.Stderr, o.Merged, o.ProfilePackageJSON} {
		id := outputID{n: len(out)}
		if len(out) > 0 {
			id.p = &out[0]
		}
		sum, ok := m.sums[id]
		if !ok {
			sum = maphash.Bytes(m.seed, out)
			m.sums[id] = sum
		}
		binary.LittleEndian.PutUint64(b[8*(i+1):], sum)
	}
	return maphash.Bytes(m.seed, append([]byte(s), b[:]...))
}

// sameObservation compares every field, those added later included
// (reflect.DeepEqual compares byte slices by content, as bytes.Equal).
func sameObservation(a, b Observation) bool {
	return reflect.DeepEqual(a, b)
}

func cloneResult(r StageResult) StageResult {
	r.Reasons = slices.Clone(r.Reasons)
	return r
}

func deriveSequence(sub Subject, entries []Entry, obs []*Observation, window time.Duration, lim Limits, memo *stageMemo) (SequenceResult, error) {
	var errs []error
	if len(obs) > len(DynamicStages) {
		errs = append(errs, fmt.Errorf("%d observations for %d stages", len(obs), len(DynamicStages)))
	}
	for i, o := range obs {
		if i < len(DynamicStages) && o != nil && o.Stage != "" && o.Stage != DynamicStages[i] {
			errs = append(errs, fmt.Errorf("observation %d: %w: labelled %q, want %q", i, ErrStageMismatch, o.Stage, DynamicStages[i]))
		}
	}
	res := SequenceResult{Stages: make([]StageResult, 0, len(DynamicStages))}
	var failedAt *StageResult
	missing := false
	for i, s := range DynamicStages {
		if failedAt != nil {
			res.Stages = append(res.Stages, notExecuted(s, fmt.Sprintf("not executed: %s failed with %s (DSHIO/T 20 11.2)", failedAt.Stage, failedAt.Verdict)))
			continue
		}
		if missing {
			res.Stages = append(res.Stages, notExecuted(s, "not derived: an earlier stage has no observation"))
			continue
		}
		var o *Observation
		if i < len(obs) {
			o = obs[i]
		}
		if o == nil {
			missing = true
			errs = append(errs, fmt.Errorf("stage %s: %w: it had to run because %s", s, ErrMissingObservation, predecessorText(i)))
			res.Stages = append(res.Stages, notExecuted(s, "no observation although the stage had to run"))
			continue
		}
		r := memo.derive(s, sub, entries, *o, window, lim)
		res.Stages = append(res.Stages, r)
		if r.Status == StageFailed {
			failedAt = &res.Stages[len(res.Stages)-1]
		}
	}
	if err := errors.Join(errs...); err != nil {
		return res, err
	}
	if failedAt != nil {
		res.Verdict = failedAt.Verdict
	} else {
		res.Verdict = Pass
	}
	return res, nil
}

func predecessorText(i int) string {
	if i == 0 {
		return "T1 always runs"
	}
	return fmt.Sprintf("%s passed", DynamicStages[i-1])
}

// deriveStage applies one stage's rule.
func deriveStage(s Stage, sub Subject, entries []Entry, o Observation, window time.Duration, lim Limits) StageResult {
	switch s {
	case T1:
		return DeriveT1(sub, o)
	case T2:
		return DeriveT2(sub, o)
	case T3:
		return DeriveT3(MountTargets(sub, entries), o, lim)
	default:
		return DeriveT4(o, window)
	}
}
