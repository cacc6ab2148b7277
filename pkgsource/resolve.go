package pkgsource

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// Resolution is how a selector became one exact version (DSHIO/T 10 7.2:
// each version is its own object, so T0 always works on exactly one).
type Resolution struct {
	Version string
	// How says in words how the version was chosen, e.g.
	// `range "^1.2" → 1.2.5 (highest satisfying)`.
	How string
}

// ResolveVersion picks the exact version a spec names among the
// packument's versions and dist-tags, with npm's semantics
// (npm-pick-manifest): an exact version must be published; a dist-tag
// must point at a published version; for a range, the "latest" dist-tag's
// version wins when it satisfies the range, else the highest satisfying
// version. Prereleases satisfy a range only under npm's rule (see
// satisfiesNPM). DESIGN.md "T0 inputs".
func ResolveVersion(name string, kind SelectorKind, sel string, distTags map[string]string, versions []string) (Resolution, error) {
	published := make(map[string]bool, len(versions))
	for _, v := range versions {
		published[v] = true
	}
	notFound := func(format string, a ...any) error {
		return fmt.Errorf("%w: %q: %s (%s)", ErrVersionNotFound, name, fmt.Sprintf(format, a...), availableSummary(distTags, versions))
	}
	switch kind {
	case SelectExact:
		v, err := exactVersion(sel)
		if err != nil {
			return Resolution{}, fmt.Errorf("%w: version %q: %v", ErrInvalidSpec, sel, err)
		}
		if !published[v] {
			return Resolution{}, notFound("version %q is not published", v)
		}
		return Resolution{Version: v, How: fmt.Sprintf("exact version %q", v)}, nil
	case SelectTag:
		v, ok := distTags[sel]
		if !ok {
			if sel == "latest" {
				// npm: no latest tag means the range "*".
				r, err := resolveRange(name, "*", distTags, versions)
				if err != nil {
					return Resolution{}, err
				}
				r.How = "no \"latest\" dist-tag; " + r.How
				return r, nil
			}
			return Resolution{}, notFound("no dist-tag %q", sel)
		}
		if !published[v] {
			return Resolution{}, notFound("dist-tag %q points at %q, which is not published", sel, v)
		}
		return Resolution{Version: v, How: fmt.Sprintf("dist-tag %q → %s", sel, v)}, nil
	case SelectRange:
		return resolveRange(name, sel, distTags, versions)
	default:
		return Resolution{}, fmt.Errorf("%w: unknown selector kind %q", ErrInvalidSpec, kind)
	}
}

func resolveRange(name, rng string, distTags map[string]string, versions []string) (Resolution, error) {
	if _, err := parseRange(rng); err != nil {
		return Resolution{}, fmt.Errorf("%w: range %q: %v", ErrInvalidSpec, rng, err)
	}
	if latest, ok := distTags["latest"]; ok && contains(versions, latest) {
		if lv, err := semver.StrictNewVersion(latest); err == nil {
			if ok, _ := satisfiesNPM(rng, lv); ok {
				return Resolution{Version: latest, How: fmt.Sprintf("range %q → %s (the \"latest\" dist-tag satisfies it)", rng, latest)}, nil
			}
		}
	}
	var best *semver.Version
	for _, s := range versions {
		v, err := semver.StrictNewVersion(s)
		if err != nil {
			continue // not semver: npm ignores it for ranges too
		}
		if ok, _ := satisfiesNPM(rng, v); ok && (best == nil || v.GreaterThan(best)) {
			best = v
		}
	}
	if best == nil {
		return Resolution{}, fmt.Errorf("%w: %q: no published version satisfies range %q (%s)", ErrVersionNotFound, name, rng, availableSummary(distTags, versions))
	}
	return Resolution{Version: best.Original(), How: fmt.Sprintf("range %q → %s (highest satisfying)", rng, best.Original())}, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// parseRange parses an npm range with Masterminds; "" and "*" mean any.
func parseRange(rng string) ([]string, error) {
	parts := strings.Split(rng, "||")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			p = "*"
		}
		if _, err := semver.NewConstraint(p); err != nil {
			return nil, err
		}
		parts[i] = p
	}
	return parts, nil
}

// preTokenRe finds the versions with a prerelease written in a range.
var preTokenRe = lazyregexp.New(`v?(\d+)\.(\d+)\.(\d+)-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)`)

// satisfiesNPM reports whether v satisfies rng under npm's rule:
// Masterminds decides the comparison of each ||-set with prereleases
// admitted, and a prerelease version then satisfies a set only when some
// comparator written in that set has a prerelease on the same
// major.minor.patch (node-semver's includePrerelease=false behaviour).
func satisfiesNPM(rng string, v *semver.Version) (bool, error) {
	parts, err := parseRange(rng)
	if err != nil {
		return false, err
	}
	for _, p := range parts {
		c, err := semver.NewConstraint(p)
		if err != nil {
			return false, err
		}
		c.IncludePrerelease = true
		if !c.Check(v) {
			continue
		}
		if v.Prerelease() == "" || setNamesPrereleaseOf(p, v) {
			return true, nil
		}
	}
	return false, nil
}

func setNamesPrereleaseOf(set string, v *semver.Version) bool {
	tuple := fmt.Sprintf("%d.%d.%d", v.Major(), v.Minor(), v.Patch())
	for _, m := range preTokenRe.FindAllStringSubmatch(set, -1) {
		if m[1]+"."+m[2]+"."+m[3] == tuple {
			return true
		}
	}
	return false
}

// availableSummary names the dist-tags and the highest few versions, for
// not-found messages.
func availableSummary(distTags map[string]string, versions []string) string {
	const show = 8
	if len(versions) == 0 {
		return "no versions published"
	}
	parsed := make([]*semver.Version, 0, len(versions))
	var other []string
	for _, s := range versions {
		if v, err := semver.StrictNewVersion(s); err == nil {
			parsed = append(parsed, v)
		} else {
			other = append(other, s)
		}
	}
	sort.Sort(sort.Reverse(semver.Collection(parsed)))
	var names []string
	for _, v := range parsed {
		names = append(names, v.Original())
	}
	sort.Strings(other)
	for _, o := range other {
		names = append(names, printable(o))
	}
	var b strings.Builder
	b.WriteString("available: ")
	if len(names) > show {
		b.WriteString(strings.Join(names[:show], ", "))
		fmt.Fprintf(&b, " and %d older", len(names)-show)
	} else {
		b.WriteString(strings.Join(names, ", "))
	}
	if len(distTags) > 0 {
		tags := make([]string, 0, len(distTags))
		for t, v := range distTags {
			tags = append(tags, printable(t)+"="+printable(v))
		}
		sort.Strings(tags)
		if len(tags) > show {
			tags = append(tags[:show], "…")
		}
		b.WriteString("; dist-tags: ")
		b.WriteString(strings.Join(tags, ", "))
	}
	return b.String()
}

// printableRe with a length check of at most 64: a counted repetition
// would make the regexp cost a millisecond to compile at every start.
var printableRe = lazyregexp.New(`^[A-Za-z0-9._+-]+$`)

// printable returns registry-supplied text as is when it is a plain
// version or tag, quoted and shortened otherwise.
func printable(s string) string {
	if len(s) <= 64 && printableRe.MatchString(s) {
		return s
	}
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strconv.Quote(s)
}
