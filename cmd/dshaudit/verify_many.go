package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/spf13/cobra"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/internal/termtext"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/verify"
)

// SummaryMediaType identifies the --json object of a many-bundle run.
const SummaryMediaType = "application/vnd.dshaudit.verify-summary.v1+json"

// runVerifyMany verifies many bundles and writes each one's line (or
// JSON item) as soon as it and those before it are verified, keeping
// only the counts: memory does not grow with the number of bundles
// (SPEC.md and DESIGN.md "Many bundles"). The entries the walk did not verify
// (skipped: symbolic links, special files, unreadable entries) come
// first, each a failure.
func runVerifyMany(cmd *cobra.Command, o *verifyOptions, s *streams, paths []string, skipped []verify.Item, opts verify.Options) error {
	var out manyWriter
	if o.JSON {
		out = newJSONMany(s.Out)
	} else {
		all := make([]string, 0, len(skipped)+len(paths))
		for _, it := range skipped {
			all = append(all, it.Path)
		}
		out = newTextMany(s.Out, s.style(), append(all, paths...))
	}
	sum, err := writeMany(cmd.Context(), out, skipped, paths, opts, o.Jobs)
	if err != nil {
		return err
	}
	if cmd.Context().Err() != nil {
		return cmd.Context().Err()
	}
	if len(sum.Failed) > 0 {
		return silentError{ErrFindings}
	}
	return nil
}

// writeMany hands out the skipped items, then verifies paths with jobs
// workers (verify.Each), hands each item to out as it comes and ends it
// with the counts.
func writeMany(ctx context.Context, out manyWriter, skipped []verify.Item, paths []string, opts verify.Options, jobs int) (verify.Summary, error) {
	var z verify.Summariser
	for _, it := range skipped {
		z.Add(it)
		out.item(it)
	}
	verify.Each(ctx, paths, opts, jobs, func(it verify.Item) {
		z.Add(it)
		out.item(it)
	})
	sum := z.Summary()
	return sum, out.end(sum)
}

// manyWriter writes the outcome of many bundles as they come: item for
// each bundle in order, then end with the counts. After a write error it
// writes nothing more, and end returns the error.
type manyWriter interface {
	item(verify.Item)
	end(verify.Summary) error
}

// jsonMany writes the verify-summary object, its bundles as they come
// and the summary after them, laid out as writeJSON lays out a value.
type jsonMany struct {
	w   io.Writer
	n   int
	err error
}

func newJSONMany(w io.Writer) *jsonMany {
	j := &jsonMany{w: w}
	j.write(fmt.Appendf(nil, "{\n  \"media_type\": %q,\n  \"schema_version\": 1,\n  \"bundles\": [", SummaryMediaType))
	return j
}

func (j *jsonMany) item(it verify.Item) {
	sep := ",\n    "
	if j.n == 0 {
		sep = "\n    "
	}
	j.n++
	j.value(sep, it, "    ")
}

func (j *jsonMany) end(sum verify.Summary) error {
	if j.n > 0 {
		j.write([]byte("\n  "))
	}
	j.value("],\n  \"summary\": ", sum, "  ")
	j.write([]byte("\n}\n"))
	return j.err
}

// value writes before, then v encoded as writeJSON would at that depth.
func (j *jsonMany) value(before string, v any, indent string) {
	if j.err != nil {
		return
	}
	var b bytes.Buffer
	b.WriteString(before)
	enc := json.NewEncoder(&b)
	enc.SetIndent(indent, "  ")
	enc.SetEscapeHTML(false)
	if j.err = enc.Encode(v); j.err != nil {
		return
	}
	j.write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func (j *jsonMany) write(b []byte) {
	if j.err == nil {
		_, j.err = j.w.Write(b)
	}
}

// textMany writes one table row per bundle as it comes, then the counts
// and the failures. The columns' widths are fixed before the first
// bundle: STATUS and VERDICT from the values they can take, BUNDLE from
// the paths, PACKAGE from packageColumn (a longer id wraps in its column).
type textMany struct {
	w  io.Writer
	st termtext.Style
	tb *termtext.Stream
}

// packageColumn is the width the PACKAGE column is laid out for.
const packageColumn = 40

func newTextMany(w io.Writer, st termtext.Style, paths []string) *textMany {
	statusW := termtext.Width("unreadable")
	for _, s := range verify.Statuses {
		statusW = max(statusW, termtext.Width(s.Text()))
	}
	verdictW := termtext.Width(assemble.StaticOnlyVerdict)
	for _, v := range rules.Verdicts {
		verdictW = max(verdictW, termtext.Width(string(v)))
	}
	pathW := 0
	for _, p := range paths {
		pathW = max(pathW, termtext.Width(termtext.Escape(p)))
	}
	return &textMany{w: w, st: st,
		tb: termtext.NewStream(w, st.Width, "", []string{"STATUS", "VERDICT", "PACKAGE", "BUNDLE"}, []int{statusW, verdictW, packageColumn, pathW})}
}

func (t *textMany) item(it verify.Item) {
	switch {
	case it.Skipped:
		t.tb.Row("skipped", "-", "-", it.Path+": "+it.Error)
		return
	case it.Report == nil:
		t.tb.Row("unreadable", "-", "-", it.Path+": "+it.Error)
		return
	}
	t.tb.Row(it.Report.Status.Text(), dash(it.Report.SummaryVerdict()), it.Report.PackageID(), it.Path)
}

func (t *textMany) end(sum verify.Summary) error {
	if err := t.tb.Err(); err != nil {
		return err
	}
	var b bytes.Buffer
	printCounts(&b, t.st, sum)
	_, err := t.w.Write(b.Bytes())
	return err
}

// printVerifySummary prints one row per bundle, the counts by verdict and
// the bundles that failed, every bundle value escaped and bounded.
func printVerifySummary(w io.Writer, st termtext.Style, items []verify.Item, sum verify.Summary) {
	paths := make([]string, len(items))
	for i, it := range items {
		paths[i] = it.Path
	}
	t := newTextMany(w, st, paths)
	for _, it := range items {
		t.item(it)
	}
	t.end(sum) //nolint:errcheck // like the other printers, write errors surface at exit
}

// printCounts prints the counts by verdict and the bundles that failed.
func printCounts(w io.Writer, st termtext.Style, sum verify.Summary) {
	fmt.Fprintf(w, "\n%d bundles, %d verified\n", sum.Bundles, sum.Verified)
	for _, v := range slices.Sorted(maps.Keys(sum.ByVerdict)) {
		fmt.Fprintf(w, "  %-28s %d\n", st.Field(v), sum.ByVerdict[v])
	}
	if len(sum.Failed) > 0 {
		fmt.Fprintf(w, "failed (%d):\n", len(sum.Failed))
		for _, f := range sum.Failed {
			fmt.Fprintf(w, "  %s\n", st.Field(fmt.Sprintf("%s: %s: %s", f.Path, verify.Status(f.Status).Text(), f.Why)))
		}
	}
}
