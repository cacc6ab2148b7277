package oracle

import (
	"math/rand"
	"testing"
)

// NPAJS reads each input as npm reads a dependency value in
// package.json: npm-package-arg's resolve(name, spec, where), as
// Arborist calls it, and prints "local" when the result installs from
// the local file system (type file or directory, or git over a file:
// URL), the result's type otherwise, or "error" when npm refuses the
// value.
const NPAJS = `
const npa = require('npm-package-arg');
const rl = require('readline').createInterface({ input: process.stdin });
const out = [];
rl.on('line', line => {
  const spec = Buffer.from(line, 'base64').toString('utf8');
  let r;
  try { r = npa.resolve('x', spec, '/tmp/where'); } catch (e) { out.push('error'); return; }
  const local = r.type === 'file' || r.type === 'directory' || (r.type === 'git' && /^git\+file:|^file:/i.test(r.fetchSpec || ''));
  out.push(local ? 'local' : r.type);
});
rl.on('close', () => process.stdout.write(out.map(l => l + '\n').join('')));
`

// NPA runs NPAJS over specs.
func NPA(t testing.TB, specs [][]byte) []string {
	t.Helper()
	return Run(t, NPAJS, specs, "npm-package-arg")
}

var specHeads = []string{"", "", "file:", "FILE:", "File:", "./", "../", ".", "..", "/", "~/", "~", "git+file:", "git+file://",
	"GIT+FILE:", "link:", "workspace:", "portal:", "npm:", "npm:y@", "npm:@s/y@", "github:", "git+https://", "https://",
	"git://", "git+ssh://git@", "C:", "c:/", `C:\`, `\`, `.\`, " ", "\t", "\u00a0", "\ufeff", "\u3000", "x@", "@s/",
	// scp-style git specs (user@host:path): hosts hosted-git-info knows,
	// in other case or with www., an unknown host, an odd user part
	"git@github.com:", "git@gitlab.com:", "git@bitbucket.org:", "git@gist.github.com:", "git@git.sr.ht:~", "git@git.sr.ht:",
	"git@www.github.com:", "git@GitHub.com:", "user@github.com:", "git@example.com:", "a:b@github.com:", "x@y@gitlab.com:", "git@github.com:/"}

var specBodies = []string{"", "1.0.0", "^1.2.3", "~1.2", ">=1 <2", "1.0.0 - 2.0.0", "*", "latest", "next", "x", "kernel",
	"vendor/rel", "a/b", "a/b/c", "owner/repo", "owner/repo#v1", "owner/repo.git", "x.tgz", "x.TAR.GZ", "x.tar", "dir/",
	"example.com/x.tgz", "github.com/o/r", "//srv/share", "o/r#semver:^1", "..", "~user/x", "%2e%2e/x", "@scope/name",
	"file:x", "1.0.0 || ./x",
	"owner/repo.git#v1.0.0", "owner/repo#semver:^1.2", "group/sub/repo.git", "o/r#a::path:x", "u/archive.tar.gz", "u/r/", "u/r#%zz",
	"u/.git", "-u/r", "u/r.git#feat/x@2", "1234/r"}

// DependencySpecs returns n dependency values drawn from seed: a head
// (a protocol, a path start, white space, an alias) and a body, in
// every case, with white space around some, and mutations of them.
func DependencySpecs(seed int64, n int) [][]byte {
	rng := rand.New(rand.NewSource(seed))
	out := make([][]byte, 0, n)
	for len(out) < n {
		s := specHeads[rng.Intn(len(specHeads))] + specBodies[rng.Intn(len(specBodies))]
		if rng.Intn(6) == 0 {
			s = specHeads[rng.Intn(len(specHeads))] + s
		}
		if rng.Intn(8) == 0 {
			s += []string{" ", "\t", "\u00a0", "\n"}[rng.Intn(4)]
		}
		b := []byte(s)
		if rng.Intn(4) == 0 {
			b = Mutate(rng, b)
		}
		out = append(out, b)
	}
	return out
}
