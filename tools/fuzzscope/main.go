// Command fuzzscope narrows what `go test -fuzz` instruments for coverage:
// run as `go test -fuzz F -toolexec "fuzzscope PREFIXES"`, it passes
// every tool invocation through unchanged, except that it compiles
// packages whose import path starts with none of the comma-separated
// PREFIXES without the fuzzing engine's coverage instrumentation
// (-d=libfuzzer). The fuzzer then runs the same code but is guided by
// coverage of the named packages only, and its per-execution pass over
// the coverage counters covers those packages only (DESIGN.md
// "Fuzzing").
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// instrumentFlag is the compiler flag cmd/go adds to every package of a
// fuzzing test binary (cmd/go/internal/work.fuzzInstrumentFlags).
const instrumentFlag = "-d=libfuzzer"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is fuzzscope with its arguments (PREFIXES TOOL ARGS...): it runs
// TOOL with ARGS, scoped, and returns the exit code.
func run(argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(argv) < 2 {
		fmt.Fprintln(stderr, "usage: go test -fuzz F -toolexec \"fuzzscope PREFIX[,PREFIX...]\" PKG")
		return 2
	}
	tool, args := argv[1], scope(argv[1], argv[2:], strings.Split(argv[0], ","))
	cmd := exec.Command(tool, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	var version strings.Builder
	if isCompile(tool) && slices.Equal(args, []string{"-V=full"}) {
		// cmd/go keys its build cache on this line: naming the scope in
		// it keeps packages compiled under one scope (or none) apart
		// from the same packages compiled under another.
		cmd.Stdout = &version
	}
	err := cmd.Run()
	if version.Len() > 0 {
		fmt.Fprintf(stdout, "%s fuzzscope=%s\n", strings.TrimSpace(version.String()), argv[0])
	}
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		fmt.Fprintf(stderr, "fuzzscope: %v\n", err)
		return 3
	}
	return 0
}

// scope returns the arguments of one tool invocation: a compile of a
// package outside prefixes loses the instrumentation flag, everything
// else is unchanged.
func scope(tool string, args, prefixes []string) []string {
	if !isCompile(tool) {
		return args
	}
	pkg := ""
	for i, a := range args {
		if a == "-p" && i+1 < len(args) {
			pkg = args[i+1]
		}
	}
	for _, p := range prefixes {
		if p != "" && strings.HasPrefix(pkg, p) {
			return args
		}
	}
	return slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == instrumentFlag })
}

// isCompile reports whether tool is the Go compiler.
func isCompile(tool string) bool {
	return strings.TrimSuffix(filepath.Base(tool), ".exe") == "compile"
}
