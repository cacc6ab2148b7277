package doccheck

import (
	"regexp"
	"strings"
)

// FlagRef is one `--flag` a document names.
type FlagRef struct {
	File string
	Line int
	// Flag is the name without the leading "--".
	Flag string
	// Words are the words after "dshaudit" up to the first flag when the
	// text names the command (a `dshaudit image build --load` line gives
	// ["image", "build"]); the caller walks its command tree along them.
	// Nil when the text names no command: the flag must then exist on
	// some command.
	Words []string
}

// foreignPrograms are programs whose flags documents quote; a code span
// or code line starting with one of them names that program's flags, not
// dshaudit's.
var foreignPrograms = map[string]bool{
	"dsh": true, "podman": true, "docker": true, "npm": true, "pnpm": true,
	"node": true, "cosign": true, "tar": true, "git": true, "apt-get": true,
	"debootstrap": true, "zstd": true, "curl": true, "runc": true,
	"gzip": true, "bash": true, "sh": true, "go": true, "crane": true,
	"sbatch": true, "squeue": true, "scancel": true, "scontrol": true,
	"sinfo": true, "kubectl": true, "chromium": true,
	"mmdebstrap": true, "dockerd": true, "unshare": true,
	"slsa-verifier": true, "actionlint": true, "gh": true,
}

var (
	flagRE      = regexp.MustCompile(`(?:^|[\s\[(|=,'"{])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)`)
	codeSpanRE  = regexp.MustCompile("(`+)([^`]+?)(`+)")
	dshauditCmd = regexp.MustCompile(`^(?:\$\s+)?(?:dshaudit|go run \./cmd/dshaudit)\b`)
)

// Flags returns every `--flag` that markdown names: in fenced code
// blocks (a logical line, joined over trailing backslashes, starting
// with dshaudit names its command; one starting with another program is
// skipped; a "# comment" is ignored), in inline code spans (the same
// rules per span) and in plain text (no command).
func Flags(file string, markdown []byte) []FlagRef {
	var refs []FlagRef
	lines := strings.Split(string(markdown), "\n")
	inFence := false
	var para []string // plain text lines of the current paragraph
	paraStart := 0
	flush := func() {
		if len(para) > 0 {
			refs = append(refs, proseFlags(file, paraStart, para)...)
		}
		para = nil
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			flush()
			inFence = !inFence
			continue
		}
		if inFence {
			start := i
			logical := line
			for strings.HasSuffix(strings.TrimRight(logical, " \t"), `\`) && i+1 < len(lines) {
				logical = strings.TrimSuffix(strings.TrimRight(logical, " \t"), `\`) + " " + lines[i+1]
				i++
			}
			refs = append(refs, commandFlags(file, start+1, stripComment(logical))...)
			continue
		}
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		if len(para) == 0 {
			paraStart = i
		}
		para = append(para, line)
	}
	flush()
	return refs
}

// proseFlags handles one paragraph outside code fences: code spans may
// wrap over lines, so the paragraph is searched as one text and offsets
// are mapped back to lines.
func proseFlags(file string, first int, para []string) []FlagRef {
	text := strings.Join(para, "\n")
	lineAt := func(off int) int { return first + 1 + strings.Count(text[:off], "\n") }
	var refs []FlagRef
	last := 0
	for _, m := range codeSpanRE.FindAllStringSubmatchIndex(text, -1) {
		refs = append(refs, plainFlags(file, text[last:m[0]], last, lineAt)...)
		span := strings.ReplaceAll(text[m[4]:m[5]], "\n", " ")
		for _, r := range commandFlags(file, lineAt(m[4]), span) {
			refs = append(refs, r)
		}
		last = m[1]
	}
	return append(refs, plainFlags(file, text[last:], last, lineAt)...)
}

func plainFlags(file, text string, base int, lineAt func(int) int) []FlagRef {
	var refs []FlagRef
	for _, m := range flagRE.FindAllStringSubmatchIndex(text, -1) {
		refs = append(refs, FlagRef{File: file, Line: lineAt(base + m[2]), Flag: text[m[2]:m[3]]})
	}
	return refs
}

// commandFlags reads one command line or code span.
func commandFlags(file string, line int, s string) []FlagRef {
	s = strings.TrimSpace(s)
	var words []string
	if loc := dshauditCmd.FindStringIndex(s); loc != nil {
		words = []string{}
		for _, w := range strings.Fields(s[loc[1]:]) {
			if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "[") {
				break
			}
			words = append(words, w)
		}
	} else if fields := strings.Fields(strings.TrimPrefix(s, "$ ")); len(fields) > 0 && foreignPrograms[fields[0]] {
		return nil
	}
	var refs []FlagRef
	for _, m := range flagRE.FindAllStringSubmatch(s, -1) {
		refs = append(refs, FlagRef{File: file, Line: line, Flag: m[1], Words: words})
	}
	return refs
}

// stripComment removes a shell comment: a # at the start or after white
// space, to the end of the line.
func stripComment(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t') {
			return s[:i]
		}
	}
	return s
}
