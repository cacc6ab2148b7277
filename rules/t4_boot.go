package rules

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// DefaultWindow is the DSHIO/T 21 5.1.6 T4 liveness window. The window a
// derivation uses comes from the manifest settings; this is its default.
const DefaultWindow = 12 * time.Second

// WebMarker starts the web profile's startup line (DSHIO/T 20 9.4).
const WebMarker = "dsh web: http://"

// DeriveT4 derives the T4 boot result (DSHIO/T 20 chapter 9). T4 passes
// only when the process was still alive when the observer stopped it, was
// seen alive for at least window (DefaultWindow when window <= 0), stdout
// has dsh's one marker line "dsh web: http://127.0.0.1:<port>" and no
// other line starts "dsh web: http://" (markerReason), no line is a fatal
// error line (isFatalLine), and no line holds dsh's message that a plugin
// entry failed to apply or load, or node's that the port was held
// (loadFailureReason). dsh prints the marker before the plugin tree
// loads, so the marker alone never proves a boot. A timeout or any failed
// condition is boot_failed. The exit code of a process the observer
// stopped is not read. SPEC.md "T4 boot".
func DeriveT4(o Observation, window time.Duration) StageResult {
	if window <= 0 {
		window = DefaultWindow
	}
	if o.TimedOut {
		return timeoutResult(T4, BootFailed, o)
	}
	out := mergedOutput(o)
	var reasons []string
	exited := false
	switch l := o.Liveness; {
	case l == nil:
		reasons = append(reasons, "no liveness observation was recorded")
	case !l.AliveAtEnd:
		exited = true
		reasons = append(reasons, fmt.Sprintf("process exited with code %d before the observation window closed", o.ExitCode))
	case l.AliveFor < window:
		reasons = append(reasons, fmt.Sprintf("process was observed alive for %s, the window is %s", l.AliveFor, window))
	}
	fatal, firstFatal := 0, ""
	eachLine(out, func(line string) bool {
		t := strings.TrimSpace(line)
		if !skippedLine(t) && isFatalTrimmed(t) {
			if fatal == 0 {
				firstFatal = boundLine(t)
			}
			fatal++
		}
		return true
	})
	if r := loadFailureReason(out); r != "" {
		reasons = append(reasons, r)
	}
	if r := markerReason(o.Stdout, o.Stderr); r != "" {
		reasons = append(reasons, r)
	}
	if fatal > 0 {
		reasons = append(reasons, fmt.Sprintf("output has %d fatal error line(s), the first: %q", fatal, firstFatal))
	}
	if len(reasons) == 0 {
		return passed(T4, []string{
			fmt.Sprintf("process alive for %s (window %s) and stopped by the observer", o.Liveness.AliveFor, window),
			fmt.Sprintf("stdout has dsh's one marker line starting %q", WebMarker),
			"output has no fatal error line and no line of dsh saying a plugin entry failed to apply or load",
		})
	}
	if exited {
		return failed(T4, BootFailed, commandFailedError(o), reasons)
	}
	return failed(T4, BootFailed, disagreementError(o, reasons), reasons)
}

// loadFailureReason names the lines of out that are dsh's own messages
// that a plugin entry failed to apply or load, or node's that a port was
// held (the catalogue's T4 failure forms, wherever they stand in a line),
// or returns "". A held port means a dsh of the previous repetition was
// still listening: the sandbox was not fresh. SPEC.md "T4 boot",
// condition 5.
func loadFailureReason(out []byte) string {
	var lines []string
	held := false
	ReadForms(out, func(r Reading) bool {
		if !IsT4FailureForm(r.Form) {
			return true
		}
		held = held || r.Form == FormPortInUse
		if len(lines) == 0 || lines[len(lines)-1] != string(r.Line) {
			lines = append(lines, string(r.Line)) // r.Line is valid during the call only
		}
		return true
	})
	if len(lines) == 0 {
		return ""
	}
	why := fmt.Sprintf("output has %d line(s) of dsh saying a plugin entry failed to apply or load, the first: %q", len(lines), boundLine(lines[0]))
	if held {
		why += "; a port was already in use, held by a dsh of an earlier repetition: the sandbox was not fresh"
	}
	return why
}

// markerLine is the form of dsh-web-app's startup line (console.log, so on
// stdout): `dsh web: http://127.0.0.1:<port>`, with ` (LAN: <url>)` when
// a LAN address is trusted. SPEC.md "T4 boot".
var markerLine = lazyregexp.New(`^dsh web: http://127\.0\.0\.1:[0-9]{1,5}(?: \(LAN: http://[^ ()]+:[0-9]{1,5}\))?$`)

// markerReason checks for the startup marker as dsh prints it, and that
// nothing conflicts with it: dsh prints exactly one marker line, on
// stdout, in markerLine's form; a plugin can print text of its own on
// either stream, so a second line starting "dsh web: http://", on stdout
// or stderr, means one of them is not dsh's and which one cannot be told.
// It returns "" when the marker is dsh's one line, else the reason.
func markerReason(stdout, stderr []byte) string {
	var good int
	var other []string
	eachLine(stdout, func(l string) bool {
		switch t := strings.TrimSpace(l); {
		case markerLine.MatchString(l):
			good++
		case strings.HasPrefix(t, WebMarker):
			other = append(other, "stdout "+strconv.Quote(boundLine(t)))
		}
		return true
	})
	eachLine(stderr, func(l string) bool {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, WebMarker) {
			other = append(other, "stderr "+strconv.Quote(boundLine(t)))
		}
		return true
	})
	switch {
	case good == 1 && len(other) == 0:
		return ""
	case good+len(other) == 0:
		return fmt.Sprintf("output has no line starting %q", WebMarker)
	case good == 0:
		return fmt.Sprintf("no stdout line is dsh's marker (%s), and the line starting %q is not in the form dsh prints: %s", "dsh web: http://127.0.0.1:<port>", WebMarker, other[0])
	}
	return fmt.Sprintf("%d lines start %q (%d in dsh's form on stdout; %s): dsh prints one, a plugin can print the same text, so the marker lines conflict", good+len(other), WebMarker, good, strings.Join(append([]string{}, other...), ", "))
}
