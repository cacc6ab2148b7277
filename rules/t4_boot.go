package rules

import (
	"fmt"
	"strings"
	"time"
)

// DefaultWindow is the DSHIO/T 21 5.1.6 T4 liveness window. The window a
// derivation uses comes from the manifest settings; this is its default.
const DefaultWindow = 12 * time.Second

// WebMarker starts the web profile's startup line (DSHIO/T 20 9.4).
const WebMarker = "dsh web: http://"

// DeriveT4 derives the T4 boot result (DSHIO/T 20 chapter 9). T4 passes
// only when the process was still alive when the observer stopped it, was
// seen alive for at least window (DefaultWindow when window <= 0), the
// output has a line starting "dsh web: http://", and no line is a fatal
// error line (isFatalLine). dsh prints the marker before the plugin tree
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
	marker := false
	fatal, firstFatal := 0, ""
	eachLine(out, func(line string) bool {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, WebMarker) {
			marker = true
		}
		if !skippedLine(t) && isFatalTrimmed(t) {
			if fatal == 0 {
				firstFatal = boundLine(t)
			}
			fatal++
		}
		return true
	})
	if !marker {
		reasons = append(reasons, fmt.Sprintf("output has no line starting %q", WebMarker))
	}
	if fatal > 0 {
		reasons = append(reasons, fmt.Sprintf("output has %d fatal error line(s), the first: %q", fatal, firstFatal))
	}
	if len(reasons) == 0 {
		return passed(T4, []string{
			fmt.Sprintf("process alive for %s (window %s) and stopped by the observer", o.Liveness.AliveFor, window),
			fmt.Sprintf("output has a line starting %q", WebMarker),
			"output has no fatal error line",
		})
	}
	if exited {
		return failed(T4, BootFailed, commandFailedError(o), reasons)
	}
	return failed(T4, BootFailed, disagreementError(o, reasons), reasons)
}
