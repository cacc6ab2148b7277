package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/dshaudit/dshaudit/internal/hosttool"
	"github.com/dshaudit/dshaudit/internal/termtext"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/pkgsource"
	"github.com/dshaudit/dshaudit/rules/static"
)

// StaticResultMediaType names the --json object of `dshaudit static`.
const StaticResultMediaType = "application/vnd.dshaudit.static-result.v1+json"

// staticSchemaVersion is the version of that object's shape.
const staticSchemaVersion = 1

// staticOptions are the flags of `dshaudit static`.
type staticOptions struct {
	Spec       string
	Registry   string
	Baseline   string
	CDN        []string
	NoCDN      bool
	CDNTimeout time.Duration
	Timeout    time.Duration
	JSON       bool
}

func newStaticCmd(s *streams) *cobra.Command {
	o := &staticOptions{}
	c := &cobra.Command{
		Use:   "static PACKAGE-SPEC",
		Short: "Run the T0 static check alone (no container)",
		Long: `static runs DSHIO T0 (DSHIO/T 20 chapter 5) alone: it fetches the metadata of
one exact package version from the registry npm is configured with, verifies
the tarball against the registry's sha512 integrity, fetches the file named
by dsh.bundle.patch from a public CDN (unpkg, jsdelivr, npmmirror) or, when
no CDN answers, from the verified tarball (recorded as the condition
patch_source), and checks the static clauses of DSHIO/T 10 chapter 5.

PACKAGE-SPEC is one of:
  name, name@1.2.3, @scope/name@^1.2, name@next   npm registry; a range or
                                                  dist-tag resolves to one
                                                  exact version (T 10 7.2)
  github:owner/repo[#ref]                         parsed; GitHub cannot be
                                                  reached from here (exit 3)
  ./name-1.2.3.tgz                                a local tarball
  ./dir                                           a local package directory,
                                                  packed with npm pack
                                                  --ignore-scripts

Prints the clause table (clause, severity, status, observed, message; fitted
to --width, long cells wrapped or cut with …), the
conditions of the fetch, conforming_static and the warnings on stdout;
--json prints one object (media_type ` + StaticResultMediaType + `).

Exit codes:
  0  conforming_static = true
  1  conforming_static = false, or the metadata is unresolvable (no such
     package or version)
  2  usage error, or an unreadable local tarball or directory
  3  could not run: registry unreachable, GitHub spec, integrity mismatch,
     tarball refused as hostile or too large`,
		Example: `  # the latest version of a published plugin
  dshaudit static hello-dsh-plugin

  # one exact version, checked against another DSH baseline
  dshaudit static hello-dsh-plugin@1.0.0 --baseline 0.1.0-rc.8

  # a plugin directory before publishing, machine-readable
  dshaudit static ./my-plugin --json | jq '.conforming_static'

  # another registry and a private CDN
  dshaudit static @scope/x@^1.2 --registry https://npm.example.com/ \
      --cdn 'https://cdn.example.com/{name}@{version}/{path}'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("%w: expected one PACKAGE-SPEC, got %d arguments (see %s --help)", ErrUsage, len(args), cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Spec = args[0]
			return runStatic(cmd, o, s)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Registry, "registry", "", "registry URL (default: npm config get registry)")
	f.StringVar(&o.Baseline, "baseline", static.DefaultBaseline, "DSH baseline version for clause 5.2.2 (DSHIO/T 10 3.1)")
	f.StringArrayVar(&o.CDN, "cdn", nil, "CDN URL template with {name}, {version}, {path}; repeatable, tried in order (default: unpkg, jsdelivr, npmmirror)")
	f.BoolVar(&o.NoCDN, "no-cdn", false, "ask no CDN: read the patch file from the verified tarball (recorded as patch_source)")
	f.DurationVar(&o.CDNTimeout, "cdn-timeout", pkgsource.DefaultCDNTimeout, "timeout of each CDN request")
	f.DurationVar(&o.Timeout, "timeout", pkgsource.DefaultRegistryTimeout, "timeout of each registry request")
	f.BoolVar(&o.JSON, "json", false, "print one JSON object ("+StaticResultMediaType+")")
	return c
}

// staticResult is the --json object. Its report fields are inlined, so
// `.conforming_static` and `.clauses` are at the top level.
type staticResult struct {
	MediaType     string `json:"media_type"`
	SchemaVersion int    `json:"schema_version"`
	Spec          string `json:"spec"`
	Baseline      string `json:"baseline"`
	// Package is the package checked, the same object as the run and
	// verify results' package; null when the metadata is unresolvable.
	Package *manifest.Subject `json:"package"`
	// Fetch is how it was obtained (registry, tarball URL, patch source,
	// CDN attempts, conditions); null when unresolvable.
	Fetch *pkgsource.Fetched `json:"fetch"`
	static.Report
	// FetchWarnings are discrepancies found while fetching (CDN copy
	// differs from the tarball, registry metadata differs from the
	// tarball's package.json).
	FetchWarnings []string `json:"fetch_warnings,omitempty"`
}

func (o *staticOptions) fetchOptions() (pkgsource.Options, error) {
	opts := pkgsource.Options{Registry: o.Registry, CDNTimeout: o.CDNTimeout, Timeout: o.Timeout}
	switch {
	case o.NoCDN && len(o.CDN) > 0:
		return opts, fmt.Errorf("%w: --no-cdn and --cdn contradict each other", ErrUsage)
	case o.NoCDN:
		opts.CDNTemplates = []string{}
	case len(o.CDN) > 0:
		for _, t := range o.CDN {
			if err := pkgsource.ValidateCDNTemplate(t); err != nil {
				return opts, fmt.Errorf("%w: --cdn: %v", ErrUsage, err)
			}
		}
		opts.CDNTemplates = o.CDN
	}
	if o.CDNTimeout <= 0 || o.Timeout <= 0 {
		return opts, fmt.Errorf("%w: --cdn-timeout and --timeout must be positive", ErrUsage)
	}
	return opts, nil
}

func runStatic(cmd *cobra.Command, o *staticOptions, s *streams) error {
	spec, err := pkgsource.ParseSpec(o.Spec)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	opts, err := o.fetchOptions()
	if err != nil {
		return err
	}
	res := staticResult{MediaType: StaticResultMediaType, SchemaVersion: staticSchemaVersion, Spec: spec.Raw, Baseline: o.Baseline}
	fetched, err := pkgsource.Fetch(cmd.Context(), spec, opts)
	switch {
	case err == nil:
		res.Package = &manifest.Subject{Name: fetched.Name, Version: fetched.Version, Spec: spec.Raw, Source: string(fetched.Source),
			Integrity: fetched.Integrity, TarballSHA256: fetched.TarballSHA256}
		res.Fetch = fetched
		res.FetchWarnings = fetched.Warnings
		res.Report = static.Check(static.Input{
			PackageJSON:     fetched.MetadataJSON,
			Patch:           fetched.Patch,
			PatchFetchError: fetched.PatchFetchError,
			README:          fetched.README,
			Baseline:        o.Baseline,
			InstalledSize:   -1, // known only after T1
		})
	case errors.Is(err, hosttool.ErrMissing):
		return fmt.Errorf("%w: %w", ErrCouldNotRun, err)
	case errors.Is(err, pkgsource.ErrInvalidSpec), errors.Is(err, pkgsource.ErrLocalSource):
		return fmt.Errorf("%w: %w", ErrUsage, err)
	case errors.Is(err, pkgsource.ErrRegistryUnreachable), errors.Is(err, pkgsource.ErrNotFetchable):
		return fmt.Errorf("%w: %w", ErrCouldNotRun, err)
	case errors.Is(err, pkgsource.ErrUnresolvable):
		// DSHIO/T 20 5.5: metadata cannot be fetched → no verdict,
		// "unresolvable".
		res.Report = static.Check(static.Input{Baseline: o.Baseline, InstalledSize: -1})
		res.Report.Unresolvable, res.Report.ConformingStatic = true, nil
		res.Report.Reason = err.Error()
	default:
		return fmt.Errorf("%w: %w", ErrCouldNotRun, err)
	}
	if res.Report.Clauses == nil {
		res.Report.Clauses = []static.ClauseResult{}
	}

	if o.JSON {
		enc := json.NewEncoder(s.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		printStaticResult(s.Out, s.style(), &res)
	}
	if res.Unresolvable || res.ConformingStatic == nil || !*res.ConformingStatic {
		return silentError{ErrFindings}
	}
	return nil
}

// printStaticResult prints the T0 result for a person: every value from
// the package or the registry is escaped and bounded, and the clause
// table fits st.Width (SPEC.md "Output safety"); --json keeps it all.
func printStaticResult(w io.Writer, st termtext.Style, r *staticResult) {
	f := st.Field
	if p := r.Fetch; p != nil {
		src := string(p.Source)
		if p.Registry != "" {
			src += " " + p.Registry
		}
		fmt.Fprintf(w, "package:   %s@%s (%s)\n", f(p.Name), f(p.Version), f(src))
		fmt.Fprintf(w, "tarball:   %s sha256:%s\n", f(p.Integrity), f(p.TarballSHA256))
		switch {
		case p.Patch != nil:
			fmt.Fprintf(w, "patch:     %s from %s (%d bytes)\n", f(p.PatchDeclared), f(p.PatchSource), len(p.Patch))
		case p.PatchFetchError != "":
			fmt.Fprintf(w, "patch:     none: %s\n", f(p.PatchFetchError))
		}
		if p.ReadmePath != "" {
			fmt.Fprintf(w, "readme:    %s (%d bytes)\n", f(p.ReadmePath), len(p.README))
		}
		for _, c := range p.Conditions {
			fmt.Fprintf(w, "condition: %s = %s\n", f(c.Name), f(c.Value))
		}
	}
	fmt.Fprintf(w, "baseline:  %s\n", f(r.Baseline))
	if r.Unresolvable {
		fmt.Fprintf(w, "\nT0 result: unresolvable (DSHIO/T 20 5.5): %s\n", f(r.Reason))
	}
	if len(r.Clauses) > 0 {
		fmt.Fprintln(w)
		tb := termtext.NewTable("", "CLAUSE", "SEVERITY", "STATUS", "OBSERVED", "MESSAGE")
		for _, c := range r.Clauses {
			tb.Row(c.Clause, string(c.Severity), string(c.Status), c.Observed, c.Message)
		}
		tb.Write(w, st.Width)
		for _, c := range r.Clauses {
			if len(c.Questions) == 0 && len(c.Material) == 0 && len(c.Warnings) == 0 {
				continue
			}
			fmt.Fprintf(w, "\n%s %s:\n", c.Clause, f(c.Title))
			for _, q := range c.Questions {
				fmt.Fprintf(w, "  question: %s\n", f(q))
			}
			for _, m := range c.Material {
				fmt.Fprintf(w, "  material: %s\n", f(m))
			}
			for _, x := range c.Warnings {
				fmt.Fprintf(w, "  warning:  %s\n", f(x))
			}
		}
	}
	fmt.Fprintln(w)
	if r.ConformingStatic != nil {
		fmt.Fprintf(w, "conforming_static: %v\n", *r.ConformingStatic)
	} else {
		fmt.Fprintf(w, "conforming_static: none (unresolvable)\n")
	}
	warnings := append(append([]string{}, r.FetchWarnings...), r.Warnings...)
	for _, x := range warnings {
		fmt.Fprintf(w, "warning: %s\n", f(x))
	}
}
