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
// somewhere in the text never counts. SPEC.md "README exception".
//
//   - A section opens at an ATX heading (# … ######) whose text starts with
//     "Permissions" (case-insensitive) and runs to the next heading of the
//     same or a higher level.
//   - Inside it, items are lines starting (after an optional list marker
//     "-", "*", "+" or "1." / "1)", and with ** or __ emphasis removed)
//     with a label and a colon: "Why network:", "Why shell:", "Why
//     fs-write:" (or "Why write:"), "Data flow:". An item's text is the
//     rest of its line plus the following lines up to a blank line, a
//     heading or the next list item.
//   - Required: "Why network:", one "Why <partner>:" for each red-line
//     partner declared (shell, fs-write), and "Data flow:". Each text is at
//     least MinExceptionText characters after collapsing whitespace, and the
//     data-flow text states a direction: an arrow (->, →, =>) or "from …
//     to …".
//   - Fenced code blocks and HTML comments are ignored.
//
// Only the first MaxREADMEBytes of the README are read.

// MinExceptionText is the shortest explanation an exception item may give.
const MinExceptionText = 20

var (
	headingRE   = lazyregexp.New(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$`)
	fenceRE     = lazyregexp.New("^ {0,3}(```|~~~)")
	listStartRE = lazyregexp.New(`^\s*(?:[-*+]|\d{1,9}[.)])\s+`)
	itemRE      = lazyregexp.New(`(?i)^\s*(?:(?:[-*+]|\d{1,9}[.)])\s+)?(why network|why shell|why fs-write|why write|data flow)\s*:\s*(.*)$`)
	fromToRE    = lazyregexp.New(`(?i)\bfrom\b.+\bto\b`)
	commentRE   = lazyregexp.New(`(?s)<!--.*?-->`)
	unemphasis  = strings.NewReplacer("**", "", "__", "")
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

// permissionSections returns the lines of each "Permissions" section, with
// fenced code blocks and HTML comments removed.
func permissionSections(md string) [][]string {
	md = strings.ReplaceAll(md, "\r\n", "\n")
	if strings.Contains(md, "<!--") {
		md = commentRE.ReplaceAllString(md, "")
	}
	var secs [][]string
	var cur []string
	level, in, fence := 0, false, ""
	for _, line := range strings.Split(md, "\n") {
		// The literal checks skip the regexps on lines they cannot match.
		if m := findIf(afterIndent(line, "```") || afterIndent(line, "~~~"), fenceRE, line); m != nil {
			switch {
			case fence == "":
				fence = m[1]
			case fence == m[1]:
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		if l, text, ok := atxHeading(line); ok {
			if in && l <= level {
				secs = append(secs, cur)
				in, cur = false, nil
			}
			if !in && strings.HasPrefix(strings.ToLower(strings.TrimSpace(text)), "permissions") {
				in, level, cur = true, l, nil
				continue
			}
		}
		if in {
			cur = append(cur, line)
		}
	}
	if in {
		secs = append(secs, cur)
	}
	return secs
}

// atxHeading is headingRE.FindStringSubmatch(line) without the regexp,
// whose lazy group made it cost time quadratic in a long heading line: ok
// when it matches, the number of #s taken (at most 6) and the text before
// any closing #s. The regexp takes as many leading spaces (at most 3) and
// #s (at most 6) as it can, then all the blanks, then the shortest text
// leaving only blanks, #s and blanks; the code does the same.
func atxHeading(line string) (level int, text string, ok bool) {
	if strings.IndexByte(line, '\n') >= 0 { // the regexp's . stops there
		if m := headingRE.FindStringSubmatch(line); m != nil {
			return len(m[1]), m[2], true
		}
		return 0, "", false
	}
	i := 0
	for i < 3 && i < len(line) && line[i] == ' ' {
		i++
	}
	j := i
	for j < len(line) && line[j] == '#' {
		j++
	}
	run, rest := j-i, line[j:]
	switch {
	case run == 0:
		return 0, "", false
	case run > 6:
		// Six #s, the others closing ones: only blanks may follow.
		if strings.Trim(rest, " \t") != "" {
			return 0, "", false
		}
		return 6, "", true
	case rest == "":
		return run, "", true
	case rest[0] != ' ' && rest[0] != '\t':
		return 0, "", false
	}
	t := strings.TrimLeft(rest, " \t")
	t = strings.TrimRight(t, " \t")
	t = strings.TrimRight(t, "#")
	return run, strings.TrimRight(t, " \t"), true
}

// isHeading reports whether headingRE matches line.
func isHeading(line string) bool {
	_, _, ok := atxHeading(line)
	return ok
}

// afterIndent reports whether prefix follows at most three spaces at the
// start of line: the start of every heading and fence line (CommonMark's
// indentation), so a line without it is not given to the regexp.
func afterIndent(line, prefix string) bool {
	for i := 0; i < 3 && strings.HasPrefix(line, " "); i++ {
		line = line[1:]
	}
	return strings.HasPrefix(line, prefix)
}

// findIf is re.FindStringSubmatch(s) when may is true, else nil: may is a
// literal check that is true of every string re matches.
func findIf(may bool, re *lazyregexp.Regexp, s string) []string {
	if !may {
		return nil
	}
	return re.FindStringSubmatch(s)
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

// exceptionItems extracts the labelled items of one section: what each
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
	for _, raw := range lines {
		line := unemphasis.Replace(raw)
		if m := findIf(strings.IndexByte(line, ':') >= 0 && mayBeItem(line), itemRE, line); m != nil {
			flush()
			key = exceptionLabel[strings.ToLower(m[1])]
			text = []string{m[2]}
			continue
		}
		if strings.TrimSpace(line) == "" || isHeading(line) || listStartRE.MatchString(line) {
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
