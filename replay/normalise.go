package replay

import (
	"bytes"
	"regexp"
)

// A normalisation rule replaces what legitimately differs between two
// runs of the same sequence (SPEC.md "Replay", "Normalisation").
type rule struct {
	name string
	re   *regexp.Regexp
	with []byte
}

// normalisations are applied in order to every evidence file before comparison.
var normalisations = []rule{
	// pnpm's notices that depend on the registry's state today.
	{"pnpm update notice", regexp.MustCompile(`(?m)^[ \t]*[╭│╰].*\n?`), nil},
	{"progress lines", regexp.MustCompile(`(?m)^Progress: .*\n?`), nil},
	{"timestamps", regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?`), []byte("<TIME>")},
	{"durations", regexp.MustCompile(`\b\d+(\.\d+)?(ms|s)\b`), []byte("<DURATION>")},
	{"pids", regexp.MustCompile(`\((node|pid):\d+\)|\bpid[ =:]\d+\b`), []byte("(<PID>)")},
	{"temporary paths", regexp.MustCompile(`/tmp/[^\s'"():]+`), []byte("<TMP>")},
	{"loopback ports", regexp.MustCompile(`\b(127\.0\.0\.1|localhost|\[::1\]):\d+`), []byte("$1:<PORT>")},
	// V8's async stack traces depend on microtask timing: the same throw
	// shows a "process.processTicksAndRejections (node:internal/…)" frame
	// in one run and not in the next. Each run of consecutive "at …"
	// frame lines becomes one line; the messages and [cause] chain stay.
	// A trailing " {" (the error's properties follow) is kept.
	{"stack frames", regexp.MustCompile(`(?m)^([ \t]+)at (?:.*\n[ \t]+at )*.*?( \{)?$`), []byte("${1}at <STACK>${2}")},
	// pnpm's update notice comes with a blank line on each side and is
	// printed when an asynchronous check returns: before "Packages: +1"
	// in one run, after it in the next. With the box removed, its blank
	// lines are removed too; all blank lines go, so where they were
	// cannot differ.
	{"blank lines", regexp.MustCompile(`(?m)^[ \t]*\n`), nil},
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
		if bytes.Contains(r.with, []byte("$")) {
			out = r.re.ReplaceAll(out, r.with)
		} else {
			out = r.re.ReplaceAllLiteral(out, r.with)
		}
	}
	return out
}
