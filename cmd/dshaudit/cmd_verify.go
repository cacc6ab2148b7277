package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dshaudit/dshaudit/claim"
	"github.com/dshaudit/dshaudit/internal/termtext"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/verify"
	"github.com/dshaudit/dshaudit/vsa"
)

// verifyOptions are the flags of `dshaudit verify`.
type verifyOptions struct {
	Bundles []string
	trustFlags
	JSON bool
	// Claim is a README or any text holding a declaration, or a package
	// tarball whose README is read; Package is the name@version claimed.
	Claim   string
	Package string
	// Artifact is a package tarball that must be the one the bundle
	// tested (SPEC.md "The tested tarball").
	Artifact string
	Jobs     int
	limitFlags
	summaryFlags
	// StepSummary is a file a Markdown summary is appended to.
	StepSummary string
}

func newVerifyCmd(s *streams) *cobra.Command {
	o := &verifyOptions{}
	c := &cobra.Command{
		Use:   "verify BUNDLE|DIR... (--key PUB | --trusted-root FILE ...) [--claim FILE [--package NAME@VERSION]] [--artifact TGZ]",
		Short: "Verify an evidence bundle offline and re-derive every verdict",
		Long: `verify checks an evidence bundle offline, with no network and no container:
archive safety, the signature, every file against the manifest, then it
re-derives the T0 clauses and every stage verdict of every repetition from
the raw evidence and compares them with what the bundle claims, and applies
the report rules of DSHIO/T 20 12, DSHIO/T 21 5.2 and 8.2, DSHIO/T 10 8.2.

Every finding is printed (stdout), each naming the file, field or clause,
then one line: verified / verdict mismatch / tampered / signature invalid /
statement unsupported / unsigned / rule violation, and whether the result is usable for
certification (a deviated or unstable result never is).

With --claim, every declaration of conformity in FILE (a README, any text,
or a package tarball whose README is read) is parsed and checked against the
verified bundle (DSHIO/T 10 8.1–8.3, 7.2, 7.5): result claim backed / claim
not backed / claim contradicts bundle, each finding naming its line. A
claim is for one package version, named by its Package: line (the
declaration run prints has one), by --package, or by the tarball's
package.json; a declaration that names none is not backed.

With --artifact TGZ, the package tarball you hold must be, byte for byte,
the tarball the bundle holds and tested (static/package.tgz): otherwise, or
when the bundle holds none (written before specification version 1.15), verify fails with a
subject-mismatch finding on "artifact".

Given several bundles or a directory, every *.dshaudit.tar.zst under the
paths is verified in parallel and a summary is printed: counts by verdict
code (compare DSHIO/T 20 Annex B) and the bundles that failed, with why.
A path given is followed; under a directory, symbolic links are not, and
every symbolic link, named pipe, socket, device or unreadable entry there
is listed as skipped and counts as a failure (exit 1).

Every value from the bundle or the claim is shown escaped (control
characters, escape sequences, bidi controls as \x1b, \u202e, …) and cut
after --max-text characters, so none can pass for a line of the verifier's;
tables fit --width. --json keeps every value raw and whole.

Trust is explicit: give exactly one of --key (a public key) or
--trusted-root (a Sigstore trusted_root.json, for keyless bundles, with an
identity rule or --insecure-any-identity).

With --summary FILE (one bundle), a signed verification summary is written
whatever the result: a SLSA Verification Summary Attestation v1 in a
Sigstore bundle, signed with --summary-key or, with --keyless, by a
short-lived Fulcio certificate for an OIDC identity (the keyless flags of
run: --identity-token, --signing-config, ...), saying PASSED exactly when
the exit code is 0, with dshaudit's levels (SPEC.md "Verification
summary"); --summary-dsse also writes its bare DSSE envelope, for
slsa-verifier (key-signed only: slsa-verifier checks no keyless
summary). A key-signed one has no time unless --now gives one, so the
same verification gives the same file. Check one with dshaudit verify-summary. --step-summary appends
a Markdown summary (GitHub's $GITHUB_STEP_SUMMARY).

Exit codes:
  0  verified: signature valid, files intact, every verdict re-derived equal
     (and, with --claim, the claim is backed; with many bundles, all verified)
  1  anything else found
  2  usage error or unreadable input`,
		Example: `  # verify a bundle signed with a key
  dshaudit verify hello-dsh-plugin-1.0.0.dshaudit.tar.zst --key dshaudit.pub

  # keyless, with a Sigstore trusted root and an identity rule
  dshaudit verify b.tar.zst --trusted-root trusted_root.json \
      --certificate-identity dev@example.com \
      --certificate-oidc-issuer https://accounts.example.com

  # machine-readable result
  dshaudit verify b.tar.zst --key dshaudit.pub --json | jq .status

  # check a README's declaration of conformity against the bundle
  dshaudit verify b.tar.zst --key dshaudit.pub --claim README.md \
      --package hello-dsh-plugin@1.0.0

  # the README straight from the published tarball
  dshaudit verify b.tar.zst --key dshaudit.pub --claim hello-dsh-plugin-1.0.0.tgz

  # the tarball you downloaded is the one that was tested
  dshaudit verify b.tar.zst --key dshaudit.pub --artifact hello-dsh-plugin-1.0.0.tgz

  # many bundles at once
  dshaudit verify ./bundles/ --key dshaudit.pub

  # publish what you verified: a signed verification summary
  dshaudit verify b.tar.zst --key author.pub --summary b.vsa.sigstore.json \
      --summary-key registry.key --summary-verifier-id https://registry.example/dshaudit
  # the same, signed keylessly (in GitHub Actions: permissions: id-token: write)
  dshaudit verify b.tar.zst --key author.pub --summary b.vsa.sigstore.json --keyless`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Bundles = args
			return runVerify(cmd, o, s)
		},
	}
	f := c.Flags()
	o.trustFlags.register(f)
	f.BoolVar(&o.JSON, "json", false, "print the result object ("+verify.ResultMediaType+")")
	f.StringVar(&o.Claim, "claim", "", "check the declarations of conformity in this README, text or package tarball")
	f.StringVar(&o.Package, "package", "", "with --claim: the NAME@VERSION the claim is for")
	f.StringVar(&o.Artifact, "artifact", "", "require this package tarball to be the one the bundle tested (by digest)")
	o.limitFlags.register(f)
	o.summaryFlags.register(f)
	f.StringVar(&o.StepSummary, "step-summary", "", "append a Markdown summary of the result to FILE (e.g. $GITHUB_STEP_SUMMARY)")
	f.IntVar(&o.Jobs, "jobs", 0, "with many bundles: how many to verify at once (default: number of CPUs)")
	return c
}

// policyFromFlags builds the trust policy; attest refuses ambiguity.
func runVerify(cmd *cobra.Command, o *verifyOptions, s *streams) error {
	pol, err := o.policy()
	if err != nil {
		return err
	}
	if err := o.checkLimits(); err != nil {
		return err
	}
	signer, now, err := o.summaryFlags.prepare(cmd.Context())
	if err != nil {
		return err
	}
	opts := verify.Options{Policy: pol, Limits: o.Limits, RuleLimits: o.RuleLimits, Now: now}
	paths, skipped, err := verify.Walk(o.Bundles)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	single := len(o.Bundles) == 1 && len(paths) == 1 && paths[0] == o.Bundles[0] && len(skipped) == 0
	if !single {
		if o.Claim != "" {
			return fmt.Errorf("%w: --claim checks one bundle; give one bundle file", ErrUsage)
		}
		if o.Artifact != "" {
			return fmt.Errorf("%w: --artifact checks one bundle; give one bundle file", ErrUsage)
		}
		if signer != nil || o.StepSummary != "" {
			return fmt.Errorf("%w: --summary and --step-summary summarise one bundle; give one bundle file", ErrUsage)
		}
		if len(paths) == 0 && len(skipped) == 0 {
			return fmt.Errorf("%w: no *%s file under %s", ErrUsage, manifest.BundleSuffix, strings.Join(o.Bundles, ", "))
		}
		return runVerifyMany(cmd, o, s, paths, skipped, opts)
	}
	var claimText []byte
	claimPkg := o.Package
	if o.Claim != "" {
		text, pkg, err := readClaim(o.Claim)
		if err != nil {
			return fmt.Errorf("%w: --claim: %w", ErrUsage, err)
		}
		claimText = text
		if claimPkg == "" {
			claimPkg = pkg
		}
	}
	if o.Artifact != "" {
		a, err := artifactDigests(o.Artifact)
		if err != nil {
			return err
		}
		opts.Artifact = &a
	}
	path := paths[0]
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	defer f.Close()
	// One bundle: its decoding can take the core the rest leaves idle.
	opts.DecodeAhead = true
	// The summary names the signature file's digest.
	opts.KeepEvidence = signer != nil
	rep, err := verify.Verify(cmd.Context(), path, f, opts)
	if err != nil {
		if errors.Is(err, verify.ErrUnreadable) {
			return fmt.Errorf("%w: %w", ErrUsage, err)
		}
		return err
	}
	var cr *claim.Result
	if o.Claim != "" {
		r := claim.Check(string(claimText), claim.FactsFromReport(rep), claimPkg)
		cr = &r
	}
	if o.JSON {
		out := struct {
			*verify.Report
			Claim *claim.Result `json:"claim,omitempty"`
		}{rep, cr}
		if err := writeJSON(s.Out, out); err != nil {
			return err
		}
	} else {
		st := s.style()
		printVerifyReport(s.Out, st, rep)
		if cr != nil {
			printClaim(s.Out, st, o.Claim, cr)
		}
	}
	passed := rep.OK() && (cr == nil || cr.Outcome == claim.Backed)
	var result string
	var levels []string
	if signer != nil && (rep.Package == nil || rep.Package.Name == "") {
		// No manifest names a package: there is nothing a summary could
		// name (SPEC.md "Verification summary"). Such a bundle never
		// verifies, so the exit status says so.
		fmt.Fprintf(s.ErrOut, "dshaudit: no verification summary written: the bundle has no readable manifest naming its package\n")
		signer = nil
	}
	if signer != nil {
		// Written whatever the result: a summary of a bundle that did not
		// verify says FAILED.
		in := summaryInput(rep, passed, o.VerifierID, now)
		if err := writeSummary(cmd.Context(), &o.summaryFlags, signer, in); err != nil {
			return err
		}
		result, levels = vsa.Passed, in.Levels
		if !passed {
			result, levels = vsa.Failed, []string{vsa.Failed}
		}
		fmt.Fprintf(s.ErrOut, "dshaudit: wrote verification summary %s (%s)\n", o.Summary, result)
	}
	if o.StepSummary != "" {
		st := s.style()
		if err := writeStepSummary(o.StepSummary, st, rep, result, levels); err != nil {
			return fmt.Errorf("--step-summary: %w", err)
		}
	}
	if !passed {
		return silentError{ErrFindings}
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printClaim prints the claim check. Every value from the claim text or
// the bundle goes through st.Field (SPEC.md "Output safety").
func printClaim(w io.Writer, st termtext.Style, name string, r *claim.Result) {
	fmt.Fprintf(w, "claim:        %s: %d declaration(s)\n", st.Field(name), len(r.Declarations))
	for _, d := range r.Declarations {
		fmt.Fprintf(w, "  line %d: %s\n", d.Line, st.Field(fmt.Sprintf("%s (baseline DSH %s, %s) tested %s", d.Standard, d.Baseline, d.Scope, orNone(d.Tested))))
	}
	for _, f := range r.Findings {
		fmt.Fprintf(w, "  %s\n", st.Field(f.String()))
		if f.Text != "" {
			fmt.Fprintf(w, "      > %s\n", st.Field(f.Text))
		}
	}
	fmt.Fprintf(w, "CLAIM: %s\n", r.Outcome.Text())
}

// printProducedBy says whose word the evidence is, once the signature
// verified (SPEC.md "Runner policy").
func printProducedBy(w io.Writer, st termtext.Style, r *verify.Report) {
	switch r.ProducedBy {
	case verify.ProducedByAuditWorkflow:
		fmt.Fprintf(w, "produced by:  the audit workflow %s on a GitHub-hosted runner (runner policy held: the signer could not change what ran)\n", st.Field(r.AuditWorkflow))
	case verify.ProducedBySigner:
		fmt.Fprintf(w, "produced by:  the signer's word (no runner policy: --certificate-audit-workflow)\n")
	}
}

// printVerifyReport prints the result for a person. Every value read from
// the bundle is escaped and bounded (st.Field, termtext.Table), so no
// bundle text can start a line of its own: the RESULT line is always the
// verifier's (SPEC.md "Output safety").
func printVerifyReport(w io.Writer, st termtext.Style, r *verify.Report) {
	fmt.Fprintf(w, "bundle:       %s (%s)\n", st.Field(r.Bundle), r.BundleSHA256)
	if p := r.PackageID(); p != "" {
		fmt.Fprintf(w, "package:      %s\n", st.Field(p))
	}
	if t := r.Tarball; t != nil {
		// Derived from the bytes the bundle holds: no escaping needed.
		fmt.Fprintf(w, "tarball:      sha256:%s %s (%d bytes, held in the bundle)\n", t.SHA256(), t.Integrity(), t.Size())
	} else if r.Package != nil {
		fmt.Fprintf(w, "tarball:      not held in the bundle: the package's digests are the writer's word\n")
	}
	if r.Signer != "" {
		fmt.Fprintf(w, "signer:       %s\n", st.Field(r.Signer))
	}
	printCertificate(w, st, r.Certificate, r.SignedAt)
	printProducedBy(w, st, r)
	if r.Fingerprint != "" {
		fmt.Fprintf(w, "fingerprint:  %s\n", st.Field(r.Fingerprint))
	}
	if r.TestDate != "" {
		fmt.Fprintf(w, "tested:       %s\n", st.Field(fmt.Sprintf("%s (baseline %s)", r.TestDate, r.Baseline)))
	}
	if r.ConformingStatic != nil {
		fmt.Fprintf(w, "T0:           conforming_static=%v\n", *r.ConformingStatic)
	}
	for _, rp := range r.Repetitions {
		fmt.Fprintf(w, "repetition %d: %s\n", rp.Index, st.Field(rp.Verdict))
		tb := termtext.NewTable("  ", "STAGE", "STATUS", "VERDICT", "EXIT", "DURATION", "FIRST ERROR")
		for _, sv := range rp.Stages {
			exit, dur := "-", "-"
			if sv.ExitCode != nil {
				exit, dur = fmt.Sprint(*sv.ExitCode), fmt.Sprintf("%dms", sv.DurationMS)
			}
			tb.Row(sv.Stage, sv.DerivedStatus, dash(sv.DerivedVerdict), exit, dur, dash(sv.FirstError))
		}
		tb.Write(w, st.Width)
	}
	if r.Dynamic {
		fmt.Fprintf(w, "verdict:      claimed %s, re-derived %s\n", st.Field(orNone(r.ClaimedVerdict)), orNone(r.DerivedVerdict))
	}
	for _, d := range r.Deviations {
		fmt.Fprintf(w, "deviation:    %s\n", st.Field(d))
	}
	if len(r.Unverified) > 0 {
		// The writer's word: neither derived nor cross-checked (SPEC.md
		// "Manifest fields and how each is checked"). Bundle text: escaped
		// and bounded like every other value (SPEC.md "Output safety").
		fmt.Fprintf(w, "unverified metadata (the writer's word, not checked) (%d):\n", len(r.Unverified))
		for _, u := range r.Unverified {
			fmt.Fprintf(w, "  %s: %s\n", st.Field(u.Field), st.Field(u.Value))
		}
	}
	if len(r.Findings) > 0 {
		fmt.Fprintf(w, "findings (%d):\n", len(r.Findings))
		for _, f := range r.Findings {
			fmt.Fprintf(w, "  %s\n", st.Field(f.String()))
		}
	}
	usable := "yes"
	if !r.Usable {
		usable = "no (" + st.Field(strings.Join(r.NotUsable, "; ")) + ")"
	}
	fmt.Fprintf(w, "usable for certification: %s\n", usable)
	fmt.Fprintf(w, "RESULT: %s\n", r.Status.Text())
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// artifactDigests hashes the package tarball given with --artifact.
func artifactDigests(path string) (vsa.Tarball, error) {
	f, err := os.Open(path)
	if err != nil {
		return vsa.Tarball{}, fmt.Errorf("%w: --artifact: %w", ErrUsage, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
		return vsa.Tarball{}, fmt.Errorf("%w: --artifact: %q is not a regular file", ErrUsage, path)
	}
	t, err := vsa.TarballFrom(f)
	if err != nil {
		return vsa.Tarball{}, fmt.Errorf("%w: --artifact: %w", ErrUsage, err)
	}
	return t, nil
}
