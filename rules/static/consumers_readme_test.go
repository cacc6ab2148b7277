package static

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/internal/testutil/oracle"
)

// TestREADMEAsCommonMark is the differential test of the README reading
// against CommonMark's reference implementation, commonmark.js (SPEC.md
// "Consumers"): over generated and mutated READMEs, the prose lines of
// every Permissions section are those the same rule finds in
// commonmark.js's tree, so an item counts only where a renderer shows
// it.
func TestREADMEAsCommonMark(t *testing.T) {
	docs := oracle.MarkdownDocs(oracle.Seed(), oracle.N())
	want := oracle.CommonMarkSections(t, docs)
	withSections, bad, conflicts := 0, 0, 0
	for i, d := range docs {
		if markdownConflict(string(d)) != "" {
			conflicts++
			continue // T0 reads no section of it
		}
		got := permissionSections(string(d))
		for j := range got {
			if got[j] == nil {
				got[j] = []string{} // an empty section, as JSON gives it
			}
		}
		if len(got) > 0 {
			withSections++
		}
		g, _ := json.Marshal(trimLines(got))
		w, _ := json.Marshal(trimLines(want[i]))
		if len(got) == 0 && len(want[i]) == 0 {
			continue
		}
		if string(g) != string(w) {
			bad++
			if bad <= 10 {
				t.Errorf("%q:\n goldmark     %s\n commonmark.js %s", d, g, w)
			}
		}
	}
	t.Logf("seed %d: %d READMEs, %d refused as read differently by CommonMark renderers, %d compared with a Permissions section, %d disagreements", oracle.Seed(), len(docs), conflicts, withSections, bad)
}

// trimLines takes trailing spaces and tabs off each line: goldmark drops
// a tab before a soft line break, commonmark.js keeps it, and the item
// rule collapses white space, so it reads both alike.
func trimLines(secs [][]string) [][]string {
	for _, sec := range secs {
		for i, l := range sec {
			sec[i] = strings.TrimRight(l, " \t")
		}
	}
	return secs
}
