package rules

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFirstError(t *testing.T) {
	long := "Error: " + strings.Repeat("é", 400)
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"only noise", "\n  \n{\"a\":1}\n[1,2]\n╭──╮\n│ x │\n╰──╯\nProgress: resolved 1\n", ""},
		{"only informational", "dsh: initialized profile web at /p\n(node:12) [DEP0169] DeprecationWarning: x\n(Use `node --trace-deprecation ...` to show where the warning was created)\n", ""},
		{"first remaining line", "\nProgress: 1\nsomething happened\nanother\n", "something happened"},
		{"prefers an error line", "file:///x.js:1\n\t\tthrow new Error(`a`);\n\t\t      ^\n\nError: dsh: boom\n", "Error: dsh: boom"},
		{"pnpm code", "Packages: +1\n\u2009ERR_PNPM_ADDING_TO_ROOT\u2009 Running this\n", "ERR_PNPM_ADDING_TO_ROOT\u2009 Running this"},
		{"npm ERR!", "x\nnpm ERR! code E404\n", "npm ERR! code E404"},
		{"fatal", "dsh web: http://127.0.0.1:3080\nexits-dsh: fatal: giving up\n", "exits-dsh: fatal: giving up"},
		{"exception", "YAMLException: bad indentation\n", "YAMLException: bad indentation"},
		{"JSON line with Error skipped", "{\"msg\":\"Error: x\"}\nplain\n", "plain"},
		{"not pure JSON is kept", "{not json} Error: y\n", "{not json} Error: y"},
		{"box line with Error skipped", "│ Error: in box │\nafter\n", "after"},
		{"CRLF and ANSI", "\x1b[31mError: red\x1b[39m\r\n", "Error: red"},
		{"invalid UTF-8", "Error: \xff\xfe\n", "Error: \uFFFD"},
		{"no trailing newline", "last line", "last line"},
		{"bounded", long + "\n", long[:MaxFirstErrorBytes-1] + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FirstError([]byte(tt.in))
			if got != tt.want {
				t.Errorf("FirstError = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBoundLine(t *testing.T) {
	for _, n := range []int{0, 1, 511, 512, 513, 2000} {
		for _, r := range []string{"a", "é", "😀"} {
			s := strings.Repeat(r, n)
			got := boundLine(s)
			if !utf8.ValidString(got) {
				t.Errorf("%d×%q: invalid UTF-8", n, r)
			}
			if len(s) <= MaxFirstErrorBytes {
				if got != s {
					t.Errorf("%d×%q: changed a short line", n, r)
				}
				continue
			}
			body, ok := strings.CutSuffix(got, "…")
			if !ok || len(body) > MaxFirstErrorBytes || !strings.HasPrefix(s, body) {
				t.Errorf("%d×%q: bad cut %d bytes", n, r, len(got))
			}
		}
	}
}

// Without merged evidence, line searches read stdout then stderr.
func TestMergedOutputFallback(t *testing.T) {
	o := Observation{Stdout: []byte("dsh web: http://127.0.0.1:3080"), Stderr: []byte("Error: late\n")}
	if got := string(mergedOutput(o)); got != "dsh web: http://127.0.0.1:3080\nError: late\n" {
		t.Errorf("got %q", got)
	}
	o.Merged = []byte("Error: merged wins\n")
	if got := string(mergedOutput(o)); got != "Error: merged wins\n" {
		t.Errorf("got %q", got)
	}
	o = Observation{Stdout: []byte("dsh web: http://127.0.0.1:3080\n"), Liveness: &Liveness{AliveAtEnd: true, AliveFor: DefaultWindow}}
	if r := DeriveT4(o, 0); r.Status != StagePassed {
		t.Errorf("marker only on stdout, no merged: %s %q", r.Status, r.Reasons)
	}
}

// pnpm's lifecycle failure banner locates the cause; the "Packages: +1"
// line before it does not (found by the runner's unstable fixture).
func TestFirstErrorPnpmLifecycle(t *testing.T) {
	out := "Packages: +1\n+\n ELIFECYCLE  Command failed with exit code 1.\n"
	if got := FirstError([]byte(out)); got != "ELIFECYCLE  Command failed with exit code 1." {
		t.Errorf("FirstError = %q", got)
	}
}
