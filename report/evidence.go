package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// Layout bounds how evidence is shown (DESIGN.md "Report pages").
type Layout struct {
	// MaxLines is the most lines of one evidence file a page holds
	// beside the open lines around first_error; the rest is counted, not
	// shown (`dshaudit inspect` prints it).
	MaxLines int
	// Context is how many lines either side of a first_error line stay
	// open; the rest of a file is collapsed.
	Context int
}

// Defaults for Layout.
const (
	DefaultMaxLines = 20000
	DefaultContext  = 5
)

func (l Layout) withDefaults() Layout {
	if l.MaxLines <= 0 {
		l.MaxLines = DefaultMaxLines
	}
	if l.Context <= 0 {
		l.Context = DefaultContext
	}
	return l
}

// roleOrder is the order a stage's evidence files are shown in; roles
// not listed follow, sorted.
var roleOrder = []string{manifest.RoleMerged, manifest.RoleStdout, manifest.RoleStderr, manifest.RoleProfilePackageJSON}

type evidenceReader struct {
	files     map[string][]byte
	untrusted map[string]bool
	sizes     map[string]int64
	lay       Layout
}

// stage returns a stage's evidence files and the anchor of the
// first_error line: first searched in the merged output (where the rule
// takes it from), and also marked in stdout and stderr.
func (ev evidenceReader) stage(id string, st manifest.Stage, firstError string) ([]Evidence, string) {
	roles := slices.Sorted(maps.Keys(st.Evidence))
	slices.SortStableFunc(roles, func(a, b string) int { return rank(a) - rank(b) })
	var out []Evidence
	anchor := ""
	for k, role := range roles {
		label := role
		if role == manifest.RoleStdout && st.Stage == "T3" {
			label = "stdout (config dump)"
		}
		e := ev.file(fmt.Sprintf("%s-e%d", id, k+1), role, label, st.Evidence[role], firstError)
		if e.Open && anchor == "" {
			for _, b := range e.Blocks {
				for _, l := range b.Lines {
					if l.Hit && anchor == "" {
						anchor = l.ID
					}
				}
			}
		}
		out = append(out, e)
	}
	return out, anchor
}

func rank(role string) int {
	if i := slices.Index(roleOrder, role); i >= 0 {
		return i
	}
	return len(roleOrder)
}

// otherEvidence returns the T0 and environment files, by role.
func otherEvidence(m *manifest.Manifest, ev evidenceReader) []Evidence {
	var out []Evidence
	for k, role := range slices.Sorted(maps.Keys(m.Static.Evidence)) {
		out = append(out, ev.file(fmt.Sprintf("t0-e%d", k+1), role, "T0 "+role, m.Static.Evidence[role], ""))
	}
	for k, role := range slices.Sorted(maps.Keys(m.Environment.Evidence)) {
		out = append(out, ev.file(fmt.Sprintf("env-e%d", k+1), role, "environment "+role, m.Environment.Evidence[role], ""))
	}
	return out
}

// file splits one evidence file into numbered lines, marks the first
// line that is firstError, and groups the lines into blocks.
func (ev evidenceReader) file(id, role, label, path, firstError string) Evidence {
	e := Evidence{ID: id, Role: role, Label: label, Path: path, Size: ev.sizes[path]}
	data, present := ev.files[path]
	switch {
	case path == "":
		e.Note = "no file recorded"
		return e
	case ev.untrusted[path] && present:
		e.Note = "its content does not match the digest the manifest lists: not shown"
		return e
	case !present:
		e.Note = "listed by the manifest but not in the archive"
		return e
	}
	e.Trusted = true
	// Lines as the rules see them (SPEC.md "Output lines"): ANSI
	// sequences and control characters removed; escaping is
	// html/template's job.
	text := rules.SplitLines(data)
	e.Lines = len(text)
	hit := -1
	if firstError != "" {
		hit = slices.IndexFunc(text, func(t string) bool { return isFirstError(t, firstError) })
	}
	e.Open = hit >= 0
	budget := ev.lay.MaxLines
	for _, sp := range spans(len(text), hit, ev.lay.Context) {
		n := sp.to - sp.from
		if !sp.hit {
			n = min(n, max(budget, 0))
			budget -= n
		}
		b := Block{Open: sp.open, From: sp.from + 1, To: sp.from + n, Omitted: sp.to - sp.from - n}
		for i := sp.from; i < sp.from+n; i++ {
			b.Lines = append(b.Lines, Line{N: i + 1, ID: fmt.Sprintf("%s-L%d", id, i+1), Text: text[i], Hit: i == hit})
		}
		e.Blocks = append(e.Blocks, b)
	}
	return e
}

// span is a run of lines [from, to), open or collapsed; hit marks the
// open lines around first_error, which are always shown.
type span struct {
	from, to  int
	open, hit bool
}

// spans groups n lines: with a hit, the lines within ctx of it form an
// open span and the runs before and after are collapsed; without one,
// the file is one span (the file itself is collapsed).
func spans(n, hit, ctx int) []span {
	if n == 0 {
		return nil
	}
	if hit < 0 {
		return []span{{0, n, true, false}}
	}
	lo, hi := max(0, hit-ctx), min(n, hit+ctx+1)
	var out []span
	if lo > 0 {
		out = append(out, span{0, lo, false, false})
	}
	out = append(out, span{lo, hi, true, true})
	if hi < n {
		out = append(out, span{hi, n, false, false})
	}
	return out
}

// isFirstError says whether a displayed line is the first_error line:
// the rule trims it and cuts it at rules.MaxFirstErrorBytes with "…".
func isFirstError(line, firstError string) bool {
	t := strings.TrimSpace(line)
	if t == firstError {
		return true
	}
	cut, ok := strings.CutSuffix(firstError, "…")
	return ok && cut != "" && strings.HasPrefix(t, cut)
}
