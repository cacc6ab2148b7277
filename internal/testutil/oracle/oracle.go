// Package oracle runs the real consumers of the artifacts dshaudit reads
// — Node's JSON.parse, commonmark.js, npm's tar — on the same bytes as
// dshaudit's readers, for the differential tests of SPEC.md "Consumers".
// It is imported by tests only.
//
// The tests run wherever node is on PATH, and the npm packages are
// looked up in the directory scripts/setup-oracles.sh installs them into
// (OraclesDir). Where they are missing a test skips, except under
// DSHAUDIT_E2E=1 (scripts/test.sh, .ci/run), where it fails naming what
// is missing. Each differential test compares N inputs (DSHAUDIT_DIFF_N,
// default DefaultN), generated and mutated from seed DSHAUDIT_DIFF_SEED
// (default 1); a long soak sets a larger N and another seed.
package oracle

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// DefaultN is the number of inputs a differential test compares per run
// unless DSHAUDIT_DIFF_N says otherwise.
const DefaultN = 3000

// N is the number of inputs each differential test compares.
func N() int {
	if n, err := strconv.Atoi(os.Getenv("DSHAUDIT_DIFF_N")); err == nil && n > 0 {
		return n
	}
	return DefaultN
}

// Seed is the seed of the generated inputs.
func Seed() int64 {
	if s, err := strconv.ParseInt(os.Getenv("DSHAUDIT_DIFF_SEED"), 10, 64); err == nil {
		return s
	}
	return 1
}

// e2e reports whether DSHAUDIT_E2E turns the end-to-end tests on, as
// internal/e2etest.Enabled reads it (that package is not imported here:
// it imports bundle, which the rules packages testing with this one are
// imported by).
func e2e() bool {
	v := strings.TrimSpace(os.Getenv("DSHAUDIT_E2E"))
	return v != "" && v != "0"
}

// OraclesDir is where scripts/setup-oracles.sh installs the pinned npm
// packages: $DSHAUDIT_ORACLES, else oracles/ in dshaudit's cache
// directory ($DSHAUDIT_CACHE, $XDG_CACHE_HOME/dshaudit or
// ~/.cache/dshaudit).
func OraclesDir() string {
	if d := os.Getenv("DSHAUDIT_ORACLES"); d != "" {
		return d
	}
	if c := os.Getenv("DSHAUDIT_CACHE"); c != "" {
		return filepath.Join(c, "oracles")
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "dshaudit", "oracles")
}

// missing skips t, or fails it under DSHAUDIT_E2E.
func missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if e2e() {
		t.Fatalf("DSHAUDIT_E2E=1 and this differential test needs "+format+" (scripts/setup-oracles.sh installs it)", args...)
	}
	t.Skipf("differential test: needs "+format+" (scripts/setup-oracles.sh installs it; under DSHAUDIT_E2E=1 its absence fails)", args...)
}

// Node returns the path of node, or skips or fails t.
func Node(t testing.TB, modules ...string) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node on PATH")
		return ""
	}
	for _, m := range modules {
		if _, err := os.Stat(filepath.Join(OraclesDir(), "node_modules", m, "package.json")); err != nil {
			missing(t, "the npm package %s in %s", m, filepath.Join(OraclesDir(), "node_modules"))
			return ""
		}
	}
	return p
}

// Run runs the JavaScript program script under node with each input,
// base64 encoded, on a line of its standard input, and returns its
// standard output's lines, which must be one per input. The program finds
// the oracle packages with require (NODE_PATH is set).
func Run(t testing.TB, script string, inputs [][]byte, modules ...string) []string {
	t.Helper()
	node := Node(t, modules...)
	f := filepath.Join(t.TempDir(), "oracle.js")
	if err := os.WriteFile(f, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	var in bytes.Buffer
	for _, b := range inputs {
		in.WriteString(base64.StdEncoding.EncodeToString(b))
		in.WriteByte('\n')
	}
	cmd := exec.Command(node, f)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(OraclesDir(), "node_modules"))
	cmd.Stdin = &in
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\n%s", f, err, errb.Bytes())
	}
	var lines []string
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != len(inputs) {
		t.Fatalf("node gave %d lines for %d inputs\n%s", len(lines), len(inputs), errb.Bytes())
	}
	return lines
}

// NodeVersion is `node --version`, for the test log.
func NodeVersion(t testing.TB) string {
	out, err := exec.Command(Node(t), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
