package static

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dshaudit/dshaudit/internal/testutil/oracle"
)

// TestDependencySpecsAsNPA is the differential test of 5.3.2's reading
// of a dependency value against npm's, npm-package-arg (SPEC.md
// "Consumers", D1–D3): over generated and mutated values, every value
// npm installs from the local file system is a local path to
// localDependency. localDependency reads more as local than npm on
// POSIX does — pnpm's and yarn's protocols, Windows paths, an npm: alias
// of a path, white space npm keeps, and shapes of git shortcuts it does
// not parse as npm does (it errs towards local) — and the test counts
// those.
func TestDependencySpecsAsNPA(t *testing.T) {
	specs := oracle.DependencySpecs(oracle.Seed(), oracle.N())
	npm := oracle.NPA(t, specs)
	tally := oracle.Tally{}
	for i, b := range specs {
		s := string(b)
		if !utf8.ValidString(s) {
			continue // Node's decoding replaces the bytes; both read U+FFFD-holding text
		}
		tally["compared"]++
		local, _ := localDependency(s)
		switch {
		case npm[i] == "local" && !local:
			t.Errorf("%q: npm installs it from the file system, 5.3.2 does not read it as a local path", s)
		case npm[i] == "local":
			tally["both-read"]++
		case local && (npm[i] == "error" || strings.ContainsAny(s, `\`) || otherConsumerLocal(s)):
			tally["refused-other"]++ // local to another consumer (pnpm, yarn, npm on Windows), or refused by npm
		case local:
			tally["stricter"]++ // npm fetches it remotely; 5.3.2 errs towards local
			if tally["stricter"] <= 5 {
				t.Logf("stricter: %q is a %s spec to npm, a local path to 5.3.2", s, npm[i])
			}
		default:
			tally["both-refused"]++ // remote for both
		}
	}
	t.Logf("seed %d: %s (both-read: local to both; both-refused: remote to both; refused-other: local to another consumer or refused by npm)", oracle.Seed(), tally)
}

// otherConsumerLocal: a value local to a consumer other than npm on
// POSIX: pnpm's and yarn's protocols, an npm: alias, white space npm
// keeps around a local form.
func otherConsumerLocal(s string) bool {
	t := strings.ToLower(strings.TrimFunc(s, isJSSpace))
	for _, p := range []string{"link:", "workspace:", "portal:", "npm:"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return t != strings.ToLower(s)
}

// TestScpGitSpecsAsNPA pins the scp-style git specs (user@host:path)
// 5.3.2 reads as npm does: each is a git dependency to npm-package-arg
// and not local to 5.3.2, or local to both (an unknown host, a path the
// host's extract refuses, which npm reads as a directory or a file).
func TestScpGitSpecsAsNPA(t *testing.T) {
	cases := []struct {
		spec  string
		local bool
	}{
		{"git@github.com:user/repo.git", false},
		{"git@github.com:user/repo", false},
		{"git@github.com:user/repo.git#v1.2.0", false},
		{"git@github.com:user/repo#semver:^1.2", false},
		{"git@www.github.com:user/repo.git", false},
		{"deploy@github.com:user/repo.git", false},
		{"git@gitlab.com:group/sub/repo.git", false},
		{"git@bitbucket.org:user/repo.git#main", false},
		{"git@gist.github.com:0123abcd.git", false},
		{"git@git.sr.ht:~user/repo", false},
		{"git@example.com:user/repo.git", true},
		{"git@github.com:user/repo/extra.git", true},
		{"git@gitlab.com:user/archive.tar.gz", true},
		{"git@github.com:user/repo#%zz", true},
	}
	specs := make([][]byte, len(cases))
	for i, c := range cases {
		specs[i] = []byte(c.spec)
	}
	npm := oracle.NPA(t, specs)
	for i, c := range cases {
		local, _ := localDependency(c.spec)
		if local != c.local {
			t.Errorf("%q: 5.3.2 reads it local=%v, want %v", c.spec, local, c.local)
		}
		if want := map[bool]string{true: "local", false: "git"}[c.local]; npm[i] != want {
			t.Errorf("%q: npm-package-arg reads it as %s, the case expects %s", c.spec, npm[i], want)
		}
	}
}
