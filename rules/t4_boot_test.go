package rules

import (
	"testing"
	"time"
)

func boot(exit int, stdout, stderr string, alive bool, aliveFor time.Duration) Observation {
	o := obs(T4, exit, stdout, stderr)
	o.Liveness = &Liveness{Window: 14 * time.Second, AliveFor: aliveFor, AliveAtEnd: alive}
	return o
}

const marker = "dsh web: http://127.0.0.1:3080\n"

func TestDeriveT4(t *testing.T) {
	full := 14 * time.Second
	tests := []struct {
		name   string
		o      Observation
		window time.Duration
		status StageStatus
		fe     string
		reason string
	}{
		{name: "pass", o: boot(137, marker, "", true, full), status: StagePassed},
		{name: "pass with informational stderr", o: boot(137, marker,
			"dsh: initialized profile web at /dsh-home/profiles/web\n(node:12) [DEP0169] DeprecationWarning: `url.parse()` behavior is not standardized and prone to errors\n(Use `node --trace-deprecation ...` to show where the warning was created)\n",
			true, full), status: StagePassed},
		{name: "pass at exactly the window", o: boot(137, marker, "", true, 12*time.Second), status: StagePassed},
		{name: "alive without marker", o: boot(137, "listening\n", "", true, full), status: StageFailed,
			fe: SyntheticPrefix + "output has no line starting \"dsh web: http://\"", reason: "no line starting"},
		{name: "marker not at line start", o: boot(137, "note: dsh web: http://127.0.0.1:3080\n", "", true, full), status: StageFailed, reason: "no line starting"},
		// Only dsh's own marker counts, and nothing may conflict with it:
		// a plugin can print the same text. SPEC.md "T4 boot".
		{name: "marker with a LAN address", o: boot(137, "dsh web: http://127.0.0.1:3080 (LAN: http://10.0.0.5:3080)\n", "", true, full), status: StagePassed},
		{name: "marker only on stderr", o: boot(137, "", marker, true, full), status: StageFailed, reason: "not in the form dsh prints: stderr"},
		{name: "marker twice on stdout", o: boot(137, marker+marker, "", true, full), status: StageFailed, reason: "the marker lines conflict"},
		{name: "marker on stdout and a copy on stderr", o: boot(137, marker, marker, true, full), status: StageFailed, reason: "2 lines start"},
		{name: "indented marker", o: boot(137, "  "+marker, "", true, full), status: StageFailed, reason: "not in the form dsh prints"},
		{name: "marker with another host", o: boot(137, "dsh web: http://0.0.0.0:3080\n", "", true, full), status: StageFailed, reason: "not in the form dsh prints"},
		{name: "marker with a suffix", o: boot(137, "dsh web: http://127.0.0.1:3080 ready\n", "", true, full), status: StageFailed, reason: "not in the form"},
		{name: "dsh's marker and a second one in another form", o: boot(137, marker+"dsh web: http://127.0.0.1:9/x\n", "", true, full), status: StageFailed, reason: "conflict"},
		{name: "the browser line is not a marker", o: boot(137, marker+"dsh web: opening the default browser; pass --no-open to disable\n", "", true, full), status: StagePassed},
		{name: "marker and fatal line but alive", o: boot(137, marker, "TypeError: x is not a function\n", true, full), status: StageFailed,
			fe: "TypeError: x is not a function", reason: "fatal error line"},
		{name: "skipping profile bundle but alive", o: boot(137, marker, "dsh: skipping profile bundle hello-dsh-plugin: peer range >=9 does not admit 0.1.7\n", true, full),
			status: StageFailed, fe: "dsh: skipping profile bundle*", reason: "skipping profile bundle"},
		// dsh's own messages that an entry failed to apply or load, wherever
		// they stand in a line, and node's that the port was held: no
		// passing T4 holds one. SPEC.md "T4 boot", condition 5.
		{name: "entry failed to apply mid-line but alive", o: boot(137, marker, "2026-12-06 10:00:01 [E] loader failed to apply loader entry hello-dsh (hello-dsh-plugin): boom\n", true, full),
			status: StageFailed, reason: "failed to apply or load, the first: \"2026-12-06 10:00:01 [E] loader failed to apply loader entry hello-dsh (hello-dsh-plugin): boom\""},
		{name: "entries did not activate after a prefix but alive", o: boot(137, marker, "[dsh] dsh: 1 entry did not activate\n", true, full),
			status: StageFailed, reason: "failed to apply or load"},
		{name: "fatal load failure but alive", o: boot(137, marker, "dsh: fatal load failure: Error: late\n", true, full),
			status: StageFailed, reason: "failed to apply or load"},
		{name: "port in use but alive", o: boot(137, marker, "note: listen EADDRINUSE: address already in use 127.0.0.1:3080\n", true, full),
			status: StageFailed, reason: "the sandbox was not fresh"},
		{name: "a plugin's words about its own entries pass", o: boot(137, marker, "hello: loader entry count 3; every entry did activate\n", true, full), status: StagePassed},
		{name: "killed early", o: boot(137, marker, "", true, 5*time.Second), status: StageFailed, reason: "observed alive for 5s"},
		{name: "window from settings longer than observed", o: boot(137, marker, "", true, full), window: 20 * time.Second,
			status: StageFailed, reason: "the window is 20s"},
		{name: "exited with marker and no error line", o: boot(0, marker, "", false, 3*time.Second), status: StageFailed,
			fe: "dsh web: http://127.0.0.1:3080", reason: "exited with code 0"},
		{name: "exited with fatal", o: boot(3, marker, "exits-dsh: fatal: giving up\n", false, 5*time.Second), status: StageFailed,
			fe: "exits-dsh: fatal: giving up"},
		{name: "exited silently", o: boot(1, "", "", false, 0), status: StageFailed, fe: SyntheticPrefix + "exit code 1 with no output"},
		{name: "no liveness", o: obs(T4, 137, marker, ""), status: StageFailed, reason: "no liveness"},
		{name: "timeout", o: func() Observation { o := boot(137, marker, "", true, full); o.TimedOut = true; return o }(),
			status: StageFailed, fe: "timeout: T4 did not finish within its time limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := DeriveT4(tt.o, tt.window)
			v := Verdict("")
			if tt.status == StageFailed {
				v = BootFailed
			}
			checkResult(t, r, tt.status, v, tt.fe)
			if tt.reason != "" && !hasReason(r, tt.reason) {
				t.Errorf("no reason containing %q in %q", tt.reason, r.Reasons)
			}
		})
	}
}

func TestFatalLine(t *testing.T) {
	fatal := []string{
		"Error: dsh: plugin tree failed to load: x",
		"  Error: indented",
		"Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'x'",
		"TypeError: Cannot read properties of undefined",
		"YAMLException: bad indentation of a mapping entry (3:13)",
		"Uncaught Error: boom",
		"fatal: giving up",
		"exits-dsh: fatal: giving up",
		"FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
		"dsh: skipping profile bundle x: malformed patch",
		"\x1b[31mError: coloured\x1b[39m",
	}
	notFatal := []string{
		"",
		"dsh web: http://127.0.0.1:3080",
		"dsh: initialized profile web at /dsh-home/profiles/web",
		"(node:12) [DEP0169] DeprecationWarning: `url.parse()` behavior is not standardized and prone to errors",
		"(node:7) ExperimentalWarning: Error: looks like one but is a warning",
		"(Use `node --trace-deprecation ...` to show where the warning was created)",
		"    at boot (file:///opt/dsh/lib/index.js:1187:9)",
		"\t\tthrow new Error(`${binName}: ${stage}: ${detail}${stack}`, { cause });",
		"Node.js v24.11.1",
		`{"level":"error","msg":"Error: inside JSON"}`,
		"│ Error: inside a box │",
		"Progress: resolved 1, fatal: 0",
		"errors: 0",
		"NoErrorsHere",
	}
	for _, l := range fatal {
		if !isFatalLine(l) {
			t.Errorf("isFatalLine(%q) = false, want true", l)
		}
	}
	for _, l := range notFatal {
		if isFatalLine(l) {
			t.Errorf("isFatalLine(%q) = true, want false", l)
		}
	}
}
