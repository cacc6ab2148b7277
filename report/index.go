package report

import (
	"fmt"
	"slices"

	"github.com/dshaudit/dshaudit/rules"
)

// Entry is one bundle on the index page.
type Entry struct {
	Bundle string
	// Href is the bundle's page, relative to the index; "" when the
	// bundle could not be read at all.
	Href     string
	Package  string
	Verified bool
	Status   string
	// Category is the bar the bundle counts in: a verdict code (DSHIO/T
	// 20 11.1, 11.3), "static only", or "not verified".
	Category string
	Usable   bool
	// Error says why the bundle could not be read, when it could not.
	Error string
}

// Category names beside the verdict codes.
const (
	CategoryStaticOnly  = "static only"
	CategoryNotVerified = "not verified"
	CategoryOther       = "other"
)

// categories are the index chart's bars, in order: the verdict codes of
// DSHIO/T 20 11.1 and 11.3 (compare Annex B), then bundles whose verdict
// is not a verified one.
var categories = []string{
	string(rules.Pass), string(rules.InstallFailed), string(rules.ConfigFailed),
	string(rules.InstallsButNotRegistered), string(rules.BootFailed), string(rules.Unstable),
	CategoryStaticOnly, CategoryNotVerified,
}

// EntryOf summarises a page for the index.
func EntryOf(p *Page, href string) Entry {
	e := Entry{Bundle: p.Bundle, Href: href, Verified: p.Verified, Status: p.Status, Usable: p.Verdict.Usable}
	for _, f := range p.Facts {
		if f.Field == "subject" {
			e.Package = f.Value
		}
	}
	switch {
	case !p.Verified || !p.Verdict.Shown:
		e.Category = CategoryNotVerified
	case p.Verdict.Code == CategoryStaticOnly:
		e.Category = CategoryStaticOnly
	case slices.Contains(categories, p.Verdict.Code):
		e.Category = p.Verdict.Code
	default:
		e.Category = CategoryOther
	}
	return e
}

// UnreadableEntry is an index row for a bundle that could not be read.
func UnreadableEntry(bundle string, err error) Entry {
	return Entry{Bundle: bundle, Status: "unreadable", Category: CategoryNotVerified, Error: err.Error()}
}

// Index is the many-bundle page.
type Index struct {
	Title    string
	Entries  []Entry
	Total    int
	Verified int
	Usable   int
	Chart    Chart
}

// Chart is the verdict distribution as an SVG bar chart.
type Chart struct {
	Width, Height int
	Bars          []Bar
}

// Bar is one category of the chart, with its geometry.
type Bar struct {
	Label   string
	Count   int
	Percent string
	Class   string
	Y       int // top of the bar
	TextY   int // text baseline
	Width   int // bar length
	CountX  int // where the count is written
}

// Chart geometry, in CSS pixels.
const (
	chartLabelWidth = 230
	chartBarMax     = 330
	chartRow        = 30
	chartBarHeight  = 20
	chartPad        = 10
)

// NewIndex builds the index of entries, which keep their order.
func NewIndex(entries []Entry) *Index {
	ix := &Index{Title: "dshaudit reports", Entries: entries, Total: len(entries)}
	counts := map[string]int{}
	for _, e := range entries {
		counts[e.Category]++
		if e.Verified {
			ix.Verified++
		}
		if e.Usable {
			ix.Usable++
		}
	}
	cats := categories
	if counts[CategoryOther] > 0 {
		cats = append(slices.Clone(categories), CategoryOther)
	}
	most := 1
	for _, c := range cats {
		most = max(most, counts[c])
	}
	ix.Chart = Chart{Width: chartLabelWidth + chartBarMax + 70, Height: 2*chartPad + len(cats)*chartRow}
	for i, c := range cats {
		n := counts[c]
		y := chartPad + i*chartRow
		w := n * chartBarMax / most
		pct := "0%"
		if ix.Total > 0 {
			pct = fmt.Sprintf("%.0f%%", 100*float64(n)/float64(ix.Total))
		}
		ix.Chart.Bars = append(ix.Chart.Bars, Bar{Label: c, Count: n, Percent: pct, Class: slug(c),
			Y: y, TextY: y + chartBarHeight - 5, Width: w, CountX: chartLabelWidth + w + 6})
	}
	return ix
}
