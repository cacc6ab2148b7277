// Command dshaudit runs DSHIO plugin conformance tests into signed evidence
// bundles, verifies such bundles offline, and replays them. See README.md
// and SPEC.md.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/dshaudit/dshaudit/internal/termtext"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// execute runs the CLI with explicit streams and returns the exit code, so
// tests can drive it without a process.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil {
		if !isSilent(err) {
			// Errors quote untrusted names and values: escaped, never
			// cut (SPEC.md "Output safety").
			fmt.Fprintf(stderr, "dshaudit: %s\n", termtext.Escape(err.Error()))
		}
	}
	return exitCode(ctx, err)
}
