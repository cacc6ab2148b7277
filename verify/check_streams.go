package verify

import (
	"bytes"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// streamFiles are the paths of a stage's stdout, stderr and merged
// stream, the three files a stage's streams are tied by.
func streamFiles(st manifest.Stage) [3]string {
	return [3]string{st.Evidence[manifest.RoleStdout], st.Evidence[manifest.RoleStderr], st.Evidence[manifest.RoleMerged]}
}

// checkStreams ties each executed stage's three streams together: merged
// must be an interleaving of stdout and stderr (SPEC.md "Streams"). A
// stage whose streams are not tied has all three files moved from
// trusted to untrusted, so no line rule reads them and no verdict that
// depends on them is derived.
func (vf *verification) checkStreams() {
	// No two stages name one file (checkReferences).
	for i, rp := range vf.m.Repetitions {
		for _, st := range rp.Stages {
			if st.ExitCode == nil {
				continue
			}
			paths := streamFiles(st)
			var bs [3][]byte
			ok := true
			for k, p := range paths {
				bs[k], ok = vf.trusted[p]
				if !ok {
					break
				}
			}
			if !ok {
				continue // a missing or changed file is reported as such
			}
			if at, good := Interleaves(bs[2], bs[0], bs[1]); !good {
				vf.rep.addf(ClassStreamMismatch, repField(i+1, st.Stage, "evidence", manifest.RoleMerged), `DESIGN.md "Output capture"`,
					"%s is not an interleaving of %s and %s (they part at byte %d of merged): no line rule reads this stage's output",
					paths[2], paths[0], paths[1], at)
				for _, p := range paths {
					delete(vf.trusted, p)
					vf.untrusted[p] = true
				}
			}
		}
	}
}

// Interleaves reports whether merged is stdout and stderr interleaved:
// the same bytes, each stream's order kept, cut only where the capture
// cuts (at chunk boundaries). It returns the offset in merged where no
// interleaving continues when it is not one.
//
// The search is greedy and linear in the input times the length of one
// line: at each point it takes the whole next line of the stream last
// taken from when merged continues with it, else the other stream's
// whole next line, else the longest common prefix with either stream
// (a chunk that ended inside a line). Every success is a witness, so a
// bundle it accepts is an interleaving; it can refuse a true
// interleaving only where both streams hold the same text at a point
// where the two cross, which no capture has shown (SPEC.md "Streams").
func Interleaves(merged, stdout, stderr []byte) (int, bool) {
	if len(merged) != len(stdout)+len(stderr) {
		return min(len(merged), len(stdout)+len(stderr)), false
	}
	streams := [2][]byte{stdout, stderr}
	cur := 0
	k := 0
	for k < len(merged) {
		rest := merged[k:]
		took := false
		for _, s := range [2]int{cur, 1 - cur} {
			line := nextLine(streams[s])
			if len(line) > 0 && bytes.HasPrefix(rest, line) {
				streams[s] = streams[s][len(line):]
				k += len(line)
				cur = s
				took = true
				break
			}
		}
		if took {
			continue
		}
		best, n := -1, 0
		for _, s := range [2]int{cur, 1 - cur} {
			if c := commonPrefix(rest, nextLine(streams[s])); c > n {
				best, n = s, c
			}
		}
		if best < 0 {
			return k, false
		}
		streams[best] = streams[best][n:]
		k += n
		cur = best
	}
	return k, len(streams[0]) == 0 && len(streams[1]) == 0
}

// nextLine is b up to and including its first newline, or all of b.
func nextLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i+1]
	}
	return b
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// checkStreamReadings re-derives every stage with each stream read on its
// own (stdout's lines, then stderr's) in place of merged, and reports a
// stage whose status or verdict then differs (SPEC.md "Streams"): merged
// may cut a line where a capture chunk ended, so where it places one
// stream's bytes inside the other's line can hide a line the rules read
// (a fatal line, the marker, the added dependency) or make one that
// neither stream holds. Only the first differing stage of a repetition is
// named: the stages after it differ through propagation.
func (vf *verification) checkStreamReadings() {
	alone := make(map[string][]byte, len(vf.trusted))
	for p, b := range vf.trusted {
		alone[p] = b
	}
	changed := false
	for _, rp := range vf.m.Repetitions {
		for _, st := range rp.Stages {
			if st.ExitCode == nil {
				continue
			}
			out, ok1 := vf.trusted[st.Evidence[manifest.RoleStdout]]
			errOut, ok2 := vf.trusted[st.Evidence[manifest.RoleStderr]]
			merged, ok3 := vf.trusted[st.Evidence[manifest.RoleMerged]]
			if !ok1 || !ok2 || !ok3 {
				continue
			}
			sep := len(out) > 0 && out[len(out)-1] != '\n' && len(errOut) > 0
			if readAlone(out, errOut, sep, merged) {
				continue // merged already reads so: nothing to copy
			}
			b := make([]byte, 0, len(out)+len(errOut)+1)
			b = append(b, out...)
			if sep {
				b = append(b, '\n')
			}
			b = append(b, errOut...)
			alone[st.Evidence[manifest.RoleMerged]] = b
			changed = true
		}
	}
	if !changed {
		return
	}
	d2, _ := assemble.Derive(vf.m, alone, vf.lim)
	for i := range min(len(vf.derived.Repetitions), len(d2.Repetitions)) {
		a, b := vf.derived.Repetitions[i].Stages, d2.Repetitions[i].Stages
		for k := range min(len(a), len(b)) {
			if a[k].Status == b[k].Status && a[k].Verdict == b[k].Verdict {
				continue
			}
			vf.rep.addf(ClassStreamMismatch, repField(i+1, string(a[k].Stage), "evidence", manifest.RoleMerged), `SPEC.md "Streams"`,
				"read from merged, %s is %s%s; read from stdout and stderr each on its own, %s%s: where merged places one stream's bytes inside the other's lines changes what the rules read",
				a[k].Stage, a[k].Status, verdictSuffix(a[k].Verdict), b[k].Status, verdictSuffix(b[k].Verdict))
			break
		}
	}
}

// readAlone reports whether merged is stdout, a "\n" when sep, then
// stderr: the reading of each stream on its own, compared in place
// rather than built (a 60 MiB stage cost a copy of its output, issue 48).
func readAlone(out, errOut []byte, sep bool, merged []byte) bool {
	n := len(out) + len(errOut)
	if sep {
		n++
	}
	if len(merged) != n || !bytes.HasPrefix(merged, out) || !bytes.HasSuffix(merged, errOut) {
		return false
	}
	return !sep || merged[len(out)] == '\n'
}

func verdictSuffix(v rules.Verdict) string {
	if v == "" {
		return ""
	}
	return " (" + string(v) + ")"
}
