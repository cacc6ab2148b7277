package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/claim"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/report"
	"github.com/dshaudit/dshaudit/verify"
)

// reportOptions are the flags of `dshaudit report`.
type reportOptions struct {
	Bundles []string
	Trust   trustFlags // --key / --trusted-root …
	limitFlags
	Claim   string
	Package string
	// Artifact is a package tarball that must be the one tested.
	Artifact string
	Replay   string
	Out      string
	Layout   report.Layout
	JSON     bool
}

// ReportMediaType identifies the --json object of `dshaudit report`.
const ReportMediaType = "application/vnd.dshaudit.report-result.v1+json"

// reportResult is report --json (schema/report-result.schema.json):
// the pages written, one per bundle, and the index of a site.
type reportResult struct {
	MediaType     string       `json:"media_type"`
	SchemaVersion int          `json:"schema_version"`
	Index         string       `json:"index"`
	Pages         []reportPage `json:"pages"`
}

// reportPage is one bundle's page: Status is verify's status, or
// "unreadable" (then Page is "" and Error says why); Verdict is the
// index's category (a verdict code, "static only" or "not verified").
type reportPage struct {
	Bundle   string `json:"bundle"`
	Page     string `json:"page"`
	Status   string `json:"status"`
	Verdict  string `json:"verdict"`
	Verified bool   `json:"verified"`
	Usable   bool   `json:"usable_for_certification"`
	Error    string `json:"error,omitempty"`
}

func pageResult(e report.Entry, page string) reportPage {
	return reportPage{Bundle: e.Bundle, Page: page, Status: e.Status, Verdict: e.Category, Verified: e.Verified, Usable: e.Usable, Error: e.Error}
}

func newReportCmd(s *streams) *cobra.Command {
	o := &reportOptions{}
	c := &cobra.Command{
		Use:   "report BUNDLE (--key PUB | --trusted-root FILE ...) [--claim FILE] [--artifact TGZ] [--replay FILE] [-o report.html] | report BUNDLE|DIR... -o SITE/",
		Short: "Write a self-contained HTML page of a bundle's verification",
		Long: `report verifies a bundle exactly as verify does and writes what it found as
one self-contained HTML page: verified or not verified first, with every
finding; the re-derived verdict, whether it is unstable and whether it is
usable for certification, with the reasons; the declaration the result
supports and, with --claim, the claim check with its line-level findings; a
timeline per repetition (stage, duration, exit code, network, timed out);
the re-derived T0 clause table; each deviation; the fingerprint and the
image digest; and every stage's evidence with line numbers, the first_error
line highlighted and linked from the summary. With --replay, the result of
dshaudit replay --json is shown beside it (as given: it is not signed).
With --artifact TGZ, the package tarball you hold must be the one the
bundle holds and tested, as for verify --artifact; a finding otherwise.

The page is built from the verification result, never from the bundle's
claims: values only the manifest records are labelled recorded (or
unverified, when the bundle did not verify). It has inline CSS and SVG, no
script, and a Content-Security-Policy that forbids every fetch, so it works
from file:// and loads nothing. Every string from the bundle is escaped.
The same bundle and flags give byte-identical HTML.

Given several bundles or a directory, -o names a directory: it gets
index.html (the distribution of re-derived verdict codes, compare DSHIO/T 20
Annex B, as a chart) and one page per bundle.

Exit codes:
  0  written, and every bundle verified (and, with --claim, the claim is backed)
  1  written, but a bundle did not verify or the claim is not backed
  2  usage error or unreadable input`,
		Example: `  # one page
  dshaudit report b.dshaudit.tar.zst --key dshaudit.pub -o report.html

  # with the README's claim and a replay result
  dshaudit replay b.dshaudit.tar.zst --key dshaudit.pub --signing-key me.key --json > replay.json
  dshaudit report b.dshaudit.tar.zst --key dshaudit.pub --claim README.md \
      --replay replay.json -o report.html

  # a site for a directory of bundles
  dshaudit report ./bundles/ --key dshaudit.pub -o site/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Bundles = args
			return runReport(cmd, o, s)
		},
	}
	f := c.Flags()
	o.Trust.register(f)
	f.StringVar(&o.Claim, "claim", "", "check the declarations of conformity in this README, text or package tarball")
	f.StringVar(&o.Package, "package", "", "with --claim: the NAME@VERSION the claim is for")
	f.StringVar(&o.Artifact, "artifact", "", "require this package tarball to be the one the bundle tested (by digest)")
	f.StringVar(&o.Replay, "replay", "", "show this result of dshaudit replay --json")
	f.StringVarP(&o.Out, "output", "o", "", "the page to write (default: stdout); with many bundles, a directory")
	f.BoolVar(&o.JSON, "json", false, "with -o: print what was written as one object ("+ReportMediaType+")")
	f.IntVar(&o.Layout.MaxLines, "max-lines", report.DefaultMaxLines, "show at most this many lines of one evidence file")
	f.IntVar(&o.Layout.Context, "context", report.DefaultContext, "lines either side of a first_error line that stay open")
	o.limitFlags.register(f)
	o.limitFlags.registerClock(f)
	return c
}

func runReport(cmd *cobra.Command, o *reportOptions, s *streams) error {
	pol, err := o.Trust.policy()
	if err != nil {
		return err
	}
	if err := o.checkLimits(); err != nil {
		return err
	}
	if o.Layout.MaxLines < 1 || o.Layout.Context < 1 {
		return fmt.Errorf("%w: --max-lines and --context must be positive", ErrUsage)
	}
	if o.JSON && o.Out == "" {
		return fmt.Errorf("%w: --json goes with -o (without it the page itself goes to stdout)", ErrUsage)
	}
	now, err := o.clock()
	if err != nil {
		return err
	}
	opts := verify.Options{Policy: pol, Limits: o.Limits, RuleLimits: o.RuleLimits, Now: now}
	paths, err := verify.Expand(o.Bundles)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	single := len(o.Bundles) == 1 && len(paths) == 1 && paths[0] == o.Bundles[0]
	if !single {
		if o.Claim != "" || o.Replay != "" || o.Artifact != "" {
			return fmt.Errorf("%w: --claim, --artifact and --replay go with one bundle file", ErrUsage)
		}
		if o.Out == "" {
			return fmt.Errorf("%w: with many bundles, -o names the directory to write", ErrUsage)
		}
		if len(paths) == 0 {
			return fmt.Errorf("%w: no *%s file under %s", ErrUsage, manifest.BundleSuffix, strings.Join(o.Bundles, ", "))
		}
		return runReportSite(cmd, o, s, paths, opts)
	}
	if o.Artifact != "" {
		a, err := artifactDigests(o.Artifact)
		if err != nil {
			return err
		}
		opts.Artifact = &a
	}
	in := report.Input{Name: paths[0], Verify: opts, Layout: o.Layout}
	if in.Raw, err = os.ReadFile(paths[0]); err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if o.Claim != "" {
		text, pkg, err := readClaim(o.Claim)
		if err != nil {
			return fmt.Errorf("%w: --claim: %w", ErrUsage, err)
		}
		if o.Package != "" {
			pkg = o.Package
		}
		in.Claim = &report.ClaimInput{Name: o.Claim, Text: text, Package: pkg}
	}
	if o.Replay != "" {
		if in.Replay, err = os.ReadFile(o.Replay); err != nil {
			return fmt.Errorf("%w: --replay: %w", ErrUsage, err)
		}
	}
	p, err := report.Build(cmd.Context(), in)
	switch {
	case errors.Is(err, verify.ErrUnreadable), errors.Is(err, report.ErrReplay):
		return fmt.Errorf("%w: %w", ErrUsage, err)
	case err != nil:
		return err
	}
	var buf bytes.Buffer
	if err := report.WritePage(&buf, p); err != nil {
		return err
	}
	if o.Out == "" {
		if _, err := s.Out.Write(buf.Bytes()); err != nil {
			return err
		}
	} else {
		if err := writeReportFile(cmd, o.Out, buf.Bytes()); err != nil {
			return err
		}
		if o.JSON {
			if err := writeJSON(s.Out, reportResult{ReportMediaType, 1, "", []reportPage{pageResult(report.EntryOf(p, o.Out), o.Out)}}); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(s.Out, "%s: %s, %s\n", s.style().Field(o.Out), p.Status, verdictWord(p))
		}
	}
	if !p.Verified || (p.Claim != nil && p.Claim.Result.Outcome != claim.Backed) {
		return silentError{ErrFindings}
	}
	return nil
}

// runReportSite writes one page per bundle and an index into o.Out.
func runReportSite(cmd *cobra.Command, o *reportOptions, s *streams, paths []string, opts verify.Options) error {
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return fmt.Errorf("%w: -o: %w", ErrUsage, err)
	}
	// Paths come from walking a directory anyone may have written to:
	// they are escaped like bundle text (SPEC.md "Output safety").
	st := s.style()
	var entries []report.Entry
	res := reportResult{MediaType: ReportMediaType, SchemaVersion: 1, Pages: []reportPage{}}
	// Progress lines go to stderr when stdout carries the JSON object.
	lines := s.Out
	if o.JSON {
		lines = s.ErrOut
	}
	failed := 0
	used := map[string]bool{}
	for _, path := range paths {
		if err := cmd.Context().Err(); err != nil {
			return err
		}
		raw, err := os.ReadFile(path)
		var p *report.Page
		if err == nil {
			p, err = report.Build(cmd.Context(), report.Input{Name: path, Raw: raw, Verify: opts, Layout: o.Layout})
		}
		if cmd.Context().Err() != nil {
			return cmd.Context().Err()
		}
		if err != nil {
			failed++
			entries = append(entries, report.UnreadableEntry(path, err))
			res.Pages = append(res.Pages, pageResult(entries[len(entries)-1], ""))
			fmt.Fprintf(lines, "%-17s %s: %s\n", "unreadable", st.Field(path), st.Field(err.Error()))
			continue
		}
		name := pageName(path, used)
		var buf bytes.Buffer
		if err := report.WritePage(&buf, p); err != nil {
			return err
		}
		if err := writeReportFile(cmd, filepath.Join(o.Out, name), buf.Bytes()); err != nil {
			return err
		}
		if !p.Verified {
			failed++
		}
		entries = append(entries, report.EntryOf(p, name))
		res.Pages = append(res.Pages, pageResult(entries[len(entries)-1], filepath.Join(o.Out, name)))
		fmt.Fprintf(lines, "%-17s %s → %s\n", p.Status, st.Field(path), st.Field(filepath.Join(o.Out, name)))
	}
	var buf bytes.Buffer
	if err := report.WriteIndex(&buf, report.NewIndex(entries)); err != nil {
		return err
	}
	index := filepath.Join(o.Out, "index.html")
	if err := writeReportFile(cmd, index, buf.Bytes()); err != nil {
		return err
	}
	if o.JSON {
		res.Index = index
		if err := writeJSON(s.Out, res); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(s.Out, "\n%s: %d bundles, %d not verified\n", st.Field(index), len(paths), failed)
	}
	if failed > 0 {
		return silentError{ErrFindings}
	}
	return nil
}

// pageName is a bundle's page file name: its base name without the
// bundle suffix, made unique among the names already used.
func pageName(path string, used map[string]bool) string {
	base := strings.TrimSuffix(filepath.Base(path), manifest.BundleSuffix)
	base = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < ' ' {
			return '_'
		}
		return r
	}, base)
	name := base + ".html"
	for i := 2; used[name]; i++ {
		name = fmt.Sprintf("%s-%d.html", base, i)
	}
	used[name] = true
	return name
}

func writeReportFile(cmd *cobra.Command, path string, b []byte) error {
	err := bundle.WriteFileAtomicContext(cmd.Context(), path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
	if err != nil && cmd.Context().Err() == nil {
		return fmt.Errorf("%w: %w", ErrCouldNotRun, err)
	}
	return err
}

func verdictWord(p *report.Page) string {
	switch {
	case p.Verdict.Shown:
		return p.Verdict.Code
	case p.Verdict.Code != "":
		return "no verified verdict (evidence re-derives " + p.Verdict.Code + ")"
	default:
		return "no verified verdict"
	}
}
