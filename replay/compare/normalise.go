package compare

import (
	"bytes"
	"slices"
	"unicode/utf8"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// A normalisation rule replaces what legitimately differs between two
// runs of the same sequence (SPEC.md "Replay", "Normalisation").
type rule struct {
	name string
	re   *lazyregexp.Regexp
	with []byte
	// fn, when set, is applied instead of re and with.
	fn func([]byte) []byte
}

// normalisations are applied in order to every evidence file before comparison.
var normalisations = []rule{
	// pnpm's notices that depend on the registry's state today: a whole
	// box, a ╭─…─╮ line, the │ … │ lines under it and the ╰─…─╯ line
	// that closes it. A │ … │ line outside such a box (a plugin's own
	// message, a table) is output and stays, as does a box never closed;
	// a tree pnpm prints also starts lines with │ and must not be cut
	// here. SPEC.md "Normalisation".
	{"pnpm update notice", lazyregexp.New(`(?m)^[ \t]*╭─*╮[ \t]*\n(?:[ \t]*│.*│[ \t]*\n)*[ \t]*╰─*╯[ \t]*(?:\n|$)`), nil, nil},
	{"progress lines", lazyregexp.New(`(?m)^Progress: .*\n?`), nil, nil},
	{"timestamps", lazyregexp.New(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?`), []byte("<TIME>"), nil},
	{"durations", lazyregexp.New(`\b\d+(\.\d+)?(ms|s)\b`), []byte("<DURATION>"), nil},
	{"pids", lazyregexp.New(`\((node|pid):\d+\)|\bpid[ =:]\d+\b`), []byte("(<PID>)"), nil},
	{"temporary paths", lazyregexp.New(`/tmp/[^\s'"():]+`), []byte("<TMP>"), nil},
	{"loopback ports", lazyregexp.New(`\b(127\.0\.0\.1|localhost|\[::1\]):\d+`), []byte("$1:<PORT>"), nil},
	// V8's async stack traces depend on microtask timing: the same throw
	// shows a "process.processTicksAndRejections (node:internal/…)" frame
	// in one run and not in the next. Each run of consecutive "at …"
	// frame lines becomes one line; the messages and [cause] chain stay.
	// A trailing " {" (the error's properties follow) is kept.
	{"stack frames", lazyregexp.New(`(?m)^([ \t]+)at (?:.*\n[ \t]+at )*.*?( \{)?$`), []byte("${1}at <STACK>${2}"), nil},
	// pnpm's update notice comes with a blank line on each side and is
	// printed when an asynchronous check returns: before "Packages: +1"
	// in one run, after it in the next. With the box removed, its blank
	// lines are removed too; all blank lines go, so where they were
	// cannot differ.
	{"blank lines", lazyregexp.New(`(?m)^[ \t]*\n`), nil, nil},
	// pnpm runs the lifecycle scripts of different dependencies at the
	// same time; their lines interleave in an order that depends on
	// scheduling. Each run of consecutive lifecycle lines is sorted by
	// package path, stably, so one package's lines keep their order.
	{"pnpm lifecycle line order", nil, nil, sortLifecycleRuns},
	// pnpm shows each unmet peer under one path from the root, and which
	// path it walks depends on scheduling (seen with
	// @deepseek-ai/dsh-base: "otlp-exporter-base" in one run,
	// "exporter-logs-otlp-http" in the next). The tree after "WARN
	// Issues with peer dependencies found" becomes one line per issue,
	// "PACKAGE VERSION: ✕ …" naming the package that has it, sorted,
	// each once.
	{"pnpm peer dependency tree", nil, nil, peerIssues},
}

var (
	peerWarn = lazyregexp.New(`^[\t\p{Zs}]*WARN[\t\p{Zs}]+Issues with peer dependencies found[\t\p{Zs}]*\n?$`) // pnpm pads WARN with U+2009
	treeLine = lazyregexp.New(`^[ \t│├└─┬]*(?:[├└]─[─┬] .*|\.)\n?$`)
)

func peerIssues(b []byte) []byte {
	if !bytes.Contains(b, []byte("Issues with peer dependencies")) {
		return b
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	out := make([][]byte, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		if !peerWarn.Match(lines[i]) {
			continue
		}
		j := i + 1
		type node struct {
			col  int
			name []byte
		}
		var parents []node
		var issues [][]byte
		for ; j < len(lines) && treeLine.Match(lines[j]); j++ {
			l := bytes.TrimRight(lines[j], "\n")
			at := bytes.IndexAny(l, "├└")
			if at < 0 {
				continue // the root "."
			}
			col := utf8.RuneCount(l[:at])
			rest := l[at+len("├─┬ "):]
			if k := bytes.Index(l, []byte("✕")); k >= 0 {
				// The issue and the package that has it: the nearest
				// node above it in the tree.
				var parent []byte
				for p := len(parents) - 1; p >= 0; p-- {
					if parents[p].col < col {
						parent = parents[p].name
						break
					}
				}
				issue := append(append(append([]byte(nil), parent...), ": "...), l[k:]...)
				issues = append(issues, append(issue, '\n'))
				continue
			}
			for len(parents) > 0 && parents[len(parents)-1].col >= col {
				parents = parents[:len(parents)-1]
			}
			parents = append(parents, node{col, rest})
		}
		slices.SortFunc(issues, bytes.Compare)
		out = append(out, slices.CompactFunc(issues, bytes.Equal)...)
		i = j - 1
	}
	return bytes.Join(out, nil)
}

// lifecycleLine is a pnpm lifecycle script line: "PATH SCRIPT$ command"
// when it starts, "PATH SCRIPT: output" for its output.
var lifecycleLine = lazyregexp.New(`^(\S+) (?:preinstall|install|postinstall|preprepare|prepare|postprepare)[$:](?: |\n|$)`)

func sortLifecycleRuns(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	lastNL := b[len(b)-1] == '\n'
	if !lastNL {
		b = append(b, '\n')
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	key := func(l []byte) []byte { return lifecycleLine.FindSubmatch(l)[1] }
	for i := 0; i < len(lines); {
		if !lifecycleLine.Match(lines[i]) {
			i++
			continue
		}
		j := i
		for j < len(lines) && lifecycleLine.Match(lines[j]) {
			j++
		}
		slices.SortStableFunc(lines[i:j], func(x, y []byte) int { return bytes.Compare(key(x), key(y)) })
		i = j
	}
	out := bytes.Join(lines, nil)
	if !lastNL {
		out = out[:len(out)-1]
	}
	return out
}

// RuleNames lists the normalisations, in the order they are applied.
func RuleNames() []string {
	out := make([]string, len(normalisations))
	for i, r := range normalisations {
		out[i] = r.name
	}
	return out
}

// Normalise applies every rule to b.
func Normalise(b []byte) []byte {
	out := append([]byte(nil), b...)
	for _, r := range normalisations {
		if r.fn != nil {
			out = r.fn(out)
		} else if bytes.Contains(r.with, []byte("$")) {
			out = r.re.ReplaceAll(out, r.with)
		} else {
			out = r.re.ReplaceAllLiteral(out, r.with)
		}
	}
	return out
}
