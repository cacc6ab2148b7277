package rules

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// SPEC.md "Output lines": how output bytes become lines.

// SplitLines is splitLines for callers that show output as the rules see
// it (the report pages): the same lines, numbered the same way.
func SplitLines(b []byte) []string { return splitLines(b) }

// splitLines splits output into lines on "\n", drops a trailing "\r",
// removes ANSI escape sequences and other control characters, and makes
// the text valid UTF-8 (invalid bytes become U+FFFD). Lines are not
// trimmed.
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	out := make([]string, 0, bytes.Count(b, []byte("\n"))+1)
	eachLine(b, func(l string) bool {
		out = append(out, l)
		return true
	})
	return out
}

// eachLine calls f with each line of b as splitLines returns it, until f
// returns false, holding one line at a time: a rule that reads every line
// of a 16 MiB log of empty lines does not build a list of 16 million
// strings.
//
// Output of at most lineCopyLimit bytes is first copied into one string,
// and a line that cleaning leaves as it is (printable ASCII, the common
// case) is a substring of it: one allocation for the output instead of one
// per line. A caller that keeps a line beyond the result it builds clones
// it (boundLine does), so that a small result does not hold the copy.
func eachLine(b []byte, f func(string) bool) {
	if len(b) > lineCopyLimit {
		eachRawLine(b, func(l []byte) bool { return f(cleanLine(l)) })
		return
	}
	s, off := string(b), 0
	eachRawLine(b, func(l []byte) bool {
		start := off
		off += len(l) + 1
		if l = bytes.TrimSuffix(l, []byte("\r")); printableASCII(l) {
			return f(s[start : start+len(l)])
		}
		return f(cleanLine(l))
	})
}

// lineCopyLimit bounds the output eachLine copies whole: larger output,
// a hostile log of up to 16 MiB, is cleaned line by line, so that it costs
// no copy beside its lines.
const lineCopyLimit = 64 << 10

// eachRawLine calls f with each line of b as splitLines splits it, before
// cleanLine, until f returns false. It allocates nothing, so a rule that
// needs only some lines of a large log cleans only those.
func eachRawLine(b []byte, f func([]byte) bool) {
	for len(b) > 0 {
		l := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			l, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if !f(l) {
			return
		}
	}
}

// cleanLine cleans one raw line as SPEC.md "Output lines" has it: a
// trailing "\r" dropped, each run of invalid UTF-8 made one U+FFFD, ANSI
// escape sequences removed, then other control characters (a tab becomes
// a space). It gives what strings.Map(cleanRune,
// ansiEscape.ReplaceAllString(strings.ToValidUTF8(l, "\uFFFD"), "")) gives
// (TestCleanLineAsComposed, FuzzCleanLine keep the composition as the
// oracle), in one pass that counts the cleaned length and one that writes
// it: a hostile line of up to 16 MiB costs one string of exactly the
// cleaned size, where the composition held two or three growing copies.
func cleanLine(l []byte) string {
	l = bytes.TrimSuffix(l, []byte("\r"))
	if printableASCII(l) {
		return string(l) // nothing to clean
	}
	var b strings.Builder
	b.Grow(cleanInto(nil, l))
	cleanInto(&b, l)
	return b.String()
}

// cleanInto writes the cleaned form of l (without its "\r") to b, or only
// counts it when b is nil, and returns its length in bytes. An escape
// sequence ends a run of invalid bytes, as its own bytes did before
// invalid UTF-8 was repaired: the invalid bytes on its two sides become
// two U+FFFD.
func cleanInto(b *strings.Builder, l []byte) int {
	n := 0
	invalid := false
	for len(l) > 0 {
		c := l[0]
		if printableByte(c) { // a run of printable ASCII stays as it is
			k := 1
			for k < len(l) && printableByte(l[k]) {
				k++
			}
			n += k
			if b != nil {
				b.Write(l[:k])
			}
			l = l[k:]
			invalid = false
			continue
		}
		if c < utf8.RuneSelf {
			k := 1
			if c == 0x1b {
				k = max(1, escapeLen(l))
			}
			l = l[k:]
			invalid = false
			if c == '\t' && k == 1 {
				n++
				if b != nil {
					b.WriteByte(' ')
				}
			}
			continue // an escape sequence, or a control character
		}
		r, size := utf8.DecodeRune(l)
		l = l[size:]
		if r == utf8.RuneError && size == 1 {
			if !invalid {
				n += utf8.RuneLen(utf8.RuneError)
				if b != nil {
					b.WriteRune(utf8.RuneError)
				}
			}
			invalid = true
			continue
		}
		invalid = false
		if unicode.IsControl(r) {
			continue
		}
		n += size
		if b != nil {
			b.WriteRune(r)
		}
	}
	return n
}

// escapeLen returns the length of the ANSI escape sequence at the start of
// l, which starts with ESC, or 0 when none starts there. The sequences are
// those of SPEC.md "Output lines", the leftmost-first matches of
// ansiEscape: a CSI (ESC "[", parameter bytes 0x30–0x3F, intermediate
// bytes 0x20–0x2F, a final byte 0x40–0x7E), an OSC (ESC "]" and every
// byte up to BEL or ESC, with a BEL or an ESC "\" that ends it), or ESC
// and one byte of 0x40–0x5A or 0x5C–0x5F. It reads l only up to the next
// ESC or BEL, so that a line of escape bytes is cleaned in linear time.
func escapeLen(l []byte) int {
	if len(l) < 2 {
		return 0
	}
	switch c := l[1]; {
	case c == '[':
		i := 2
		for i < len(l) && l[i] >= '0' && l[i] <= '?' {
			i++
		}
		for i < len(l) && l[i] >= ' ' && l[i] <= '/' {
			i++
		}
		if i < len(l) && l[i] >= '@' && l[i] <= '~' {
			return i + 1
		}
		return 0 // the classes are disjoint: no shorter match either
	case c == ']':
		i := 2
		for i < len(l) && l[i] != 0x07 && l[i] != 0x1b {
			i++
		}
		switch {
		case i < len(l) && l[i] == 0x07:
			return i + 1
		case i+1 < len(l) && l[i+1] == '\\':
			return i + 2
		}
		return i
	case c >= '@' && c <= 'Z' || c >= '\\' && c <= '_':
		return 2
	}
	return 0
}

// printableASCII reports whether every byte of l is printableByte.
func printableASCII(l []byte) bool {
	for _, c := range l {
		if !printableByte(c) {
			return false
		}
	}
	return true
}

// printableByte reports whether c is printable ASCII, ' '…'~': a byte
// that cleaning keeps as it is.
func printableByte(c byte) bool { return c >= ' ' && c <= '~' }

// isNoiseLine reports whether a trimmed line is excluded from first_error
// by DSHIO/T 20 6.6: empty, pure JSON, box-drawing, or a progress line.
func isNoiseLine(t string) bool {
	if t == "" {
		return true
	}
	if strings.HasPrefix(t, "Progress:") {
		return true
	}
	if r, _ := utf8.DecodeRuneInString(t); r >= 0x2500 && r <= 0x257F {
		return true // Unicode Box Drawing block: ╭ │ ╰ ─ ╮ ╯ …
	}
	return isPureJSON(t)
}

// isPureJSON reports whether the whole line is one JSON object or array.
func isPureJSON(t string) bool {
	if t[0] != '{' && t[0] != '[' {
		return false
	}
	return json.Valid([]byte(t))
}

var (
	nodeWarning   = lazyregexp.New(`^\(node:\d+\) (?:\[[A-Za-z0-9_]+\] )?[A-Za-z]*Warning: `)
	nodeTraceHint = lazyregexp.New("^\\(Use `node --trace-[a-z-]+ \\.\\.\\.` to show where the warning was created\\)$")
)

// isInformationalLine reports whether a trimmed line is one of the
// documented informational lines of dsh and node that are never errors.
func isInformationalLine(t string) bool {
	switch {
	case strings.HasPrefix(t, "dsh: initialized profile "):
		return true
	case strings.HasPrefix(t, "(node:") && nodeWarning.MatchString(t):
		// An unhandled rejection reported as a warning is an error.
		return !strings.Contains(t, "UnhandledPromiseRejectionWarning")
	case strings.HasPrefix(t, "(Use `node --trace-") && nodeTraceHint.MatchString(t):
		return true
	}
	return false
}

// skippedLine reports whether first_error and the T4 fatal-line search
// ignore a trimmed line.
func skippedLine(t string) bool {
	return isNoiseLine(t) || isInformationalLine(t)
}

var (
	// Error:, Error [CODE]:, TypeError:, YAMLException:, AbortError [X]:
	jsErrorLine = lazyregexp.New(`^[A-Za-z0-9_$.]*(?:Error|Exception)(?: \[[^\]]*\])?:`)
	uncaught    = lazyregexp.New(`^Uncaught\b`)
)

// isFatalLine reports whether one line of T4 output is a fatal error line
// (SPEC.md "T4 boot"). The line is trimmed first; informational, JSON,
// box-drawing and progress lines are never fatal.
func isFatalLine(line string) bool {
	t := strings.TrimSpace(cleanLine([]byte(line)))
	if skippedLine(t) {
		return false
	}
	return isFatalTrimmed(t)
}

// mayBeJSError is what every jsErrorLine match contains, checked first
// because most lines have none of it and a regexp costs far more.
func mayBeJSError(t string) bool {
	return strings.IndexByte(t, ':') >= 0 && (strings.Contains(t, "Error") || strings.Contains(t, "Exception"))
}

func isFatalTrimmed(t string) bool {
	if mayBeJSError(t) && jsErrorLine.MatchString(t) || strings.HasPrefix(t, "Uncaught") && uncaught.MatchString(t) {
		return true
	}
	// Every fatal pattern holds a colon, which lowering neither makes nor
	// removes: a line without one is not lowered.
	if strings.IndexByte(t, ':') < 0 {
		return strings.Contains(t, "skipping profile bundle")
	}
	// SPEC.md "T4 boot": the fatal patterns match case-insensitively.
	lower := strings.ToLower(t)
	if strings.HasPrefix(lower, "fatal:") || strings.HasPrefix(lower, "fatal error:") ||
		strings.Contains(lower, ": fatal:") || strings.Contains(lower, ": fatal error:") {
		return true
	}
	return strings.Contains(t, "skipping profile bundle")
}

// isErrorLikeTrimmed reports whether a trimmed, non-skipped line looks like
// an error: a fatal line, a pnpm ERR_PNPM_ code, a pnpm/Node error code
// banner such as "ELIFECYCLE  Command failed…", or an npm "ERR!" line.
func isErrorLikeTrimmed(t string) bool {
	return isFatalTrimmed(t) || strings.Contains(t, "ERR_PNPM_") || strings.HasPrefix(t, "E") && errorCodeBanner.MatchString(t) ||
		strings.HasPrefix(t, "ERR!") || strings.Contains(t, " ERR!")
}

// errorCodeBanner matches pnpm's error banner: an E-code (ELIFECYCLE,
// ENOENT, EACCES…) followed by two spaces and the message.
var errorCodeBanner = lazyregexp.New(`^E[A-Z][A-Z0-9_]+  \S`)
