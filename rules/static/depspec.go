package static

import (
	"strings"
	"unicode"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// A dependency specifier is read as its consumers read it (SPEC.md
// "Consumers", D1–D3): npm through npm-package-arg's resolve, pnpm and
// yarn with their own local protocols. localDependency says whether one
// of them installs the value from the local file system, and how.
// TestDependencySpecsAsNPA checks it against npm-package-arg itself.

var (
	// urlSpec is npm-package-arg's isURL: a scheme, perhaps git+.
	urlSpec = lazyregexp.New(`(?i)^(?:git\+)?[a-z]+:`)
	// tarballName is npm-package-arg's isFileType.
	tarballName = lazyregexp.New(`(?i)\.(?:tgz|tar\.gz|tar)$`)
)

// localProtocols are the prefixes (compared without case) under which a
// consumer reads the rest as a local path: npm's file:, git over a local
// repository, pnpm's link: and workspace:, yarn's portal:.
var localProtocols = []string{"file:", "git+file:", "link:", "workspace:", "portal:"}

// localDependency reports whether a dependency value v names a package
// on the local file system for some consumer, and the form it has
// (`file:`, "a relative path", ...): npm-package-arg's reading of v
// (npaLocal) or of v trimmed as JavaScript's trim does (a consumer that
// trims first), ASCII case folded in protocols as npm-package-arg folds
// it; pnpm's and yarn's local protocols; Windows paths (npm on Windows);
// an npm: alias of any of these.
func localDependency(v string) (bool, string) {
	t := strings.TrimFunc(v, isJSSpace)
	lower := strings.ToLower(t)
	for _, p := range localProtocols {
		if strings.HasPrefix(lower, p) {
			return true, "the protocol " + p
		}
	}
	if strings.HasPrefix(lower, "npm:") {
		// npm:name@spec: the alias installs spec (npm refuses one that is
		// not a registry spec; another consumer may not).
		rest := t[4:]
		if at := strings.IndexByte(rest[min(1, len(rest)):], '@'); at >= 0 {
			if ok, form := localDependency(rest[at+min(1, len(rest))+1:]); ok {
				return true, "an npm: alias of " + form
			}
		}
	}
	if strings.HasPrefix(t, `\`) || strings.HasPrefix(t, `.\`) || strings.HasPrefix(t, `..\`) {
		return true, "a Windows path"
	}
	for _, x := range []string{v, t} {
		if ok, form := npaLocal(x); ok {
			return true, form
		}
	}
	return false, ""
}

// npaLocal is npm-package-arg's resolve (version 13, as npm 11 calls it
// for a dependency, on POSIX) reduced to whether the result is a file or
// a directory: a file spec (file:, or a start of ".", "~/", "/" or a
// drive letter and colon); else an alias, a hosted git repository
// (user/repo, user@host/owner/repo or scp-style user@host:owner/repo of
// a host hosted-git-info knows) or a URL is not local; else a value with
// a slash, or a tarball name, is a file.
func npaLocal(s string) (bool, string) {
	switch {
	case strings.HasPrefix(strings.ToLower(s), "file:"):
		return true, "the protocol file:"
	case strings.HasPrefix(s, ".") || strings.HasPrefix(s, "~/"):
		return true, "a relative or home path"
	case strings.HasPrefix(s, "/"):
		return true, "an absolute path"
	case len(s) >= 2 && s[1] == ':' && ('a' <= s[0]|0x20 && s[0]|0x20 <= 'z'):
		return true, "a Windows drive path"
	case strings.HasPrefix(strings.ToLower(s), "npm:"), githubShorthand(s), urlSpec.MatchString(s), scpGitHost(s), scpGitSpec(s):
		return false, ""
	case strings.Contains(s, "/"):
		return true, "a path (npm reads a value with a slash that is not user/repo as one)"
	case tarballName.MatchString(s):
		return true, "a tarball file name"
	}
	return false, ""
}

// githubShorthand is hosted-git-info's isGitHubShorthand (version 9,
// npm 11's): user/repo with an optional #committish, which npm fetches
// from GitHub. Before the first "#" it has no white space (JavaScript's
// \s), "@", ":" or second "/"; it has a "/" after its first character,
// does not end (before any "#") with "/", and does not start with ".".
func githubShorthand(s string) bool {
	hash := strings.IndexByte(s, '#')
	head := s
	if hash >= 0 {
		head = s[:hash]
	}
	slash := strings.IndexByte(s, '/')
	if strings.IndexFunc(head, isJSSpace) >= 0 || strings.ContainsAny(head, "@:") {
		return false
	}
	if slash <= 0 || strings.Count(head, "/") > 1 || strings.HasSuffix(head, "/") || strings.HasPrefix(s, ".") {
		return false
	}
	// github:<s> must then parse as a URL whose escapes decode; one with
	// a "%" is taken for no shortcut, so for a path: a reading that errs
	// towards local (TestDependencySpecsAsNPA counts those).
	return !strings.Contains(s, "%")
}

// gitHosts are the hosts hosted-git-info knows.
var gitHosts = []string{"github.com", "gitlab.com", "bitbucket.org", "gist.github.com", "git.sr.ht"}

// scpGitHost reports a user@host/owner/repo value (an optional
// #committish after it) whose host hosted-git-info knows: npm reads it
// as that host's git repository. Any other shape is not taken for one,
// so for a path.
func scpGitHost(s string) bool {
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	at, slash := strings.IndexByte(s, '@'), strings.IndexByte(s, '/')
	if at <= 0 || slash < at || strings.Count(s[slash:], "/") != 2 || strings.HasSuffix(s, "/") || strings.ContainsAny(s, "%:") || strings.IndexFunc(s, isJSSpace) >= 0 {
		return false
	}
	host := strings.ToLower(s[at+1 : slash])
	for _, h := range gitHosts {
		if host == h || host == "www."+h {
			return true
		}
	}
	return false
}

// scpGitSpec reports an scp-style git spec (scpGit) that hosted-git-info
// takes for its host's repository: GitLab's extract refuses a path
// holding "/archive.tar.gz", which npm then reads as a tarball file.
func scpGitSpec(s string) bool {
	head, _, _ := strings.Cut(s, "#")
	return scpGit.MatchString(s) && !strings.Contains(head, "/archive.tar.gz")
}

// scpGit is an scp-style git spec, user@host:path with an optional
// #committish (git@github.com:user/repo.git#v1), of a host
// hosted-git-info knows, in the path shape that host's extract accepts:
// npm-package-arg's resolve reads it as that host's git repository
// (hosted-git-info's parse-url turns the last ":" before "#" into "/"
// and prefixes git+ssh://). resolve applies no scp rule of its own
// (npa's isGit is for command-line arguments only), so the same shape
// of an unknown host, or any other shape, is a value with a slash: a
// directory. Narrower than hosted-git-info where it is unsure (a host
// not in lower case, a segment starting with "." or "-", a "%" or white
// space, a trailing "/"), which is then read as local: it errs towards
// local, and TestDependencySpecsAsNPA counts those.
var scpGit = lazyregexp.New(`^[A-Za-z0-9._-]+@(?:www\.)?(?:` +
	`(?:github\.com|bitbucket\.org):` + scpSeg + `/` + scpSeg +
	`|gitlab\.com:` + scpSeg + `(?:/` + scpSeg + `)+` +
	`|gist\.github\.com:` + scpSeg + `(?:/` + scpSeg + `)?` +
	`|git\.sr\.ht:~?` + scpSeg + `/` + scpSeg +
	`)(?:#[^%\s\\\x00-\x1f\x7f]*)?$`)

// scpSeg is a path segment of scpGit: not empty, not "." or "..", and
// not only ".git" once the host strips that suffix from a project.
const scpSeg = `[A-Za-z0-9_][A-Za-z0-9._-]*`

// isJSSpace is JavaScript's WhiteSpace or LineTerminator (ECMA-262
// 12.2, 12.3), which String.prototype.trim removes: Unicode Zs, tab,
// vertical tab, form feed, U+FEFF, line feed, carriage return, U+2028,
// U+2029.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\v', '\f', ' ', '\n', '\r', 0xA0, 0xFEFF, 0x2028, 0x2029:
		return true
	}
	return unicode.Is(unicode.Zs, r)
}
