package static

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Guiding questions, verbatim from DSHIO/T 10 5.5.1 and 5.5.2.
var (
	Questions551 = []string{
		"could someone who does not know this plugin decide from the description whether to use it?",
		"Can they tell when to use this rather than something else?",
	}
	Questions552 = []string{
		"declared network but never makes a request?",
		"Declared fs-write but only reads?",
	}
)

// toolsNotDiscoverable is the 5.5.1 material line about tool descriptions.
const toolsNotDiscoverable = "tool descriptions: not discoverable statically — tools are registered by the plugin's code, which T0 does not read (DSHIO/T 10 1.1, black-box judgement); read them from the running plugin's tool list"

// maxMaterial bounds the material lines listing entries or dependencies.
const maxMaterial = 50

// entryMaterial lists the patch entries' id and name, when the patch
// structure could be read.
func entryMaterial(s *state) []string {
	if len(s.insertItems) == 0 {
		return []string{"patch entries: not available (clause 5.1.4 is not conforming)"}
	}
	entries, _ := insertEntries(s.yr, s.insertItems)
	var out []string
	for _, e := range entries {
		if len(out) == maxMaterial {
			out = append(out, fmt.Sprintf("… and %d more entries", len(entries)-maxMaterial))
			break
		}
		id, name := "", ""
		if v, ok := mapGet(s.yr, e.node, "id"); ok && deref(v).Kind == yaml.ScalarNode {
			id = deref(v).Value
		}
		if v, ok := mapGet(s.yr, e.node, "name"); ok && deref(v).Kind == yaml.ScalarNode {
			name = deref(v).Value
		}
		out = append(out, fmt.Sprintf("patch entry: %s id=%s name=%s", e, quote(id), quote(name)))
	}
	return out
}

// check551: human judgement only (DSHIO/T 10 5.5.1, 6.4): never pass or
// fail. SPEC.md "5.5.1 and 5.5.2 Human judgement".
func check551(s *state) ClauseResult {
	mat := []string{toolsNotDiscoverable}
	if d, ok := s.pkg["description"].(string); ok && d != "" {
		mat = append(mat, "package description: "+quote(d))
	} else {
		mat = append(mat, "package description: none")
	}
	mat = append(mat, entryMaterial(s)...)
	return ClauseResult{Status: HumanJudgement, Observed: "human judgement required",
		Message:   "every tool's description shall let someone unfamiliar with the plugin decide under what circumstances the tool should be called; DSHIO does not issue a verdict on this clause (DSHIO/T 10 6.4)",
		Questions: Questions551, Material: mat}
}

// check552: human judgement only (DSHIO/T 10 5.5.2, 6.4).
// SPEC.md "5.5.1 and 5.5.2 Human judgement".
func check552(s *state) ClauseResult {
	mat := []string{"declared permission set: " + s.perms.describe()}
	if s.exceptionOK && len(s.perms.redLine()) > 0 {
		mat = append(mat, "README: has a Permissions section with a registered red-line exception")
	} else if s.hasPermSection {
		mat = append(mat, "README: has a Permissions section")
	}
	var deps []string
	for _, f := range depFields {
		if m, ok := s.pkg[f].(map[string]any); ok {
			for _, k := range sortedKeys(m) {
				deps = append(deps, f+": "+quote(k))
			}
		}
	}
	if len(deps) > maxMaterial {
		deps = append(deps[:maxMaterial], fmt.Sprintf("… and %d more", len(deps)-maxMaterial))
	}
	mat = append(mat, deps...)
	return ClauseResult{Status: HumanJudgement, Observed: s.perms.describe(),
		Message:   "the declared permission set shall cover the capabilities the plugin actually uses (no under-reporting) and declare none it does not use (no over-reporting); over-reporting erodes trust, under-reporting causes runtime failure; DSHIO does not issue a verdict on this clause (DSHIO/T 10 6.4)",
		Questions: Questions552, Material: mat}
}

// bounded cuts the README to what dshaudit reads.
func bounded(b []byte) []byte {
	if len(b) > MaxREADMEBytes {
		return b[:MaxREADMEBytes]
	}
	return b
}

// check553: the declared permission set does not contain network together
// with shell or fs-write, unless the README registers the exception.
// DSHIO/T 10 3.4, 5.5.3, T 20 5.4. SPEC.md "5.5.3 No red-line combination".
func check553(s *state) ClauseResult {
	d := s.perms
	if d.problem != "" {
		return ClauseResult{Status: NonConforming, Observed: d.describe(),
			Message:  d.problem + "; dsh.permissions shall be an array of strings (" + strings.Join(KnownPermissions, ", ") + "), and a declaration that cannot be read cannot be shown free of the red line",
			Warnings: d.warnings}
	}
	if !d.declared {
		return ClauseResult{Status: Conforming, Observed: d.describe(),
			Message: "nothing declared, so no red-line combination is declared; whether that under-reports is for 5.5.2"}
	}
	partners := d.redLine()
	if len(partners) == 0 {
		return ClauseResult{Status: Conforming, Observed: d.describe(), Warnings: d.warnings}
	}
	combo := "network + " + strings.Join(partners, " + ")
	ok, missing := s.exceptionOK, s.exceptionMissing
	if ok {
		return ClauseResult{Status: Conforming, Observed: d.describe() + "; red-line combination " + combo + " with a registered README exception",
			Warnings: append(slices.Clone(d.warnings), "registered exception: the README's Permissions section explains "+combo+" and the data flow; this is still high risk (DSHIO/T 10 5.5.3)")}
	}
	return ClauseResult{Status: NonConforming, Observed: d.describe() + "; red-line combination " + combo,
		Message:  "declaring " + combo + " is a red line: together they form a complete path to read local data and send it out (DSHIO/T 10 3.4); no exception is registered in the README: " + joinBounded(missing),
		Warnings: d.warnings}
}
