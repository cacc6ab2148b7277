package claim

import (
	"fmt"
	"strings"

	"github.com/dshaudit/dshaudit/manifest"
)

// DeviationNotice is the line a deviated declaration carries (SPEC.md
// "Declaration of conformity"), DSHIO/T 21 8.2 items 3 and 4.
const DeviationNotice = "Not comparable with undeviated reports; not a basis for certification (DSHIO/T 21 8.2)"

// declaredDeviation is one "Condition deviation:" line of a declaration.
type declaredDeviation struct {
	line int
	// text is the normalised text after "Condition deviation:".
	text string
	// what is the text before the first ": ".
	what string
	used bool
}

// checkDeviations compares a declaration's deviation lines with the
// deviations the bundle records (DSHIO/T 21 8.2, SPEC.md "Claims"): each
// recorded deviation must be declared once, in the declaration's form
// "<what>: <standard> changed to <changed_to> (<why>)" with the bundle's
// what, standard and changed-to values; a declared deviation the bundle
// does not record is a contradiction. The reason is the author's words
// and is not compared, but it must be there.
func checkDeviations(d Declaration, recorded []manifest.Deviation) []Finding {
	const clause = "DSHIO/T 21 8.2"
	declared := make([]*declaredDeviation, len(d.Deviations))
	for i, t := range d.Deviations {
		text := normValue(t)
		what, _, _ := strings.Cut(text, ": ")
		line := d.Line
		if i < len(d.DeviationLines) {
			line = d.DeviationLines[i]
		}
		declared[i] = &declaredDeviation{line: line, text: text, what: what}
	}
	var out []Finding
	add := func(line int, kind Kind, format string, args ...any) {
		out = append(out, Finding{Line: line, Kind: kind, Clause: clause, Message: fmt.Sprintf(format, args...)})
	}
	for _, r := range recorded {
		want := normValue(r.What) + ": " + normValue(r.Standard) + " changed to " + normValue(r.ChangedTo)
		shown := r.What + ": " + r.Standard + " changed to " + r.ChangedTo
		if m := find(declared, func(x *declaredDeviation) bool { return x.text == want || hasReason(x.text, want) }); m != nil {
			m.used = true
			if !hasReason(m.text, want) {
				add(m.line, KindNotBacked, "deviation %q does not say why it was made (item 2: what deviated, what it was changed to, and why)", r.What)
			}
			continue
		}
		if m := find(declared, func(x *declaredDeviation) bool { return strings.EqualFold(x.what, normValue(r.What)) }); m != nil {
			m.used = true
			add(m.line, KindContradicts, "declares deviation %q; the bundle records %q", m.text, shown)
			continue
		}
		add(d.Line, KindNotBacked, "does not declare the bundle's deviation %q: every deviation is listed item by item, with what changed, to what, and why", shown)
	}
	if len(recorded) > 0 && !d.Notice {
		add(d.Line, KindNotBacked, "a deviated declaration does not carry DSHIO/T 21 8.2's notice (items 3 and 4: the verdict shall not be compared with undeviated reports, and shall not be used as a basis for certification), as the declaration writes it: %q", DeviationNotice)
	}
	for _, x := range declared {
		if !x.used {
			add(x.line, KindContradicts, "declares deviation %q, which the bundle does not record", x.text)
		}
	}
	return out
}

func find(ds []*declaredDeviation, ok func(*declaredDeviation) bool) *declaredDeviation {
	for _, x := range ds {
		if !x.used && ok(x) {
			return x
		}
	}
	return nil
}

// hasReason reports whether text is want followed by a non-empty reason
// in parentheses.
func hasReason(text, want string) bool {
	why, ok := strings.CutPrefix(text, want+" (")
	return ok && strings.HasSuffix(why, ")") && strings.TrimSpace(strings.TrimSuffix(why, ")")) != ""
}

// normValue compares a bundle value with README text as a reader sees it:
// the Markdown the README's line loses (code spans, emphasis, tags such as
// "<package-spec>") is removed from both, both are read as readerForm
// reads a line, and runs of space are one space.
func normValue(s string) string {
	return collapseSpace(readerForm(stripMarkup(s)))
}

// collapseSpace is strings.Join(strings.Fields(s), " "): s itself when it
// is ASCII with no space but single spaces between words.
func collapseSpace(s string) string {
	if isASCII(s) && !strings.ContainsAny(s, "\t\n\v\f\r") && !strings.Contains(s, "  ") && !strings.HasPrefix(s, " ") && !strings.HasSuffix(s, " ") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
