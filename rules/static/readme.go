package static

import (
	"fmt"
	"strings"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// Registered red-line exception in the README (DSHIO/T 10 5.5.3). The
// standard requires the README to state why network is needed, why write
// or shell is needed, and the direction of data flow, but not how. dshaudit
// requires a Markdown section with labelled items; a word appearing
// somewhere in the text never counts. The README is read as a CommonMark
// renderer shows it (readme_md.go). SPEC.md "README exception",
// "Consumers".
//
//   - A section opens at a heading of the document whose text starts
//     with "Permissions" (case-insensitive) and runs to the next heading
//     of the same or a higher level.
//   - Inside it, items are lines of prose (paragraphs, in lists and
//     quotes too) starting (after an optional "-", "*", "+", "1." or "1)"
//     that a renderer shows as text) with a label and a colon: "Why
//     network:", "Why shell:", "Why fs-write:" (or "Why write:"), "Data
//     flow:". An item's text is the rest of its line plus the following
//     lines of its paragraph up to the next label.
//   - Required: "Why network:", one "Why <partner>:" for each red-line
//     partner declared (shell, fs-write), and "Data flow:". Each text is at
//     least MinExceptionText characters after collapsing whitespace, and the
//     data-flow text states a direction: an arrow (->, →, =>) or "from …
//     to …".
//   - Code blocks, HTML (comments included, closed or not) and images are
//     not prose.
//
// Only the first MaxREADMEBytes of the README are read.

// MinExceptionText is the shortest explanation an exception item may give.
const MinExceptionText = 20

var (
	itemRE   = lazyregexp.New(`(?i)^\s*(?:(?:[-*+]|\d{1,9}[.)])\s+)?(why network|why shell|why fs-write|why write|data flow)\s*:\s*(.*)$`)
	fromToRE = lazyregexp.New(`(?i)\bfrom\b.+\bto\b`)
)

// exceptionLabel maps an item label to what it explains.
var exceptionLabel = map[string]string{
	"why network":  PermNetwork,
	"why shell":    PermShell,
	"why fs-write": PermFSWrite,
	"why write":    PermFSWrite,
	"data flow":    "data flow",
}

// readmeException reports whether the README registers an exception for
// the red-line partners given, and otherwise what is missing. sections
// are the README's permission sections (permissionSections of its first
// MaxREADMEBytes).
func readmeException(readme []byte, sections [][]string, partners []string) (ok bool, missing []string) {
	need := append([]string{PermNetwork}, partners...)
	need = append(need, "data flow")
	if readme == nil {
		return false, []string{"there is no README"}
	}
	if len(sections) == 0 {
		return false, []string{"the README has no \"Permissions\" heading"}
	}
	var best []string
	for _, sec := range sections {
		items := exceptionItems(sec)
		var miss []string
		for _, n := range need {
			text, found := items[n]
			switch {
			case !found:
				miss = append(miss, fmt.Sprintf("no %q item", labelFor(n)))
			case len(text) < MinExceptionText:
				miss = append(miss, fmt.Sprintf("the %q item is shorter than %d characters", labelFor(n), MinExceptionText))
			case n == "data flow" && !statesDirection(text):
				miss = append(miss, fmt.Sprintf("the %q item states no direction (an arrow ->, → or =>, or \"from … to …\")", labelFor(n)))
			}
		}
		if len(miss) == 0 {
			return true, nil
		}
		if best == nil || len(miss) < len(best) {
			best = miss
		}
	}
	return false, best
}

// labelFor is the label an author writes for a required item.
func labelFor(n string) string {
	if n == "data flow" {
		return "Data flow:"
	}
	return "Why " + n + ":"
}

// statesDirection reports whether a data-flow text names a direction.
func statesDirection(t string) bool {
	return strings.Contains(t, "->") || strings.Contains(t, "→") || strings.Contains(t, "=>") || fromToRE.MatchString(t)
}

// mayBeItem is a literal check true of every line itemRE matches: each
// of its labels starts with "why" or "data", letters whose case folding
// is ASCII only, so the line holds one of them in ASCII, in some case.
func mayBeItem(line string) bool {
	return containsFoldASCII(line, "why") || containsFoldASCII(line, "data")
}

// containsFoldASCII reports whether s contains word (lower-case ASCII
// letters) with each letter in either case.
func containsFoldASCII(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		j := 0
		for j < len(word) && s[i+j]|0x20 == word[j] {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// exceptionItems extracts the labelled items of one section's prose
// lines (permissionSections; an empty line ends a paragraph): what each
// explains → its text, whitespace collapsed. A later item with the same
// meaning replaces an earlier one only when the earlier is empty.
func exceptionItems(lines []string) map[string]string {
	items := map[string]string{}
	key := ""
	var text []string
	flush := func() {
		if key != "" {
			t := strings.Join(strings.Fields(strings.Join(text, " ")), " ")
			if items[key] == "" {
				items[key] = t
			}
		}
		key, text = "", nil
	}
	for _, line := range lines {
		if strings.IndexByte(line, ':') >= 0 && mayBeItem(line) {
			if m := itemRE.FindStringSubmatch(line); m != nil {
				flush()
				key = exceptionLabel[strings.ToLower(m[1])]
				text = []string{m[2]}
				continue
			}
		}
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		if key != "" {
			text = append(text, line)
		}
	}
	flush()
	return items
}
