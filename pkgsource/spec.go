package pkgsource

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// SourceKind says where a package comes from. Its values are the
// "source" recorded in results and bundles.
type SourceKind string

// Sources. DESIGN.md "T0 inputs".
const (
	SourceRegistry     SourceKind = "registry"
	SourceGitHub       SourceKind = "github"
	SourceLocalTarball SourceKind = "local-tarball"
	SourceLocalDir     SourceKind = "local-dir"
)

// SelectorKind says how a registry spec names its version, with npm's
// classification (npm-package-arg): a valid version, else a valid range,
// else a dist-tag.
type SelectorKind string

// Selector kinds.
const (
	SelectExact SelectorKind = "version"
	SelectRange SelectorKind = "range"
	SelectTag   SelectorKind = "tag"
)

// Spec is a parsed PACKAGE-SPEC. Only the fields of its Source are set.
type Spec struct {
	// Raw is the spec as the user wrote it.
	Raw    string     `json:"raw"`
	Source SourceKind `json:"source"`

	// Name is the npm package name (registry specs).
	Name string `json:"name,omitempty"`
	// Selector is the version, range or dist-tag as written; "latest"
	// when the spec names none.
	Selector     string       `json:"selector,omitempty"`
	SelectorKind SelectorKind `json:"selector_kind,omitempty"`

	// Owner, Repo and Ref are the parts of a github: spec.
	Owner string `json:"owner,omitempty"`
	Repo  string `json:"repo,omitempty"`
	Ref   string `json:"ref,omitempty"`

	// Path is the local tarball or directory, cleaned, as given
	// (relative paths stay relative).
	Path string `json:"path,omitempty"`
}

// String renders the spec canonically.
func (s Spec) String() string {
	switch s.Source {
	case SourceRegistry:
		return s.Name + "@" + s.Selector
	case SourceGitHub:
		out := "github:" + s.Owner + "/" + s.Repo
		if s.Ref != "" {
			out += "#" + s.Ref
		}
		return out
	default:
		return s.Path
	}
}

// maxSpecLen bounds a spec; npm names are at most 214 characters.
const maxSpecLen = 1024

var (
	// npm name characters that need no URL escaping (legacy names with
	// capitals are still readable; new ones are lower case).
	namePartRe = lazyregexp.New(`^[A-Za-z0-9~-][A-Za-z0-9._~-]*$`)
	// A dist-tag: npm refuses tags that are valid ranges and tags that
	// need URL encoding.
	tagRe = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	// GitHub owner and repository names, with their length limits
	// checked apart (counted repetitions are slow to compile at start).
	ghOwnerRe = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9-]*$`)
	ghRepoRe  = lazyregexp.New(`^[A-Za-z0-9._-]+$`)
	ghRefRe   = lazyregexp.New(`^[A-Za-z0-9._/-]+$`)
	// npm-package-arg's test for a tarball file name.
	tarballNameRe = lazyregexp.New(`(?i)\.(?:tgz|tar\.gz|tar)$`)
)

// ParseSpec parses a PACKAGE-SPEC: an npm name with an optional
// @version, @range or @dist-tag; github:owner/repo[#ref]; a local tarball
// (a path ending .tgz, .tar.gz or .tar); or a local directory (a path
// starting ./, ../ or /, or a file: spec). It does no I/O. DESIGN.md
// "T0 inputs".
func ParseSpec(s string) (Spec, error) {
	raw := s
	s = strings.TrimSpace(s)
	bad := func(format string, a ...any) (Spec, error) {
		return Spec{}, fmt.Errorf("%w %q: %s", ErrInvalidSpec, raw, fmt.Sprintf(format, a...))
	}
	switch {
	case s == "":
		return bad("empty; expected an npm name, github:owner/repo or a local path")
	case len(s) > maxSpecLen:
		return bad("longer than %d bytes", maxSpecLen)
	case strings.ContainsAny(s, "\x00\n\r\t"):
		return bad("contains a control character")
	}

	if rest, ok := strings.CutPrefix(s, "github:"); ok {
		return parseGitHub(raw, rest)
	}
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") ||
		strings.HasPrefix(s, "git+") || strings.HasPrefix(s, "git://") {
		return bad("URLs are not supported; use an npm name, github:owner/repo, or download the tarball and pass its path")
	}
	if strings.HasPrefix(s, "npm:") {
		return bad("npm: aliases are not supported; give the package name itself")
	}
	if p, ok := strings.CutPrefix(s, "file:"); ok {
		if p == "" {
			return bad("file: needs a path")
		}
		return localSpec(raw, p), nil
	}
	if isLocalPath(s) {
		return localSpec(raw, s), nil
	}
	return parseRegistry(raw, s)
}

// isLocalPath follows npm-package-arg: explicit relative or absolute
// paths, and any spec that looks like a tarball file name.
func isLocalPath(s string) bool {
	return s == "." || s == ".." || strings.HasPrefix(s, "./") ||
		strings.HasPrefix(s, "../") || strings.HasPrefix(s, "/") ||
		(tarballNameRe.MatchString(s) && !strings.HasPrefix(s, "@"))
}

func localSpec(raw, p string) Spec {
	p = filepath.Clean(p)
	if tarballNameRe.MatchString(p) {
		return Spec{Raw: raw, Source: SourceLocalTarball, Path: p}
	}
	return Spec{Raw: raw, Source: SourceLocalDir, Path: p}
}

func parseGitHub(raw, rest string) (Spec, error) {
	bad := func(format string, a ...any) (Spec, error) {
		return Spec{}, fmt.Errorf("%w %q: %s", ErrInvalidSpec, raw, fmt.Sprintf(format, a...))
	}
	repoPart, ref, hasRef := strings.Cut(rest, "#")
	owner, repo, ok := strings.Cut(repoPart, "/")
	if !ok || owner == "" || repo == "" {
		return bad("expected github:owner/repo[#ref]")
	}
	repo = strings.TrimSuffix(repo, ".git")
	if len(owner) > 39 || !ghOwnerRe.MatchString(owner) {
		return bad("owner %q is not a GitHub user or organisation name", owner)
	}
	if len(repo) > 100 || !ghRepoRe.MatchString(repo) || repo == "." || repo == ".." {
		return bad("repository %q is not a GitHub repository name", repo)
	}
	if r, ok := strings.CutPrefix(ref, "semver:"); ok && hasRef {
		// npm's github:owner/repo#semver:<range>.
		if _, err := parseRange(r); err != nil {
			return bad("ref %q: %v", ref, err)
		}
	} else if hasRef && (len(ref) > 255 || !ghRefRe.MatchString(ref) || strings.Contains(ref, "..")) {
		return bad("ref %q is not a branch, tag or commit name", ref)
	}
	return Spec{Raw: raw, Source: SourceGitHub, Owner: owner, Repo: repo, Ref: ref}, nil
}

func parseRegistry(raw, s string) (Spec, error) {
	bad := func(format string, a ...any) (Spec, error) {
		return Spec{}, fmt.Errorf("%w %q: %s", ErrInvalidSpec, raw, fmt.Sprintf(format, a...))
	}
	name, sel := s, ""
	hasSel := false
	// A scoped name starts with @; its version separator is the next @.
	searchFrom := 0
	if strings.HasPrefix(s, "@") {
		searchFrom = 1
	}
	if i := strings.Index(s[searchFrom:], "@"); i >= 0 {
		name, sel, hasSel = s[:searchFrom+i], strings.TrimSpace(s[searchFrom+i+1:]), true
	}
	if err := validateName(name); err != nil {
		if !strings.HasPrefix(name, "@") && strings.Count(name, "/") == 1 {
			return bad("%v; for GitHub write github:%s, for a local directory ./%s", err, name, name)
		}
		return bad("%v", err)
	}
	if hasSel && sel == "" {
		return bad("nothing after @; expected a version, range or dist-tag")
	}
	if !hasSel {
		return Spec{Raw: raw, Source: SourceRegistry, Name: name, Selector: "latest", SelectorKind: SelectTag}, nil
	}
	kind, err := classifySelector(sel)
	if err != nil {
		return bad("%v", err)
	}
	return Spec{Raw: raw, Source: SourceRegistry, Name: name, Selector: sel, SelectorKind: kind}, nil
}

// validateName applies npm's name rules, allowing legacy capitals.
func validateName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty package name")
	case len(name) > 214:
		return fmt.Errorf("package name longer than 214 characters")
	}
	unscoped := name
	if strings.HasPrefix(name, "@") {
		scope, rest, ok := strings.Cut(name[1:], "/")
		if !ok || scope == "" || rest == "" {
			return fmt.Errorf("scoped name %q is not @scope/name", name)
		}
		if !namePartRe.MatchString(scope) || strings.HasPrefix(scope, ".") {
			return fmt.Errorf("scope %q has characters npm does not allow", scope)
		}
		unscoped = rest
	}
	if !namePartRe.MatchString(unscoped) {
		return fmt.Errorf("package name %q has characters npm does not allow", name)
	}
	switch strings.ToLower(unscoped) {
	case "node_modules", "favicon.ico":
		return fmt.Errorf("package name %q is reserved by npm", name)
	}
	return nil
}

// classifySelector follows npm-package-arg: a valid version, else a valid
// range, else a tag.
func classifySelector(sel string) (SelectorKind, error) {
	if _, err := exactVersion(sel); err == nil {
		return SelectExact, nil
	}
	if _, err := parseRange(sel); err == nil {
		return SelectRange, nil
	}
	if tagRe.MatchString(sel) {
		return SelectTag, nil
	}
	return "", fmt.Errorf("%q is neither a version, a semver range nor a dist-tag", sel)
}

// exactVersion accepts a strict semver version with npm's tolerated "v"
// or "=" prefix and returns its canonical form.
func exactVersion(sel string) (string, error) {
	s := strings.TrimSpace(sel)
	s = strings.TrimPrefix(s, "=")
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	v, err := semver.StrictNewVersion(s)
	if err != nil {
		return "", err
	}
	return v.Original(), nil
}
