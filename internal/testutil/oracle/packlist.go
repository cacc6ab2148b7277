package oracle

import (
	"encoding/json"
	"math/rand"
	"testing"
)

// PacklistJS reads each input, a JSON object {"files": [...], "patch":
// "path"}, as npm decides what it publishes: a package directory with
// lib/index.js, lib/dshaudit-probe/probe (the file by which 5.3.1 asks
// whether lib is published), the patch file, patch/other.yml and a
// package.json whose main is lib/index.js and whose files is the
// input's, read by npm-packlist (through @npmcli/arborist's tree, as npm
// pack reads it), and prints two characters: "1" or "0" for whether the
// published files hold the patch, then for whether they hold the probe.
const PacklistJS = `
const Arborist = require('@npmcli/arborist');
const packlist = require('npm-packlist');
const fs = require('fs'), path = require('path'), os = require('os');
const rl = require('readline').createInterface({ input: process.stdin });
const lines = [];
rl.on('line', l => lines.push(l));
rl.on('close', async () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'dshaudit-packlist-'));
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const c = JSON.parse(Buffer.from(lines[i], 'base64').toString('utf8'));
    const dir = path.join(base, String(i));
    for (const f of ['lib/index.js', 'lib/dshaudit-probe/probe', 'patch/other.yml', c.patch]) {
      fs.mkdirSync(path.join(dir, path.dirname(f)), { recursive: true });
      fs.writeFileSync(path.join(dir, f), 'x');
    }
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', main: 'lib/index.js', files: c.files }));
    try {
      const files = await packlist(await new Arborist({ path: dir }).loadActual());
      out.push((files.includes(c.patch) ? '1' : '0') + (files.includes('lib/dshaudit-probe/probe') ? '1' : '0'));
    } catch (e) { out.push('error'); }
  }
  fs.rmSync(base, { recursive: true, force: true });
  process.stdout.write(out.map(l => l + '\n').join(''));
});
`

// FilesCase is one input of PacklistJS.
type FilesCase struct {
	Files []string `json:"files"`
	Patch string   `json:"patch"`
}

var filesItems = []string{"lib", "lib/", "lib/**", "cordis.patch.yml", "/cordis.patch.yml", "./cordis.patch.yml",
	"cordis.patch.yml/", "././cordis.patch.yml", "*.yml", "**/*.yml", "*.patch.yml", "cordis.*", "cordis.patch.y?l",
	"[c]ordis.patch.yml", "patch", "patch/", "patch/*", "patch/**", "patch/cordis.patch.yml", "/patch", "**",
	"!cordis.patch.yml", "!patch/cordis.patch.yml", "!*.yml", "!patch", "CORDIS.patch.yml", "cordis.patch.yml ",
	"patch//cordis.patch.yml", "./patch/", "patch/*.yml", "!/cordis.patch.yml",
	"library-notes.md", "lib*", "li?", "lib/*", "lib/index.js", "lib/*.js", "./lib", "/lib/", "!lib/**", "!lib", "!lib/index.js", "!lib/*"}

// FilesCases returns n files arrays drawn from seed, each with a patch
// path at the root or under patch/.
func FilesCases(seed int64, n int) []FilesCase {
	rng := rand.New(rand.NewSource(seed))
	out := make([]FilesCase, n)
	for i := range out {
		c := FilesCase{Patch: []string{"cordis.patch.yml", "patch/cordis.patch.yml"}[rng.Intn(2)]}
		for range 1 + rng.Intn(4) {
			c.Files = append(c.Files, filesItems[rng.Intn(len(filesItems))])
		}
		out[i] = c
	}
	return out
}

// Packlist runs PacklistJS over cases: for each, whether npm publishes
// the patch, then whether it publishes lib's probe ("10": the patch,
// not lib).
func Packlist(t testing.TB, cases []FilesCase) []string {
	t.Helper()
	in := make([][]byte, len(cases))
	for i, c := range cases {
		in[i], _ = json.Marshal(c)
	}
	return Run(t, PacklistJS, in, "npm-packlist", "@npmcli/arborist")
}
