package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/dshaudit/dshaudit/internal/gcstart"
	"github.com/dshaudit/dshaudit/internal/termtext"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// streams carries a command's I/O so run functions are testable.
type streams struct {
	In     io.Reader
	Out    io.Writer // results
	ErrOut io.Writer // diagnostics and progress
	// Text shapes text printed for a person (global flags --width and
	// --max-text, SPEC.md "Output safety").
	Text textFlags
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	io := &streams{In: stdin, Out: stdout, ErrOut: stderr}
	root := &cobra.Command{
		Use:   "dshaudit",
		Short: "Checkable DSHIO plugin conformance: run, verify, replay",
		Long: `dshaudit runs the DSHIO T0–T4 plugin tests with real dsh in a sandbox image
pinned by digest, writes a signed deterministic evidence bundle, and verifies
such bundles offline by re-deriving every verdict from the raw evidence.

Exit codes (all commands):
  0    ok: nothing wrong found
  1    findings: verification failed, a verdict is not pass, a claim not backed
  2    usage error or unreadable input
  3    could not run: engine, image, registry or disk stopped the command
  130  interrupted (Ctrl-C); nothing half-written is left behind`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	pf := root.PersistentFlags()
	pf.IntVar(&io.Text.Width, "width", 0, fmt.Sprintf("lay text tables out in this many columns (default: $COLUMNS, else the terminal's width, else %d)", termtext.DefaultWidth))
	pf.IntVar(&io.Text.MaxText, "max-text", termtext.DefaultMaxText, "print at most this many characters of one value from a bundle, package or claim (0: no bound; --json is never cut)")
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		// Only `dshaudit verify` keeps the start-up GC tuning (DESIGN.md
		// "Start-up cost"), however its flags are placed.
		if c.Parent() != root || c.Name() != "verify" {
			gcstart.Restore()
		}
		if io.Text.Width < 0 || io.Text.MaxText < 0 {
			return fmt.Errorf("%w: --width and --max-text must not be negative", ErrUsage)
		}
		return nil
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w: %v (see %s --help)", ErrUsage, err, c.CommandPath())
	})
	// Every command, each in its own file with its options struct and run
	// function.
	root.AddCommand(
		newBatchCmd(io),
		newCleanupCmd(io),
		newImageCmd(io),
		newInspectCmd(io),
		newKeyCmd(io),
		newReplayCmd(io),
		newReportCmd(io),
		newRunCmd(io),
		newStaticCmd(io),
		newVerifyCmd(io),
		newVerifySummaryCmd(io),
	)
	return root
}
