package rules

import (
	"bytes"
	"unicode/utf8"

	"github.com/dshaudit/dshaudit/rules/jsyaml"
)

// This file is a fast path of ParseDump for the YAML that dsh writes: the
// block style of js-yaml's dump (a root list of mappings, `# ==` comment
// lines at column 0, plain, single-quoted and folded or literal block
// scalars, `!!js` tags, `[]` and `{}`). It gives ParseDump's answer
// without building a yaml.v3 node tree, which was a third of the CPU of
// verifying a typical bundle (DESIGN.md "Reading the T3 dump").
//
// It is not a YAML parser. It accepts a narrow subset of YAML, line by
// line, and gives up (ok false) on anything outside it: anchors, aliases,
// merge keys, flow collections other than [] and {}, double quotes,
// multi-line plain or quoted scalars, indented comments, tabs, lines of
// spaces alone, indentation other than the one expected, and any item whose
// id, name or disabled is not a one-line scalar it can read exactly.
// It also gives up on what the reference (yaml.v3's tree read as js-yaml
// builds it, rules/jsyaml) refuses or resolves to other than a string: a
// duplicated key in any mapping, a key such as 1 or true, an id or name
// that js-yaml resolves to null, a boolean or a number, and an empty block
// scalar. ParseDump then reads through the reference: whenever the fast
// path accepts a dump, the reference reads it without error into the
// same entries (the tests TestParseDumpFast* over the real dumps, edits
// of them, generated dumps and directed cases; FuzzParseDumpFast over any
// bytes). The fast path never refuses a dump, so every error ParseDump
// returns is yaml.v3's.

// dumpFastMaxDepth bounds the nesting the fast path follows; deeper
// dumps go to yaml.v3.
const dumpFastMaxDepth = 64

// dumpFastMaxKey bounds a mapping key's length: libyaml refuses a simple
// key longer than 1024 bytes, and no dsh key comes near this bound.
const dumpFastMaxKey = 128

// parseDumpFast returns ParseDump's entries for a dump in the subset
// described above, and ok false for any other dump.
func parseDumpFast(b []byte) ([]DumpEntry, bool) {
	if !dumpFastBytes(b) {
		return nil, false
	}
	p := newDumpFastParser(b)
	p.skip()
	if p.eof() {
		return nil, false // no document: yaml.v3 names it
	}
	var out []DumpEntry
	for !p.eof() {
		if p.indent() != 0 || !p.isEntry(0) {
			return nil, false
		}
		line := p.n
		rest := p.line()[2:]
		item, isMap, ok := p.entry(0, rest, 1)
		if !ok {
			return nil, false
		}
		if isMap {
			e, keep, ok := item.dumpEntry(line)
			if !ok {
				return nil, false
			}
			if keep {
				out = append(out, e)
			}
		}
	}
	return out, true
}

// dumpFastBytes reports whether every byte of b is one the subset admits:
// newline, printable ASCII, and UTF-8 characters libyaml takes as
// printable and not as a line break (U+00A0–U+D7FF, U+E000–U+FFFD but
// U+FEFF; not U+2028, U+2029, nor anything above U+FFFF, which libyaml's
// printable test does not admit). Tabs and carriage returns are out.
func dumpFastBytes(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c != '\n' && (c < 0x20 || c == 0x7f) {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError || r < 0xa0 || r > 0xfffd || r == 0xfeff || r == 0x2028 || r == 0x2029 {
			return false
		}
		i += n
	}
	return true
}

// dumpFastParser reads the dump a line at a time, forward only.
type dumpFastParser struct {
	src  []byte
	cur  []byte // the current line, without its newline
	next int    // where the line after it starts
	n    int    // the current line's number, from 1
	end  bool   // no line is left
}

func newDumpFastParser(src []byte) *dumpFastParser {
	p := &dumpFastParser{src: src}
	p.advance()
	return p
}

// advance moves to the next line.
func (p *dumpFastParser) advance() {
	if p.next >= len(p.src) {
		p.cur, p.end = nil, true
		return
	}
	rest := p.src[p.next:]
	j := bytes.IndexByte(rest, '\n')
	if j < 0 {
		j = len(rest)
	}
	p.cur, p.next = rest[:j], p.next+j+1
	p.n++
}

func (p *dumpFastParser) eof() bool    { return p.end }
func (p *dumpFastParser) line() []byte { return p.cur }

// indent is the current line's count of leading spaces.
func (p *dumpFastParser) indent() int { return leadingSpaces(p.cur) }

func leadingSpaces(l []byte) int {
	n := 0
	for n < len(l) && l[n] == ' ' {
		n++
	}
	return n
}

// skip passes over empty lines and comment lines at column 0. A line of
// spaces alone, or an indented comment, is left for the caller, which
// refuses it.
func (p *dumpFastParser) skip() {
	for !p.eof() {
		l := p.line()
		if len(l) != 0 && l[0] != '#' {
			return
		}
		p.advance()
	}
}

// isEntry says the current line is a list entry "- x" at column col,
// with one space after the dash and something after the space.
func (p *dumpFastParser) isEntry(col int) bool {
	l := p.line()
	return len(l) > col+2 && l[col] == '-' && l[col+1] == ' ' && l[col+2] != ' '
}

// fastMap is what the fast path keeps of a mapping: the values of the
// keys ParseDump reads, and how often each is written.
type fastMap struct {
	id, name, disabled           fastScalar
	idCount, nameCount, disCount int
}

// fastScalar is a one-line scalar value: its source text (a quoted
// scalar's with its quotes), whether it was single-quoted, its tag (""
// or "!!js"), and ok false for any other value (a block scalar, a
// collection, nothing). Its text is made only for the keys ParseDump
// reads.
type fastScalar struct {
	raw    []byte
	quoted bool
	tag    string
	ok     bool
}

// text is the scalar's value; in a single-quoted scalar two quotes in a
// row are one.
func (s fastScalar) text() string {
	if !s.quoted {
		return string(s.raw)
	}
	in := s.raw[1 : len(s.raw)-1]
	b := make([]byte, 0, len(in))
	for i := 0; i < len(in); i++ {
		b = append(b, in[i])
		if in[i] == '\'' {
			i++ // the second quote of ''
		}
	}
	return string(b)
}

// dumpEntry is ParseDump's entry for an item mapping: keep false when the
// item has no id (not an entry), ok false when yaml.v3 must decide.
func (m *fastMap) dumpEntry(line int) (e DumpEntry, keep, ok bool) {
	if m.idCount > 1 || m.nameCount > 1 || m.disCount > 1 {
		return e, false, false
	}
	if m.idCount == 0 {
		return e, false, true
	}
	id, ok := m.id.str()
	if !ok {
		return e, false, false
	}
	e = DumpEntry{ID: id, Line: line}
	if m.nameCount == 1 {
		if e.Name, ok = m.name.str(); !ok {
			return e, false, false
		}
	}
	if m.disCount == 1 {
		d := m.disabled
		switch {
		case !d.ok:
			return e, false, false
		case d.tag == "" && !d.quoted && string(d.raw) == "true":
			e.Disabled = true
		case d.tag == "" && !d.quoted && string(d.raw) == "false":
		case d.tag == "!!js" && !d.quoted:
			e.DisabledExpr = "!!js " + d.text()
		default:
			return e, false, false
		}
	}
	return e, true, true
}

// str is the string js-yaml reads for s: an untagged one-line scalar,
// quoted or plain; ok false for a plain one that js-yaml's JSON schema
// resolves to null, a boolean or a number (the reference then decides).
func (s fastScalar) str() (string, bool) {
	if !s.ok || s.tag != "" {
		return "", false
	}
	if !s.quoted && plainMaybeNotString(s.raw) {
		if k, _ := jsyaml.PlainKind(string(s.raw)); k != jsyaml.String {
			return "", false
		}
	}
	return s.text(), true
}

// entry reads a list entry whose text after "- " is rest, at column
// col+2, and the lines that belong to it, and leaves the next line that
// is not empty or a comment current; the caller checks its indentation.
// isMap says it is a block mapping (its keys are returned); a scalar
// entry is read and dropped.
func (p *dumpFastParser) entry(col int, rest []byte, depth int) (m fastMap, isMap, ok bool) {
	if depth > dumpFastMaxDepth {
		return m, false, false
	}
	if _, _, isKey := splitKey(rest); isKey {
		m, ok = p.mapping(col+2, rest, depth+1)
		return m, true, ok
	}
	if _, block, ok := scalarValue(rest); !ok || block {
		return m, false, false // a block scalar as a list entry: left to yaml.v3
	}
	p.advance()
	p.skip()
	return m, false, true
}

// mapping reads a block mapping at column col whose first key line's text
// (from col on) is first, and the lines after it that belong to it.
func (p *dumpFastParser) mapping(col int, first []byte, depth int) (m fastMap, ok bool) {
	text := first
	var seenBuf [16][]byte
	seen := seenBuf[:0]
	for {
		key, val, isKey := splitKey(text)
		if !isKey {
			return m, false
		}
		// js-yaml throws on a duplicated key, and reads a key like 1 or
		// true as a number or boolean it stringifies: the reference
		// refuses both, so the fast path gives up.
		for _, k := range seen {
			if bytes.Equal(k, key) {
				return m, false
			}
		}
		seen = append(seen, key)
		if plainMaybeNotString(key) {
			if k, _ := jsyaml.PlainKind(string(key)); k != jsyaml.String {
				return m, false
			}
		}
		var s fastScalar
		if len(val) == 0 {
			// A nested block, or nothing (null).
			p.advance()
			p.skip()
			if !p.eof() {
				if in := p.indent(); in > col {
					if !p.nested(in, depth) {
						return m, false
					}
				}
			}
		} else {
			v, block, ok := scalarValue(val)
			if !ok {
				return m, false
			}
			p.advance()
			if block {
				if !p.blockScalar(col) {
					return m, false
				}
			} else {
				s = v
			}
			p.skip()
		}
		switch string(key) {
		case "id":
			m.id, m.idCount = s, m.idCount+1
		case "name":
			m.name, m.nameCount = s, m.nameCount+1
		case "disabled":
			m.disabled, m.disCount = s, m.disCount+1
		}
		if p.eof() {
			return m, true
		}
		in := p.indent()
		if in < col {
			return m, true
		}
		if in > col {
			return m, false
		}
		text = p.line()[col:]
	}
}

// nested reads the block that is a mapping key's value, whose first line
// (the current one) is indented by in: a list or a mapping.
func (p *dumpFastParser) nested(in int, depth int) bool {
	if depth > dumpFastMaxDepth {
		return false
	}
	if p.isEntry(in) {
		for {
			if _, _, ok := p.entry(in, p.line()[in+2:], depth+1); !ok {
				return false
			}
			if p.eof() {
				return true
			}
			next := p.indent()
			if next < in {
				return true
			}
			if next > in || !p.isEntry(in) {
				return false
			}
		}
	}
	_, ok := p.mapping(in, p.line()[in:], depth+1)
	return ok
}

// blockScalar passes over the content lines of a block scalar whose
// header ended the previous line, in a mapping at column col: empty lines
// and lines indented at least as far as the first non-empty one, which
// must be indented beyond col (else the scalar is empty, which js-yaml may
// refuse and the reference does: it gives up). A line of spaces alone
// gives up: libyaml reads such lines by rules of their own.
func (p *dumpFastParser) blockScalar(col int) bool {
	content := -1
	for !p.eof() {
		l := p.line()
		if len(l) == 0 {
			p.advance()
			continue
		}
		in := leadingSpaces(l)
		if in == len(l) {
			return false
		}
		if content < 0 {
			if in <= col {
				return false // an empty block scalar: the reference refuses it
			}
			content = in
		}
		if in < content {
			return true
		}
		p.advance()
	}
	return content >= 0 // else empty to the end: the reference refuses it
}

// splitKey splits "key: value" or "key:" into key and value; isKey false
// when text does not start with a key the subset admits: letters, digits
// and _$.- (not first: - or .), at most dumpFastMaxKey bytes, then a
// colon that ends the line or is followed by one space and a value.
func splitKey(text []byte) (key, val []byte, isKey bool) {
	n := 0
	for n < len(text) && n <= dumpFastMaxKey && isKeyByte(text[n], n == 0) {
		n++
	}
	if n == 0 || n > dumpFastMaxKey || n >= len(text) || text[n] != ':' {
		return nil, nil, false
	}
	switch {
	case n+1 == len(text):
		return text[:n], nil, true
	case text[n+1] == ' ' && n+2 < len(text) && text[n+2] != ' ':
		return text[:n], text[n+2:], true
	}
	return nil, nil, false
}

// plainMaybeNotString is a cheap test before jsyaml.PlainKind: only a
// plain scalar that is empty, starts with a digit, a sign, a dot or ~, or
// is one of the null and boolean words can resolve to something other
// than a string.
func plainMaybeNotString(k []byte) bool {
	if len(k) == 0 {
		return true
	}
	if c := k[0]; c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == '~' {
		return true
	}
	switch string(k) {
	case "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE":
		return true
	}
	return false
}

func isKeyByte(c byte, first bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '$':
		return true
	case c == '-', c == '.':
		return !first
	}
	return false
}

// scalarValue reads a value that is the rest of its line: [] or {}, a
// single-quoted scalar, a plain scalar, "!!js " and a plain scalar, or a
// block scalar header (block true; its lines follow), optionally after
// "!!js ". ok false for anything else.
func scalarValue(v []byte) (s fastScalar, block, ok bool) {
	if bytes.HasPrefix(v, []byte("!!js ")) {
		s.tag = "!!js"
		v = v[len("!!js "):]
		if isBlockHeader(v) {
			return s, true, true
		}
		if !isPlain(v) {
			return s, false, false
		}
		s.raw, s.ok = v, true
		return s, false, true
	}
	switch {
	case string(v) == "[]" || string(v) == "{}":
		return s, false, true // a collection: s.ok stays false
	case isBlockHeader(v):
		return s, true, true
	case v[0] == '\'':
		if !isSingleQuoted(v) {
			return s, false, false
		}
		s.raw, s.quoted, s.ok = v, true, true
		return s, false, true
	case isPlain(v):
		if !plainSure(v) {
			return s, false, false
		}
		s.raw, s.ok = v, true
		return s, false, true
	}
	return s, false, false
}

// plainSure is false for a plain scalar the reference refuses as a number
// too long to round (jsyaml.PlainKind's sure). Only one written with the
// characters of js-yaml's numbers, longer than 15 bytes or with an
// exponent, can be one (a shorter one has at most 52 bits or 14 digits),
// so PlainKind is asked only then.
func plainSure(v []byte) bool {
	if !plainMaybeNotString(v) || len(v) <= 15 && bytes.IndexAny(v, "eE") < 0 {
		return true
	}
	for _, c := range v {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == 'x' || c == 'X' || c == 'o' || c == 'O' || c == '+' || c == '-' || c == '.') {
			return true // not a number to js-yaml: a string
		}
	}
	_, sure := jsyaml.PlainKind(string(v))
	return sure
}

// isBlockHeader admits the block scalar headers without an indentation
// indicator or a comment: > >- >+ | |- |+.
func isBlockHeader(v []byte) bool {
	if len(v) == 0 || len(v) > 2 || (v[0] != '>' && v[0] != '|') {
		return false
	}
	return len(v) == 1 || v[1] == '-' || v[1] == '+'
}

// isSingleQuoted says v is one single-quoted scalar, all of it (two
// quotes in a row are one).
func isSingleQuoted(v []byte) bool {
	for i := 1; i < len(v); i++ {
		if v[i] != '\'' {
			continue
		}
		if i+1 < len(v) && v[i+1] == '\'' {
			i++
			continue
		}
		return i == len(v)-1 // else text after the closing quote
	}
	return false // no closing quote on the line
}

// isPlain admits a one-line plain scalar in block context whose text is
// exactly v: it does not start with an indicator (a '-' followed by
// another character is allowed), holds no ": ", " #", '[', ']', '{' or
// '}', and does not end with ':' or a space.
func isPlain(v []byte) bool {
	if len(v) == 0 {
		return false
	}
	switch v[0] {
	case '-':
		if len(v) == 1 || v[1] == ' ' {
			return false
		}
	case ' ', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	}
	last := v[len(v)-1]
	if last == ':' || last == ' ' {
		return false
	}
	for i, c := range v {
		switch c {
		case '[', ']', '{', '}':
			return false
		case ':':
			if v[i+1] == ' ' {
				return false
			}
		case '#':
			if v[i-1] == ' ' {
				return false
			}
		}
	}
	return true
}
