package oracle

import (
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
)

// CommonMarkJS reads each input as a CommonMark renderer shows it,
// parsed by commonmark.js (the reference implementation, pinned in
// scripts/oracles), and prints, as a JSON array of arrays of strings,
// the prose lines of each "Permissions" section by the rule of
// rules/static permissionSections, walked over commonmark.js's tree.
const CommonMarkJS = `
const cm = require('commonmark');
const parser = new cm.Parser();
function inline(node) {
  let s = '';
  for (let c = node.firstChild; c; c = c.next) {
    switch (c.type) {
      case 'text': case 'code': s += c.literal; break;
      case 'softbreak': case 'linebreak': s += '\n'; break;
      case 'html_inline': case 'image': break;
      default: s += inline(c);
    }
  }
  return s;
}
function prose(node, lines) {
  switch (node.type) {
    case 'paragraph': lines.push(...inline(node).split('\n'), ''); return;
    case 'heading': lines.push(''); return;
    case 'code_block': case 'html_block': case 'thematic_break': return;
  }
  for (let c = node.firstChild; c; c = c.next) prose(c, lines);
}
function sections(md) {
  const doc = parser.parse(md);
  const secs = [];
  let cur = [], level = 0, on = false;
  for (let n = doc.firstChild; n; n = n.next) {
    if (n.type === 'heading') {
      if (on && n.level <= level) { secs.push(cur); on = false; cur = []; }
      if (!on && inline(n).trim().toLowerCase().startsWith('permissions')) { on = true; level = n.level; cur = []; }
      continue;
    }
    if (on) prose(n, cur);
  }
  if (on) secs.push(cur);
  return secs;
}
const rl = require('readline').createInterface({ input: process.stdin });
const out = [];
rl.on('line', line => out.push(JSON.stringify(sections(Buffer.from(line, 'base64').toString('utf8')))));
rl.on('close', () => process.stdout.write(out.map(l => l + '\n').join('')));
`

// CommonMarkSections runs CommonMarkJS over docs.
func CommonMarkSections(t testing.TB, docs [][]byte) [][][]string {
	t.Helper()
	lines := Run(t, CommonMarkJS, docs, "commonmark")
	out := make([][][]string, len(lines))
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &out[i]); err != nil {
			t.Fatalf("oracle line %d: %v", i, err)
		}
	}
	return out
}

// mdPieces are the lines READMEs are built from: headings of both
// kinds, labelled items in lists, emphasis and code, fences of several
// lengths, indented code, HTML comments and blocks, quotes, escapes and
// character references.
var mdPieces = []string{
	"# Permissions", "## Permissions", "### permissions and data", "Permissions", "===", "---", "## Other", "# Other ##",
	"    # Permissions", "#Permissions", "## Permissions #", "###### Permissions", "####### Permissions", "\\# Permissions",
	"Why network: fetches the weather from api.example.com for each request",
	"Why shell: runs the formatter on the files the user names, nothing else",
	"Why fs-write: writes the cache under the profile directory only",
	"Data flow: api.example.com -> plugin -> the user's terminal, never back",
	"Data flow: from the API to the chat window, nothing is sent elsewhere",
	"- Why network: fetches the weather for each request of the user",
	"* **Why shell:** runs the formatter the user configured, on save",
	"1. __Data flow:__ from the web to the user's screen and nowhere else",
	"2) Why network: needed", "+ Why write: keeps a cache of results on disk",
	"> Why network: quoted explanation that is long enough to count", ">", "> Data flow: a -> b -> c and so on",
	"```", "````", "~~~", "```js", "   ```", "    ```", "~~~~", "``` ```",
	"    Why network: in an indented code block, not prose",
	"<!--", "-->", "<!-- Why network: hidden in a comment that is closed -->", "<!-- Why shell: unclosed comment",
	"<div>", "</div>", "<details>", "</details>", "<span>Why network:</span> spans are inline html",
	"Why network&#58; written with a character reference to the colon", "Why network\\: escaped colon text here",
	"Data flow&colon; x -> y", "`Why network:` in a code span at the start of a line", "![Why network: alt](x.png)",
	"[Why network: as link text](https://example.com)", "Why&nbsp;network: with a no-break space here",
	"", "", "", "text that continues the paragraph lazily", "  indented two spaces continuing", "\tWhy network: tab indented",
	"Why network:", "***", "- - -", "| a | b |", "Why network: <!-- inline comment --> then text", "Why network: a  \nhard break",
}

// MarkdownDocs returns n READMEs drawn from seed: half built line by
// line from mdPieces, half byte-level mutations of those. All are valid
// UTF-8: Node decodes invalid bytes by WHATWG's rule, which the Go side
// does not reproduce (SPEC.md "Consumers").
func MarkdownDocs(seed int64, n int) [][]byte {
	rng := rand.New(rand.NewSource(seed))
	var out, pool [][]byte
	for len(out) < n {
		if len(pool) > 0 && rng.Intn(2) == 0 {
			m := Mutate(rng, pool[rng.Intn(len(pool))])
			if !strings.ContainsRune(strings.ToValidUTF8(string(m), "\x00"), 0) && !strings.ContainsRune(string(m), '\ufffd') {
				out = append(out, m)
			}
			continue
		}
		var b strings.Builder
		for range 1 + rng.Intn(14) {
			b.WriteString(mdPieces[rng.Intn(len(mdPieces))])
			b.WriteString([]string{"\n", "\n", "\n", "\r\n", "\n\n"}[rng.Intn(5)])
		}
		d := []byte(b.String())
		out = append(out, d)
		if len(pool) < 300 {
			pool = append(pool, d)
		}
	}
	return out
}
