package manifest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/manifest"
)

// This file checks that SPEC.md "Canonical manifest encoding" and
// "Manifest fields" describe the bytes Encode writes: an encoder
// written from the SPEC's rules alone (layout, escaping table, numbers)
// must reproduce them, and every object's members must come in the
// order of the SPEC's tables.

// specMemberOrder is the member order of every object kind as SPEC.md
// "Manifest fields" lists it. A change to the manifest's structure must
// change the SPEC's tables and this list together.
var specMemberOrder = map[string][]string{
	"manifest":    {"media_type", "schema_version", "tool", "standards", "subject", "baseline", "fingerprint", "image", "conditions", "deviations", "settings", "started_at", "finished_at", "test_date", "static", "environment", "dynamic", "repetitions", "claimed", "declaration", "files"},
	"tool":        {"name", "version"},
	"subject":     {"name", "version", "spec", "source", "integrity", "tarball_sha256"},
	"image":       {"name", "digest"},
	"conditions":  {"fixed", "variable"},
	"condition":   {"name", "value"},
	"deviation":   {"what", "standard", "changed_to", "why", "clause"},
	"settings":    {"observation_window_ms", "timeouts_ms", "repeat"},
	"static":      {"evidence", "patch_fetch_error", "installed_size", "report"},
	"report":      {"clauses", "conforming_static", "unresolvable", "reason", "warnings"},
	"clause":      {"clause", "title", "status", "severity", "observed", "message", "questions", "material", "warnings"},
	"environment": {"evidence"},
	"repetition":  {"index", "stages", "verdict"},
	"stage":       {"stage", "status", "argv", "network", "started_at", "ended_at", "duration_ms", "exit_code", "timed_out", "liveness", "evidence", "verdict", "first_error"},
	"liveness":    {"window_ms", "alive_ms", "alive_at_end"},
	"claimed":     {"verdict", "conforming_static", "unstable", "deviated", "usable_for_certification"},
	"file":        {"path", "sha256", "size"},
}

// childKind names the kind of the object a member of kind parent holds
// (for arrays, the kind of the elements); "map" for maps, "" for scalars.
func childKind(parent, member string) string {
	switch parent + "." + member {
	case "manifest.tool", "manifest.subject", "manifest.image", "manifest.conditions", "manifest.settings", "manifest.static", "manifest.environment", "manifest.claimed":
		return member
	case "manifest.deviations":
		return "deviation"
	case "manifest.repetitions":
		return "repetition"
	case "manifest.files":
		return "file"
	case "conditions.fixed", "conditions.variable":
		return "condition"
	case "static.report":
		return "report"
	case "report.clauses":
		return "clause"
	case "repetition.stages":
		return "stage"
	case "stage.liveness":
		return "liveness"
	case "settings.timeouts_ms", "static.evidence", "environment.evidence", "stage.evidence":
		return "map"
	}
	return ""
}

// node is a JSON value with object members in document order.
type node struct {
	kind    byte // '{', '[', '"', 'n' (number), 'l' (literal)
	text    string
	members []member
	elems   []*node
}

type member struct {
	name string
	val  *node
}

func parseOrdered(t *testing.T, dec *json.Decoder) *node {
	t.Helper()
	tok, err := dec.Token()
	if err != nil {
		t.Fatal(err)
	}
	switch v := tok.(type) {
	case json.Delim:
		n := &node{kind: byte(v)}
		for dec.More() {
			if v == '{' {
				k, err := dec.Token()
				if err != nil {
					t.Fatal(err)
				}
				n.members = append(n.members, member{k.(string), parseOrdered(t, dec)})
			} else {
				n.elems = append(n.elems, parseOrdered(t, dec))
			}
		}
		if _, err := dec.Token(); err != nil { // closing delimiter
			t.Fatal(err)
		}
		return n
	case string:
		return &node{kind: '"', text: v}
	case json.Number:
		return &node{kind: 'n', text: v.String()}
	case bool:
		return &node{kind: 'l', text: fmt.Sprint(v)}
	case nil:
		return &node{kind: 'l', text: "null"}
	}
	t.Fatalf("unexpected token %v", tok)
	return nil
}

// specString writes s by the SPEC's escaping table.
func specString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u00%02x`, r)
		case r == '\u2028' || r == '\u2029':
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// specEncode writes n at depth d by the SPEC's layout rules.
func specEncode(n *node, d int) string {
	indent := func(d int) string { return strings.Repeat("  ", d) }
	switch n.kind {
	case '{':
		if len(n.members) == 0 {
			return "{}"
		}
		var parts []string
		for _, m := range n.members {
			parts = append(parts, indent(d+1)+specString(m.name)+": "+specEncode(m.val, d+1))
		}
		return "{\n" + strings.Join(parts, ",\n") + "\n" + indent(d) + "}"
	case '[':
		if len(n.elems) == 0 {
			return "[]"
		}
		var parts []string
		for _, e := range n.elems {
			parts = append(parts, indent(d+1)+specEncode(e, d+1))
		}
		return "[\n" + strings.Join(parts, ",\n") + "\n" + indent(d) + "]"
	case '"':
		return specString(n.text)
	}
	return n.text
}

// checkOrder reports members that are unknown or out of the SPEC's order,
// and map members not in ascending byte order.
func checkOrder(t *testing.T, n *node, kind, where string) {
	t.Helper()
	switch {
	case n.kind == '[':
		for i, e := range n.elems {
			checkOrder(t, e, kind, fmt.Sprintf("%s[%d]", where, i))
		}
		return
	case n.kind != '{':
		return
	case kind == "map":
		for i := 1; i < len(n.members); i++ {
			if n.members[i-1].name >= n.members[i].name {
				t.Errorf("%s: map members %q, %q not in ascending byte order", where, n.members[i-1].name, n.members[i].name)
			}
		}
		return
	}
	order := specMemberOrder[kind]
	pos := 0
	for _, m := range n.members {
		i := pos
		for i < len(order) && order[i] != m.name {
			i++
		}
		if i == len(order) {
			t.Errorf("%s: member %q is not in SPEC.md's table of %s at this position (order %q)", where, m.name, kind, order)
			continue
		}
		pos = i + 1
		checkOrder(t, m.val, childKind(kind, m.name), where+"."+m.name)
	}
}

// fullManifest sets every optional member and puts every character the
// escaping table names into strings.
func fullManifest(t *testing.T) *manifest.Manifest {
	m := sampleManifest(sampleFiles(t))
	var all strings.Builder
	for r := rune(0); r < 0x80; r++ {
		all.WriteRune(r)
	}
	all.WriteString("\u2028\u2029é—\U0001F600\uFFFD")
	m.Baseline = all.String()
	m.Declaration = "Conforms <&>\n"
	m.Static.PatchFetchError = "none"
	m.Static.Report.Reason = "r"
	m.Static.Report.Warnings = []string{"w"}
	m.Static.Report.Clauses = append(m.Static.Report.Clauses, manifest.ClauseResult{
		Clause: "5.5.1", Title: "t", Status: "human judgement required", Severity: "critical",
		Observed: "o", Message: "m", Questions: []string{"q"}, Material: []string{"x"}, Warnings: []string{"w"},
	})
	m.Settings.TimeoutsMS["version"] = 9223372036854775807
	m.Static.InstalledSize = -1
	st := &m.Repetitions[0].Stages[0]
	st.StartedAt, st.EndedAt, st.FirstError = "2026-11-29T18:00:00Z", "2026-11-29T18:00:09Z", "e"
	return m
}

func TestSpecDescribesCanonicalEncoding(t *testing.T) {
	raw, err := manifest.Encode(fullManifest(t))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tree := parseOrdered(t, dec)
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("more than one value: %v", err)
	}
	if got := specEncode(tree, 0) + "\n"; got != string(raw) {
		t.Errorf("the SPEC's encoding rules do not reproduce Encode: %s", manifest.FirstDifference([]byte(got), raw))
	}
	checkOrder(t, tree, "manifest", "manifest")
	for _, want := range []string{"declaration", "patch_fetch_error", "reason", "questions", "started_at", "first_error", "liveness", "integrity"} {
		if !bytes.Contains(raw, []byte(`"`+want+`": `)) {
			t.Errorf("the full manifest lacks optional member %q; the order check did not see it", want)
		}
	}
}
