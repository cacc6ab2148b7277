package static

import (
	"fmt"
	"slices"
	"strings"
)

// isDSHPackage reports whether a peer dependency counts for clause 5.2.1's
// fallback: @deepseek-ai/dsh and @deepseek-ai/dsh-*, which are published
// with dsh's own version. @deepseek-ai/cordis* and other @deepseek-ai
// packages are versioned separately and do not count.
// SPEC.md "5.2.1 Version range declaration".
func isDSHPackage(name string) bool {
	return name == "@deepseek-ai/dsh" || strings.HasPrefix(name, "@deepseek-ai/dsh-")
}

// rangeSource says where the DSH version range comes from.
type rangeSource int

const (
	rangeNone    rangeSource = iota // unconstrained
	rangeEngines                    // engines.dsh
	rangePeers                      // @deepseek-ai/dsh* peerDependencies
	rangeInvalid                    // engines.dsh present but not a string
)

// peerRange is one counted peer dependency.
type peerRange struct {
	name  string
	value any
}

// declared is the DSH version range declaration read from package.json.
type declared struct {
	source  rangeSource
	engines string
	peers   []peerRange // counted @deepseek-ai/dsh* peers, by name
	ignored []string    // other @deepseek-ai/* peers, by name
	// problems are malformed fields seen on the way (engines not an
	// object, engines.dsh not a string, peerDependencies not an object).
	problems []string
}

// readDeclared applies DSHIO/T 10 5.2.1: engines.dsh first, then the
// @deepseek-ai/dsh* peerDependencies, else unconstrained.
func readDeclared(pkg map[string]any) declared {
	var d declared
	if eng, ok := pkg["engines"]; ok {
		em, ok := eng.(map[string]any)
		if !ok {
			d.problems = append(d.problems, fmt.Sprintf("engines is %s, expected an object; it is ignored", jsonKind(eng)))
		} else if v, ok := em["dsh"]; ok {
			s, ok := v.(string)
			if !ok {
				d.source = rangeInvalid
				d.problems = append(d.problems, fmt.Sprintf("engines.dsh is %s, expected a semver range string", jsonKind(v)))
			} else {
				d.source, d.engines = rangeEngines, s
			}
		}
	}
	if pd, ok := pkg["peerDependencies"]; ok {
		pm, ok := pd.(map[string]any)
		if !ok {
			d.problems = append(d.problems, fmt.Sprintf("peerDependencies is %s, expected an object; it is ignored", jsonKind(pd)))
		}
		for _, name := range sortedKeys(pm) {
			switch {
			case isDSHPackage(name):
				d.peers = append(d.peers, peerRange{name, pm[name]})
			case strings.HasPrefix(name, "@deepseek-ai/"):
				d.ignored = append(d.ignored, name)
			}
		}
	}
	if d.source == rangeNone && len(d.peers) > 0 {
		d.source = rangePeers
	}
	return d
}

// declared reads the declaration once for clauses 5.2.1 and 5.2.2.
func (s *state) declared() declared {
	if s.decl == nil {
		d := readDeclared(s.pkg)
		s.decl = &d
	}
	return *s.decl
}

// quoteRange is quote(r), once per range for clauses 5.2.1 and 5.2.2,
// whose messages repeat the same ranges.
func (s *state) quoteRange(r string) string {
	q, ok := s.quotedRanges[r]
	if !ok {
		if s.quotedRanges == nil {
			s.quotedRanges = map[string]string{}
		}
		q = quote(r)
		s.quotedRanges[r] = q
	}
	return q
}

// peerNames lists the counted peers' names.
func (d declared) peerNames() string {
	ns := make([]string, len(d.peers))
	for i, p := range d.peers {
		ns[i] = p.name
	}
	return strings.Join(ns, ", ")
}

// check521 (recommended): a DSH version range is declared, in engines.dsh
// or, as the fallback, in @deepseek-ai/dsh* peerDependencies.
// DSHIO/T 10 5.2.1, T 20 5.4. SPEC.md "5.2.1 Version range declaration".
func check521(s *state) ClauseResult {
	d := s.declared()
	if len(d.problems) > 0 {
		return ClauseResult{Status: NonConforming, Observed: "malformed version range declaration",
			Message: strings.Join(d.problems, "; ")}
	}
	var r ClauseResult
	switch d.source {
	case rangeEngines:
		r = ClauseResult{Status: Conforming, Observed: "engines.dsh = " + s.quoteRange(d.engines)}
	case rangePeers:
		r = ClauseResult{Status: Conforming, Observed: "no engines.dsh; range from peerDependencies " + d.peerNames(),
			Message: "the DSH range is judged from the @deepseek-ai/dsh* peerDependencies (the 5.2.1 fallback); declaring engines.dsh is suggested"}
	default:
		r = ClauseResult{Status: NonConforming, Observed: "unconstrained: no engines.dsh and no @deepseek-ai/dsh* peerDependencies",
			Message: "suggested improvement only: declare engines.dsh (e.g. \">=0.2.0-rc.2\"); the plugin is treated as accepting every DSH version"}
	}
	if len(d.ignored) > 0 {
		r.Warnings = append(r.Warnings, "not counted as DSH ranges (versioned separately from dsh): "+strings.Join(d.ignored, ", "))
	}
	return r
}

// check522: the declared range admits the baseline version, judged by
// Masterminds/semver v3, with npm's prerelease rule reported beside it.
// DSHIO/T 10 5.2.2, T 20 5.4. SPEC.md "5.2.2 Version range includes the
// baseline version".
func check522(s *state) ClauseResult {
	base, err := parseBaseline(s.in.Baseline)
	if err != nil {
		return notEvaluated(fmt.Sprintf("the baseline %s is not a semver version: %v", quote(s.in.Baseline), err))
	}
	bs := s.in.Baseline
	d := s.declared()
	// engines.dsh and the peer ranges are often the same string; each
	// distinct range is evaluated once.
	seen := map[string]RangeResult{}
	admits := func(rng string) RangeResult {
		r, ok := seen[rng]
		if !ok {
			r = AdmitsBaseline(rng, base)
			seen[rng] = r
		}
		return r
	}
	switch d.source {
	case rangeInvalid:
		return ClauseResult{Status: NonConforming, Observed: "no readable range",
			Message: strings.Join(d.problems, "; ")}
	case rangeNone:
		return ClauseResult{Status: Conforming, Observed: "unconstrained",
			Message:  "no DSH version range is declared, so every DSH version, the baseline " + bs + " included, is admitted (see 5.2.1)",
			Warnings: d.problems}
	case rangeEngines:
		res := admits(d.engines)
		r := ClauseResult{Observed: "engines.dsh " + res.describe(s.quoteRange(res.Range), bs)}
		switch {
		case res.Err != nil:
			r.Status = NonConforming
			r.Message = "engines.dsh " + s.quoteRange(d.engines) + " is not a valid semver range: " + res.Err.Error()
		case res.Masterminds:
			r.Status = Conforming
		default:
			r.Status = NonConforming
			r.Message = "engines.dsh " + s.quoteRange(d.engines) + " excludes the baseline " + bs + "; common mistake: a hard-coded upper bound"
		}
		if res.Disagree() {
			r.Warnings = append(r.Warnings, res.disagreement("engines.dsh", s.quoteRange(res.Range), bs))
		}
		// The peers are not the 5.2.2 criterion once engines.dsh exists,
		// but dsh also refuses a plugin whose peer ranges exclude it.
		for _, p := range d.peers {
			pr := peerResult(p, admits)
			if pr.Err != nil || !pr.Masterminds || !pr.NPM {
				r.Warnings = append(r.Warnings, "peerDependencies["+quote(p.name)+"] "+pr.describe(s.quoteRange(pr.Range), bs)+"; dsh refuses a plugin whose peer ranges do not admit the running release")
			}
		}
		return r
	}
	// rangePeers: every counted peer range shall admit the baseline.
	var obs, bad, warns []string
	for _, p := range d.peers {
		pr := peerResult(p, admits)
		where := "peerDependencies[" + quote(p.name) + "]"
		obs = append(obs, where+" "+pr.describe(s.quoteRange(pr.Range), bs))
		switch {
		case pr.Err != nil:
			bad = append(bad, where+" is not a valid semver range: "+pr.Err.Error())
		case !pr.Masterminds:
			bad = append(bad, where+" "+s.quoteRange(pr.Range)+" excludes the baseline "+bs)
		}
		if pr.Disagree() {
			warns = append(warns, pr.disagreement(where, s.quoteRange(pr.Range), bs))
		}
	}
	r := ClauseResult{Status: Conforming, Observed: "no engines.dsh; " + joinBounded(obs), Warnings: append(slices.Clip(d.problems), warns...)}
	if len(bad) > 0 {
		r.Status = NonConforming
		r.Message = joinBounded(bad)
	}
	return r
}

// peerResult evaluates one peer range; a non-string value is a parse error.
func peerResult(p peerRange, admits func(string) RangeResult) RangeResult {
	s, ok := p.value.(string)
	if !ok {
		return RangeResult{Range: fmt.Sprint(p.value), Err: fmt.Errorf("the value is %s, expected a semver range string", jsonKind(p.value))}
	}
	return admits(s)
}

// entryField checks one entry-point field: main (a non-empty string) or
// exports (a non-empty string, object or array).
func entryField(pkg map[string]any, key string) (present, ok bool, problem string) {
	v, present := pkg[key]
	if !present {
		return false, false, ""
	}
	switch t := v.(type) {
	case string:
		if t != "" {
			return true, true, ""
		}
		return true, false, key + " is an empty string"
	case map[string]any:
		if key == "exports" && len(t) > 0 {
			return true, true, ""
		}
	case []any:
		if key == "exports" && len(t) > 0 {
			return true, true, ""
		}
	}
	want := "a non-empty string"
	if key == "exports" {
		want = "a non-empty string, object or array"
	}
	return true, false, fmt.Sprintf("%s is %s, expected %s", key, jsonKindEmpty(v), want)
}

// jsonKindEmpty is jsonKind that says when a container is empty.
func jsonKindEmpty(v any) string {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			return "an empty object"
		}
	case []any:
		if len(t) == 0 {
			return "an empty array"
		}
	}
	return jsonKind(v)
}

// check523: main or exports declares a code entry point.
// DSHIO/T 10 5.2.3, T 20 5.4. SPEC.md "5.2.3 Code entry point".
func check523(s *state) ClauseResult {
	mp, mok, mprob := entryField(s.pkg, "main")
	ep, eok, eprob := entryField(s.pkg, "exports")
	var probs []string
	for _, p := range []string{mprob, eprob} {
		if p != "" {
			probs = append(probs, p)
		}
	}
	var obs []string
	if mok {
		obs = append(obs, "main = "+quote(s.pkg["main"].(string)))
	}
	if eok {
		obs = append(obs, "exports declared")
	}
	if mok || eok {
		return ClauseResult{Status: Conforming, Observed: strings.Join(obs, "; "), Warnings: probs}
	}
	if !mp && !ep {
		return ClauseResult{Status: NonConforming, Observed: "neither main nor exports",
			Message: "package.json shall declare a code entry point, main or exports; without one the install check fails"}
	}
	return ClauseResult{Status: NonConforming, Observed: "no usable entry point", Message: strings.Join(probs, "; ")}
}

// maxWalk bounds how many JSON values one walk visits.
const maxWalk = 100000

// mjsTargets lists the string values under exports that end in .mjs.
func mjsTargets(v any) []string {
	var out []string
	n := 0
	var walk func(v any)
	walk = func(v any) {
		if n++; n > maxWalk {
			return
		}
		switch t := v.(type) {
		case string:
			if strings.HasSuffix(t, ".mjs") {
				out = append(out, t)
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		case map[string]any:
			for _, k := range sortedKeys(t) {
				walk(t[k])
			}
		}
	}
	walk(v)
	return out
}

// check524 (recommended): an ESM package declares "type": "module". A
// package is taken to be ESM when main or any exports target ends in .mjs
// (the "module" field is a bundler convention Node ignores, so it is not a
// sign). DSHIO/T 10 5.2.4. SPEC.md "5.2.4 Module type consistency".
func check524(s *state) ClauseResult {
	tv, hasType := s.pkg["type"]
	ts, isStr := tv.(string)
	if hasType && (!isStr || (ts != "module" && ts != "commonjs")) {
		return ClauseResult{Status: NonConforming, Observed: "type is " + describeJSON(tv),
			Message: "type shall be \"module\" or \"commonjs\""}
	}
	if ts == "module" {
		return ClauseResult{Status: Conforming, Observed: "type = \"module\""}
	}
	var signs []string
	if m, ok := s.pkg["main"].(string); ok && strings.HasSuffix(m, ".mjs") {
		signs = append(signs, "main "+quote(m))
	}
	for _, t := range mjsTargets(s.pkg["exports"]) {
		signs = append(signs, "exports target "+quote(t))
	}
	typeObs := "type absent"
	if hasType {
		typeObs = "type = \"commonjs\""
	}
	if len(signs) > 0 {
		return ClauseResult{Status: NonConforming, Observed: typeObs + "; ESM by extension: " + joinBounded(signs),
			Message: "the package is ESM (.mjs entry points) but does not declare \"type\": \"module\"; declare it rather than rely on .mjs extensions"}
	}
	obs := typeObs + "; no .mjs entry point, so not judged ESM"
	if _, ok := s.pkg["module"]; ok {
		obs += " (the \"module\" field is a bundler convention and is not taken as a sign)"
	}
	return ClauseResult{Status: Conforming, Observed: obs}
}

// describeJSON renders a JSON value's kind and, for scalars, its value.
func describeJSON(v any) string {
	switch t := v.(type) {
	case string:
		return quote(t)
	case nil:
		return "null"
	}
	return jsonKind(v)
}
