package oracle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// JSONParseJS reads each input as npm, pnpm and dsh read a package.json
// (the file's bytes decoded as UTF-8 by Buffer.toString, which replaces
// invalid sequences and keeps a byte order mark, then JSON.parse) and
// prints one line of five tab-separated fields: "ok" or "err", the
// whole value as canon writes it, then the members name and version and
// the profile dependency values of hello-dsh-plugin and of a, each as
// Member writes it (see JSONReading). JSON.parse is specified by
// ECMA-262 and has read the same in every Node release this project
// has met (the image's Node 24 and the host's).
const JSONParseJS = CanonJS + `
const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined;
const isObj = v => v !== null && typeof v === 'object' && !Array.isArray(v);
function kind(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  switch (typeof v) { case 'string': return 'a string'; case 'number': return 'a number'; case 'boolean': return 'a boolean'; }
  return 'an object';
}
function member(v, k) {
  if (!isObj(v)) return 'X';
  const x = own(v, k);
  if (x === undefined) return 'U';
  if (typeof x === 'string') return 's' + hex(x);
  return 'K' + kind(x);
}
function dep(v, name) {
  if (v === null) return 'U';
  if (!isObj(v)) return 'X';
  const d = own(v, 'dependencies');
  if (d === undefined || d === null) return 'U';
  if (!isObj(d)) return 'X';
  return member(d, name);
}
const rl = require('readline').createInterface({ input: process.stdin });
const out = [];
rl.on('line', line => {
  const text = Buffer.from(line, 'base64').toString('utf8');
  let v;
  try { v = JSON.parse(text); } catch (e) { out.push('err\t\t\t\t\t'); return; }
  out.push(['ok', canon(v), member(v, 'name'), member(v, 'version'), dep(v, 'hello-dsh-plugin'), dep(v, 'a')].join('\t'));
});
rl.on('close', () => process.stdout.write(out.map(l => l + '\n').join('')));
`

// JSONReading is JSON.parse's reading of one input, as JSONParseJS
// prints it. Member values are "U" (absent), "X" (the container is not
// an object), "s"+Hex16(string), or "K"+kind ("Knull", "Ka number",
// ...).
type JSONReading struct {
	OK             bool
	Tree           string
	Name, Version  string
	DepHello, DepA string
}

// JSONParse runs JSONParseJS over docs.
func JSONParse(t testing.TB, docs [][]byte) []JSONReading {
	t.Helper()
	lines := Run(t, JSONParseJS, docs)
	out := make([]JSONReading, len(lines))
	for i, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 6 {
			t.Fatalf("oracle line %d: %q", i, l)
		}
		out[i] = JSONReading{OK: f[0] == "ok", Tree: f[1], Name: f[2], Version: f[3], DepHello: f[4], DepA: f[5]}
	}
	return out
}

// PackageJSONBase returns the package.json files of the repository's
// test data (relative to a package two levels below the root, or
// root-relative with up ""), the seeds of JSONDocs' mutations.
func PackageJSONBase(t testing.TB, up string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, pat := range []string{"testdata/static/*/package.json", "testdata/plugins/*/package.json", "testdata/dsh-evidence/*/t1.profile-package.json"} {
		paths, _ := filepath.Glob(filepath.Join(up, pat))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no package.json under %s/testdata", up)
	}
	return out
}
