package assemble

import (
	"fmt"
	"strings"

	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// Declaration returns the DSHIO/T 10 8.1 declaration of conformity that
// the result supports, or "" when it supports none (T0 unresolvable or
// critically non-conforming). Scope is "static + dynamic layer" only when
// T1–T4 ran and passed stably; otherwise "static layer only". Deviations
// are declared item by item (DSHIO/T 21 8.2). The bundle's own digest
// cannot be inside the bundle: PrintableDeclaration adds it.
// The text never claims certification (DSHIO/T 10 8.2). SPEC.md
// "Declaration of conformity".
func Declaration(m *manifest.Manifest) string {
	cs := m.Claimed.ConformingStatic
	if cs == nil || !*cs {
		return ""
	}
	scope := "static layer only"
	if m.Dynamic && m.Claimed.Verdict == string(rules.Pass) && !m.Claimed.Unstable {
		scope = "static + dynamic layer"
	}
	var b strings.Builder
	v := oneLine
	fmt.Fprintf(&b, "Conforms to DSHIO/T 10—2026 (baseline DSH %s, %s)\n", v(m.Baseline), scope)
	fmt.Fprintf(&b, "Package: %s@%s\n", v(m.Subject.Name), v(m.Subject.Version))
	fmt.Fprintf(&b, "Tested: %s\n", v(m.TestDate))
	if m.Fingerprint != "" {
		fmt.Fprintf(&b, "Environment fingerprint: %s\n", v(m.Fingerprint))
	}
	for _, d := range m.Deviations {
		fmt.Fprintf(&b, "Condition deviation: %s: %s changed to %s (%s)\n", v(d.What), v(d.Standard), v(d.ChangedTo), v(d.Why))
	}
	if len(m.Deviations) > 0 {
		b.WriteString("Not comparable with undeviated reports; not a basis for certification (DSHIO/T 21 8.2)\n")
	}
	return b.String()
}

// PrintableDeclaration appends the bundle digest line to a declaration.
func PrintableDeclaration(decl, bundleDigest string) string {
	if decl == "" {
		return ""
	}
	return decl + "Evidence bundle: " + bundleDigest + "\n"
}

// lineBreaks are the characters a reader (a terminal, a Markdown or
// Unicode line breaker) may start a new line at.
var lineBreaks = strings.NewReplacer("\n", `\n`, "\r", `\r`, "\v", `\v`, "\f", `\f`, "\u0085", `\u0085`, "\u2028", `\u2028`, "\u2029", `\u2029`)

// oneLine is a recorded value as the declaration writes it: with every
// line break escaped, so that no value, the writer's text above all (a
// deviation's why), becomes a line of its own in the declaration
// (SPEC.md "Rebuilding the manifest"). Values without one, as every value
// a run records is, are written as they are.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r\v\f\u0085\u2028\u2029") {
		return s
	}
	return lineBreaks.Replace(s)
}
