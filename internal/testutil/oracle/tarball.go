package oracle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// NodeTarJS extracts each input, a gzip tar package tarball, as npm's
// pacote does (node-tar's extract with strip: 1, into an empty
// directory) and prints the result as JSON: {"files": {path: sha256
// hex}, "links": [path]}, or {"error": message} when node-tar refuses
// it or warns of an entry it could not extract (TAR_ENTRY_INFO, such as
// "stripping / from absolute path", is information: the entry is
// extracted).
const NodeTarJS = `
const tar = require('tar');
const fs = require('fs'), path = require('path'), os = require('os'), crypto = require('crypto');
const rl = require('readline').createInterface({ input: process.stdin });
const lines = [];
rl.on('line', l => lines.push(l));
rl.on('close', () => {
  const out = [];
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'dshaudit-tar-'));
  lines.forEach((line, i) => {
    const file = path.join(base, i + '.tgz'), dir = path.join(base, String(i));
    fs.writeFileSync(file, Buffer.from(line, 'base64'));
    fs.mkdirSync(dir);
    const warnings = [];
    try {
      tar.x({ file, cwd: dir, strip: 1, sync: true, preserveOwner: false, noChmod: true, strict: false,
        onwarn: (code, msg) => { if (code !== 'TAR_ENTRY_INFO') warnings.push(code + ': ' + msg); } });
    } catch (e) { out.push(JSON.stringify({ error: String(e.message) })); return; }
    const files = {}, links = [];
    const walk = (d, rel) => {
      for (const n of fs.readdirSync(d).sort()) {
        const p = path.join(d, n), r = rel ? rel + '/' + n : n, st = fs.lstatSync(p);
        if (st.isSymbolicLink()) links.push(r);
        else if (st.isDirectory()) walk(p, r);
        else if (st.isFile()) files[r] = crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');
      }
    };
    walk(dir, '');
    out.push(JSON.stringify(warnings.length ? { error: warnings.join('; '), files, links } : { files, links }));
  });
  fs.rmSync(base, { recursive: true, force: true });
  process.stdout.write(out.map(l => l + '\n').join(''));
});
`

// TarReading is node-tar's extraction of one tarball.
type TarReading struct {
	Error string            `json:"error"`
	Files map[string]string `json:"files"`
	Links []string          `json:"links"`
}

// NodeTar runs NodeTarJS over tarballs.
func NodeTar(t testing.TB, tgzs [][]byte) []TarReading {
	t.Helper()
	lines := Run(t, NodeTarJS, tgzs, "tar")
	out := make([]TarReading, len(lines))
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &out[i]); err != nil {
			t.Fatalf("oracle line %d: %v", i, err)
		}
	}
	return out
}

var tarNames = []string{"package/package.json", "package/README.md", "package/readme.md", "package/README", "package/README.txt",
	"package/lib/index.js", "package/cordis.patch.yml", "./package/README.md", "package//README.md", "package/./README.md",
	"pkg/README.md", "package/a/../README.md", "README.md", "package/", "package/lib/", "package/LIB/index.js",
	"package/lib\\index.js", "/package/README.md", "package/" + strings.Repeat("d/", 60) + "long.js", "package/Package.json",
	"package/README.md/", "package/node_modules/x/index.js", "package/é.md", "package/README.MD"}

// Tarballs returns n package tarballs drawn from seed: entries named
// from tarNames (duplicates, case variants, mixed first components,
// long names in every tar format, directories, links), sometimes with
// another gzip member or bytes after the member.
func Tarballs(seed int64, n int) [][]byte {
	rng := rand.New(rand.NewSource(seed))
	out := make([][]byte, 0, n)
	formats := []tar.Format{tar.FormatUnknown, tar.FormatUSTAR, tar.FormatPAX, tar.FormatGNU}
	for len(out) < n {
		var raw bytes.Buffer
		tw := tar.NewWriter(&raw)
		ok := true
		for range 1 + rng.Intn(6) {
			name := tarNames[rng.Intn(len(tarNames))]
			body := []byte(fmt.Sprintf("content %d of %s\n", rng.Intn(3), name))
			h := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg, Format: formats[rng.Intn(len(formats))]}
			switch r := rng.Intn(10); {
			case strings.HasSuffix(name, "/") || r == 0:
				h.Typeflag, h.Size, h.Mode, body = tar.TypeDir, 0, 0o755, nil
			case r == 1:
				h.Typeflag, h.Size, h.Linkname, body = tar.TypeSymlink, 0, "README.md", nil
			}
			if err := tw.WriteHeader(h); err != nil {
				continue // a name the format cannot hold
			}
			if _, err := tw.Write(body); err != nil {
				ok = false
			}
		}
		if tw.Close() != nil || !ok {
			continue
		}
		var gzb bytes.Buffer
		zw := gzip.NewWriter(&gzb)
		zw.Write(raw.Bytes())
		zw.Close()
		switch rng.Intn(12) {
		case 0: // a second member
			zw := gzip.NewWriter(&gzb)
			zw.Write(raw.Bytes())
			zw.Close()
		case 1:
			gzb.WriteString("trailing")
		}
		out = append(out, gzb.Bytes())
	}
	return out
}
