package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/engine"
	"github.com/dshaudit/dshaudit/internal/termtext"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/replay"
	"github.com/dshaudit/dshaudit/replay/compare"
	"github.com/dshaudit/dshaudit/runner"
)

// ReplayMediaType identifies the --json object of `dshaudit replay`.
const ReplayMediaType = "application/vnd.dshaudit.replay-result.v1+json"

// replayOptions are the flags of `dshaudit replay`.
type replayOptions struct {
	Bundle string
	Trust  trustFlags // --key / --trusted-root … verify the original
	Sign   signFlags  // --signing-key signs the new bundle
	// pub is --pub, the trusted key's old name (hidden, deprecated).
	pub              string
	ImageFrom        string
	InsecureLoop     bool
	PackageFile      string
	Out              string
	UnverifiedUnsafe bool
	sandboxFlags
	JSON bool
}

func newReplayCmd(s *streams) *cobra.Command {
	o := &replayOptions{}
	c := &cobra.Command{
		Use:   "replay BUNDLE (--key PUB | --trusted-root FILE ...) (--signing-key KEY | --keyless) [--image-from SOURCE] [--out FILE]",
		Short: "Re-run a bundle's sequence against its image digest and compare stage by stage",
		Long: `replay reproduces a run from its bundle: it verifies the original (refusing
one that does not verify unless --unverified-unsafe), gets the image by the
digest the bundle names and checks it, re-runs the exact recorded sequence
(package and exact version, repetitions, window, timeouts, commands and
deviations), writes a new signed bundle that names the original by digest,
and compares the two stage by stage after the normalisation of SPEC.md
"Replay": verdicts, exit codes, first_error and evidence.

Result: REPRODUCED, DIFFERENT (naming the first stage that differs, with a
diff), or COULD-NOT-RUN when the replay itself could not run (engine
missing, image unavailable, registry down) — never a plugin result. It also
lists the recorded conditions that changed and whether the fingerprints are
equal.

--image-from: engine (the engine's store, default), registry (pull by
digest), oci-layout:DIR or oci-archive:FILE (what an author attaches to a
release).

A local package is replayed from the tarball the bundle holds
(static/package.tgz, specification version 1.15). A bundle written before holds none: give
the tarball or directory with --package-file; its sha256 must equal the
recorded one. --package-file, when given, is used instead of the held one.

--key (or --trusted-root and an identity rule) is whom the original must
be signed by, as for verify; --signing-key signs the new bundle. The old
spelling "--pub PUB --key KEY" (KEY signing) still works, with a warning.

Exit codes:
  0  REPRODUCED
  1  DIFFERENT, or the original does not verify
  2  usage error or unreadable bundle
  3  COULD-NOT-RUN
  130 interrupted; no partial bundle, no container left`,
		Example: `  # reproduce a year-old run from its bundle and the archived image
  dshaudit replay hello-dsh-plugin-1.0.0.dshaudit.tar.zst --key author.pub \
      --signing-key me.key --image-from oci-archive:dsh-sandbox.oci.tar

  # a local fixture plugin: the tarball is given again
  dshaudit replay pass.dshaudit.tar.zst --key author.pub --signing-key me.key \
      --package-file testdata/plugins/pass --out pass.replay.dshaudit.tar.zst

  dshaudit replay b.dshaudit.tar.zst --key author.pub --signing-key me.key --json

  # a keyless original, checked against the workflow that signed it; the
  # replay signed keylessly too
  dshaudit replay b.dshaudit.tar.zst --trusted-root trusted_root.json \
      --certificate-identity https://github.com/OWNER/REPO/.github/workflows/release.yml@refs/tags/v1.2.3 \
      --certificate-oidc-issuer https://token.actions.githubusercontent.com --keyless`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Bundle = args[0]
			return runReplay(cmd.Context(), o, s)
		},
	}
	f := c.Flags()
	o.Trust.register(f)
	f.StringVar(&o.pub, "pub", "", "deprecated: the old name of --key")
	if err := f.MarkHidden("pub"); err != nil {
		panic(err)
	}
	o.Sign.register(f, "private key that signs the new bundle (required unless --keyless)")
	f.StringVar(&o.ImageFrom, "image-from", "engine", "engine, registry, oci-layout:DIR or oci-archive:FILE")
	f.BoolVar(&o.InsecureLoop, "insecure-loopback-registry", false, "with --image-from registry: allow plain HTTP to a loopback registry")
	f.StringVar(&o.PackageFile, "package-file", "", "the tarball or directory of a local subject")
	f.StringVar(&o.Out, "out", "", "new bundle (default <original>.replay"+manifest.BundleSuffix+")")
	f.BoolVar(&o.UnverifiedUnsafe, "unverified-unsafe", false, "replay an original that does not verify (said in the output and the new bundle)")
	o.sandboxFlags.register(f)
	f.BoolVar(&o.JSON, "json", false, "print the result object ("+ReplayMediaType+")")
	return c
}

func (o *replayOptions) imageSource() (engine.Source, error) {
	kind, path, _ := strings.Cut(o.ImageFrom, ":")
	switch {
	case kind == "engine" && path == "":
		return engine.FromStore(), nil
	case kind == "registry" && path == "":
		return engine.FromRegistry(o.InsecureLoop), nil
	case kind == "oci-layout" && path != "":
		return engine.FromOCILayout(path), nil
	case kind == "oci-archive" && path != "":
		return engine.FromOCIArchive(path), nil
	}
	return engine.Source{}, fmt.Errorf("%w: --image-from %q: want engine, registry, oci-layout:DIR or oci-archive:FILE", ErrUsage, o.ImageFrom)
}

// applyOldSpelling reads replay's old flags, with a warning on errOut:
// --pub was the trusted key, and beside it --key was the signing key. It
// returns the flag the trusted key came with, for errors.
func (o *replayOptions) applyOldSpelling(errOut io.Writer) (keyFlag, signFlag string, err error) {
	switch {
	case o.pub == "":
		return "--key", "--signing-key", nil
	case o.Trust.Key == "":
		fmt.Fprintln(errOut, "dshaudit: --pub is deprecated: use --key for the public key that verifies the original")
		o.Trust.Key = o.pub
		return "--pub", "--signing-key", nil
	case o.Sign.SigningKey != "":
		return "", "", fmt.Errorf("%w: --pub with --key is the old spelling, where --key signs; with --signing-key, give --key for the trusted key and no --pub", ErrUsage)
	}
	fmt.Fprintln(errOut, "dshaudit: --pub PUB --key KEY is the old spelling (KEY signs the new bundle); use --key PUB --signing-key KEY")
	o.Sign.SigningKey, o.Trust.Key = o.Trust.Key, o.pub
	return "--pub", "--key", nil
}

func runReplay(ctx context.Context, o *replayOptions, s *streams) error {
	keyFlag, signFlag, err := o.applyOldSpelling(s.ErrOut)
	if err != nil {
		return err
	}
	pol, err := o.Trust.policyWith(keyFlag)
	if err != nil {
		return fmt.Errorf("%w (%s or --trusted-root verifies the original)", err, keyFlag)
	}
	signer, err := o.Sign.Keyless.bundleSigner(ctx, signFlag, o.Sign.SigningKey)
	if err != nil {
		return err
	}
	src, err := o.imageSource()
	if err != nil {
		return err
	}
	showProgress, err := o.progressOn(s.ErrOut)
	if err != nil {
		return err
	}
	out := o.Out
	if out == "" {
		out = strings.TrimSuffix(o.Bundle, manifest.BundleSuffix) + ".replay" + manifest.BundleSuffix
	}
	if err := checkOutDir(out); err != nil {
		return err
	}
	// An unreadable original is a usage error, found before any engine
	// is looked for.
	if err := readableBundle(o.Bundle); err != nil {
		return fmt.Errorf("%w: %w: %w", ErrUsage, replay.ErrOriginal, err)
	}
	r, err := o.newRunner(ctx, showProgress, s)
	if errors.Is(err, ErrCouldNotRun) {
		return printCouldNotRun(s, o, err)
	} else if err != nil {
		return err
	}
	res, err := replay.Run(ctx, *r, replay.Options{
		Original: o.Bundle, Policy: pol, UnverifiedUnsafe: o.UnverifiedUnsafe, ImageSource: src,
		PackageFile: o.PackageFile, Out: out, Signer: signer, CACert: o.caCert(),
		Tool: manifest.Tool{Name: "dshaudit", Version: version},
	})
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("interrupted; no bundle written, no container left: %w", ctx.Err())
	case errors.Is(err, replay.ErrCouldNotRun):
		return printCouldNotRun(s, o, err)
	case errors.Is(err, replay.ErrNotVerified):
		fmt.Fprintf(s.ErrOut, "dshaudit: %s\n", termtext.Field(err.Error(), s.Text.MaxText))
		fmt.Fprintln(s.ErrOut, "dshaudit: run dshaudit verify on it to see why; --unverified-unsafe replays it anyway")
		return silentError{fmt.Errorf("%w: %w", ErrFindings, err)}
	case errors.Is(err, replay.ErrOriginal), errors.Is(err, replay.ErrPackageFile), errors.Is(err, runner.ErrOptions):
		return fmt.Errorf("%w: %w", ErrUsage, err)
	case errors.Is(err, replay.ErrSubjectMismatch):
		// Not silent: nothing else reports it.
		return fmt.Errorf("%w: %w", ErrFindings, err)
	case err != nil:
		return printCouldNotRun(s, o, err)
	}
	if o.JSON {
		if err := writeJSON(s.Out, struct {
			MediaType     string `json:"media_type"`
			SchemaVersion int    `json:"schema_version"`
			*compare.Result
		}{ReplayMediaType, 1, res}); err != nil {
			return err
		}
	} else {
		printReplay(s.Out, s.style(), res)
	}
	if res.Outcome != compare.Reproduced {
		return silentError{ErrFindings}
	}
	return nil
}

func printCouldNotRun(s *streams, o *replayOptions, err error) error {
	if o.JSON {
		writeJSON(s.Out, map[string]any{"media_type": ReplayMediaType, "schema_version": 1, "outcome": compare.CouldNotRun, "original": o.Bundle, "why": err.Error()})
	} else {
		fmt.Fprintf(s.Out, "RESULT: %s (%s)\n", compare.CouldNotRun.Text(), termtext.Field(err.Error(), s.Text.MaxText))
	}
	return silentError{fmt.Errorf("%w: %w", ErrCouldNotRun, err)}
}

// printReplay prints the comparison for a person; every value from either
// bundle (paths, verdicts, evidence lines of the diff, conditions) is
// escaped and bounded and the table fits st.Width (SPEC.md "Output
// safety").
func printReplay(w io.Writer, st termtext.Style, r *compare.Result) {
	f := st.Field
	state := "verified"
	if !r.Verified {
		state = "DID NOT VERIFY — replayed with --unverified-unsafe"
	}
	fmt.Fprintf(w, "original:  %s (%s) %s\n", f(r.Original), r.OriginalSHA256, state)
	if r.Written != nil {
		fmt.Fprintf(w, "replay:    %s (%s)\n", f(r.Written.Path), r.Written.SHA256)
	}
	c := r.Comparison
	if c == nil {
		fmt.Fprintf(w, "RESULT: %s\n", r.Outcome.Text())
		return
	}
	fmt.Fprintf(w, "verdict:   %s → %s\n", f(orNone(c.OldVerdict)), f(orNone(c.NewVerdict)))
	tb := termtext.NewTable("", "REP", "STAGE", "ORIGINAL", "REPLAY", "")
	for _, row := range c.Rows {
		mark := "same"
		if !row.Same {
			mark = "DIFFERS: " + strings.Join(row.Differences, "; ")
		}
		tb.Row(fmt.Sprint(row.Repetition), row.Stage,
			stageCell(row.OldStatus, row.OldVerdict, row.OldExit), stageCell(row.NewStatus, row.NewVerdict, row.NewExit), mark)
	}
	tb.Write(w, st.Width)
	for _, d := range c.Diff {
		// A diff is lines of evidence: each is escaped and bounded on
		// its own, so none can pass for a line of ours.
		for _, l := range strings.Split(strings.TrimSuffix(d, "\n"), "\n") {
			fmt.Fprintf(w, "%s\n", f(l))
		}
	}
	fmt.Fprintf(w, "fingerprints equal: %v\n", c.FingerprintsEqual)
	for _, ch := range c.ChangedConditions {
		fmt.Fprintf(w, "condition changed: %s\n", f(ch))
	}
	res := c.Outcome.Text()
	if c.FirstDifferent != "" {
		res += " (first: " + f(c.FirstDifferent) + ")"
	}
	fmt.Fprintf(w, "RESULT: %s\n", res)
}

func stageCell(status, verdict string, exit *int) string {
	s := status
	if verdict != "" {
		s += " " + verdict
	}
	if exit != nil {
		s += fmt.Sprintf(" exit=%d", *exit)
	}
	return s
}

// readableBundle reads path as a bundle archive within the default limits.
func readableBundle(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = bundle.Read(f, bundle.DefaultLimits())
	return err
}
