// Package jsyaml reads YAML as dsh's loader does: js-yaml 4.3.1's load
// with dsh's entry-list schema, js-yaml's JSON_SCHEMA extended by one type,
// `!!js` (tag:yaml.org,2002:js), whose scalar becomes an unevaluated
// expression. dsh 0.1.0-rc.8 loads a plugin's patch file and writes its
// --dump-config output with exactly this schema (@deepseek-ai/dsh-app-boot,
// entryListSchema), so this is the reading of both (SPEC.md "Consumers").
//
// It works on a yaml.v3 node tree and turns it into the value js-yaml
// constructs: null, a boolean, a number (a JavaScript double), a string,
// an expression, a list or a mapping with string keys. Where js-yaml
// throws it refuses with ErrRefused; where yaml.v3's tree and js-yaml
// could read the same bytes differently, or where another YAML loader a
// reader could plausibly use (a YAML 1.1 loader with merge keys) builds a
// different value, it refuses with ErrConflict instead of choosing. Each
// refusal names the line, js-yaml's reading and the conflicting one.
//
// The rules here are checked against js-yaml 4.3.1 itself by a
// differential test over generated and mutated inputs (differential_test.go).
package jsyaml

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/dshaudit/dshaudit/internal/lazyregexp"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Version is the js-yaml release dsh 0.1.0-rc.8 ships; the differential
// test runs exactly this version.
const Version = "4.3.1"

// Consumer names the reader in findings.
const Consumer = "js-yaml " + Version + " (dsh's loader, JSON schema with !!js)"

var (
	// ErrRefused: js-yaml throws on the input, so dsh cannot load it.
	ErrRefused = errors.New("js-yaml refuses the YAML")
	// ErrConflict: plausible readers of the input disagree on its value.
	ErrConflict = errors.New("YAML readers disagree")
)

// MaxDepth bounds the nesting accepted: js-yaml throws at a depth of 100
// nodes (its maxDepth), and a little below that yaml.v3's and js-yaml's
// counts of depth could differ, so anything deeper than MaxDepth is refused.
const MaxDepth = 90

// Kind is the JavaScript type of a Value.
type Kind int

// The kinds of Value.
const (
	Null Kind = iota
	Bool
	Number
	String
	Expr // a !!js scalar: {__jsExpr: source}, evaluated by dsh's loader later
	List
	Map
)

// Value is what js-yaml constructs for a node.
type Value struct {
	Kind Kind
	Bool bool
	Num  float64 // Number
	Str  string  // String; the source of an Expr
	// Items of a List; Values of a Map, in the order of Keys.
	Items []*Value
	Keys  []string
	Vals  []*Value
	// Line is the node's 1-based line in the source.
	Line int
}

// Get returns the value of key in a Map, or nil.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Map {
		return nil
	}
	for i, k := range v.Keys {
		if k == key {
			return v.Vals[i]
		}
	}
	return nil
}

// String returns a String value's text and true, or "" and false for any
// other value.
func (v *Value) String() (string, bool) {
	if v == nil || v.Kind != String {
		return "", false
	}
	return v.Str, true
}

// Truthy is JavaScript's Boolean(v), the test dsh's loader applies to an
// entry's `disabled` (cordis-plugin-loader: `Boolean(options.disabled)`,
// an expression evaluated first). decided is false for an Expr, which only
// evaluation at activation decides; a missing value (nil) is undefined,
// which is false.
func Truthy(v *Value) (truthy, decided bool) {
	if v == nil {
		return false, true
	}
	switch v.Kind {
	case Null:
		return false, true
	case Bool:
		return v.Bool, true
	case Number:
		return v.Num != 0 && !math.IsNaN(v.Num), true
	case String:
		return v.Str != "", true
	case Expr:
		return false, false
	}
	return true, true // an object or an array, even an empty one
}

// Describe names a value as JavaScript sees it, for findings.
func Describe(v *Value) string {
	if v == nil {
		return "undefined"
	}
	switch v.Kind {
	case Null:
		return "null"
	case Bool:
		return "the boolean " + strconv.FormatBool(v.Bool)
	case Number:
		return "the number " + FormatNumber(v.Num)
	case String:
		return fmt.Sprintf("the string %q", v.Str)
	case Expr:
		return fmt.Sprintf("the !!js expression %q", v.Str)
	case List:
		return fmt.Sprintf("a list of %d items", len(v.Items))
	}
	return fmt.Sprintf("a mapping of %d keys", len(v.Keys))
}

// FormatNumber writes n as JavaScript's String(n) does for the values the
// differential test compares (integers exactly, others shortest).
func FormatNumber(n float64) string {
	switch {
	case math.IsNaN(n):
		return "NaN"
	case math.IsInf(n, 1):
		return "Infinity"
	case math.IsInf(n, -1):
		return "-Infinity"
	case n == 0:
		return "0"
	}
	return strconv.FormatFloat(n, 'g', -1, 64)
}

// FromNode converts a yaml.v3 node (a document's root content node) into
// the value js-yaml's load constructs for the same bytes, or refuses with
// an error wrapping ErrRefused or ErrConflict.
func FromNode(n *yaml.Node) (*Value, error) {
	c := converter{}
	return c.node(n, 1)
}

// fromSource is FromNode with the source bytes at hand, which lets it see
// what yaml.v3's tree drops: the non-specific tag `!`. A non-nil rootItem
// is given the items of a root list instead of the list keeping them.
func fromSource(n *yaml.Node, src []byte, rootItem func(*Value)) (*Value, error) {
	// Columns on the first line do not count a byte order mark.
	c := converter{src: bytes.TrimPrefix(src, []byte("\ufeff")), rootItem: rootItem}
	return c.node(n, 1)
}

type converter struct {
	anchors map[*yaml.Node]*Value // anchored nodes built (nil while being built)
	flow    bool                  // inside a flow collection
	src     []byte
	// rootItem, when set, takes each item of a root list (depth 1, the
	// root alone) in place of the list's Items (LoadItems).
	rootItem func(*Value)
	lines    []int // offsets of line starts in src, made on first use
	cur      cursor
}

// cursor is the converter's last position in src, on one line, so that
// offset resumes from it for a later column of the same line: nodes are
// visited in source order, and a 256 KiB dump written on one line (a flow
// list) made every node's offset walk the line from its start, quadratic
// in the line (minutes for the dump limit's worth of "0,").
type cursor struct {
	line, col, off int
	last           byte // the last byte that is not a space or a tab, of characters 1 to col-1
	zero           bool // a NUL byte starts one of characters 1 to col-1
}

// before returns the last byte before a node's position on its line that
// is not a space, or 0.
func (c *converter) before(line, col int) byte {
	if c.offset(line, col) >= 0 {
		// The cursor is at col: it has read characters 1 to col-1.
		if c.cur.zero {
			return 0
		}
		return c.cur.last
	}
	var last byte
	for i := 1; i < col; i++ {
		b := c.at(line, i)
		if b == 0 {
			return 0
		}
		if b != ' ' && b != '\t' {
			last = b
		}
	}
	return last
}

// offset returns the offset in src of a node's 1-based line and column
// (columns count characters), or -1.
func (c *converter) offset(line, col int) int {
	if c.src == nil || line < 1 || col < 1 {
		return -1
	}
	if c.lines == nil {
		c.lines = append(c.lines, 0)
		for i, b := range c.src {
			if b == '\n' {
				c.lines = append(c.lines, i+1)
			}
		}
	}
	if line > len(c.lines) {
		return -1
	}
	cur := &c.cur
	if cur.line != line || col < cur.col {
		*cur = cursor{line: line, col: 1, off: c.lines[line-1]}
	}
	for cur.off < len(c.src) {
		if cur.col == col {
			return cur.off
		}
		b := c.src[cur.off]
		if b == '\n' {
			return -1
		}
		if b == 0 {
			cur.zero = true
		} else if b != ' ' && b != '\t' {
			cur.last = b
		}
		_, size := utf8.DecodeRune(c.src[cur.off:])
		cur.off += size
		cur.col++
	}
	return -1
}

// at returns the byte of src at a node's line and column, or 0.
func (c *converter) at(line, col int) byte {
	if off := c.offset(line, col); off >= 0 {
		return c.src[off]
	}
	return 0
}

// restOfLine is src from a node's position to the end of its line.
func (c *converter) restOfLine(line, col int) []byte {
	off := c.offset(line, col)
	if off < 0 {
		return nil
	}
	if line < len(c.lines) {
		return c.src[off : c.lines[line]-1] // up to the line's "\n"
	}
	return c.src[off:]
}

// properties skips the node's properties (a tag and an anchor, in either
// order) at its position, where yaml.v3 puts a node's column, and returns
// the rest of the line after them, and whether one is the non-specific
// tag "!".
func (c *converter) properties(n *yaml.Node) (rest []byte, nonSpecific bool) {
	rest = c.restOfLine(n.Line, n.Column)
	for k := 0; k < 2 && len(rest) > 0 && (rest[0] == '!' || rest[0] == '&'); k++ {
		end := bytes.IndexAny(rest, " \t")
		if end < 0 {
			end = len(rest)
		}
		if rest[0] == '!' && end == 1 {
			nonSpecific = true
		}
		rest = bytes.TrimLeft(rest[end:], " \t")
	}
	return rest, nonSpecific
}

// checkSource refuses what the tree does not show but the source does: a
// plain scalar continued on further lines (js-yaml's rules for their
// indentation differ from yaml.v3's), and a double-quoted scalar with an
// escape js-yaml does not know or a \u escape of a lone surrogate.
func (c *converter) checkSource(n *yaml.Node) error {
	if c.src == nil {
		return nil
	}
	switch {
	case n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0 && n.Value != "":
		rest, _ := c.properties(n)
		if !bytes.HasPrefix(rest, []byte(n.Value)) {
			return conflict(n, "a plain scalar continued on further lines: js-yaml and yaml.v3 judge the indentation of its lines differently; quote it or write it on one line")
		}
	case n.Style&yaml.DoubleQuotedStyle != 0:
		off := c.offset(n.Line, n.Column)
		if off < 0 {
			return nil
		}
		if i := bytes.IndexByte(c.src[off:], '"'); i >= 0 {
			off += i + 1
		}
		for i := off; i < len(c.src) && c.src[i] != '"'; i++ {
			if c.src[i] != '\\' {
				continue
			}
			i++
			if i >= len(c.src) {
				break
			}
			e := c.src[i]
			switch {
			case bytes.IndexByte([]byte("0abt\tnvfre \"/\\N_LP\n\r"), e) >= 0:
			case e == 'x' || e == 'u' || e == 'U':
				w := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
				if i+w >= len(c.src) {
					return refused(n, "a truncated \\%c escape in a double-quoted scalar", e)
				}
				r, err := strconv.ParseUint(string(c.src[i+1:i+1+w]), 16, 32)
				if err != nil || (r >= 0xd800 && r <= 0xdfff) || r > 0x10ffff {
					return conflict(n, "the escape \\%c%s in a double-quoted scalar: a lone surrogate or no character, which js-yaml and yaml.v3 turn into different strings", e, c.src[i+1:i+1+w])
				}
				i += w
			default:
				return refused(n, "the escape \\%c in a double-quoted scalar: js-yaml throws (unknown escape sequence)", e)
			}
		}
	}
	return nil
}

func refused(n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("%w: line %d: %s", ErrRefused, n.Line, fmt.Sprintf(format, args...))
}

func conflict(n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("%w: line %d: %s", ErrConflict, n.Line, fmt.Sprintf(format, args...))
}

// Long forms of the tags js-yaml's schema knows.
const (
	tagStr = "tag:yaml.org,2002:str"
	tagSeq = "tag:yaml.org,2002:seq"
	tagMap = "tag:yaml.org,2002:map"
	tagJS  = "tag:yaml.org,2002:js"
)

// explicitTag is the tag written on n, long form, or "" when none is.
func explicitTag(n *yaml.Node) string {
	if n.Style&yaml.TaggedStyle == 0 || n.Tag == "" {
		return ""
	}
	t := n.Tag
	if strings.HasPrefix(t, "!!") {
		return "tag:yaml.org,2002:" + t[2:]
	}
	return t
}

func (c *converter) node(n *yaml.Node, depth int) (*Value, error) {
	if n == nil {
		return &Value{Kind: Null}, nil
	}
	if depth > MaxDepth {
		return nil, refused(n, "nesting deeper than %d levels (js-yaml throws at its maxDepth of 100; dshaudit stops before counts could differ)", MaxDepth)
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return nil, refused(n, "alias %q names no anchor", n.Value)
		}
		// js-yaml gives an alias the very value of its anchor, built once:
		// so does this reader, so that aliases never expand.
		if v, ok := c.anchors[n.Alias]; ok {
			if v == nil {
				return nil, refused(n, "alias %q names an anchor that contains it", n.Value)
			}
			return v, nil
		}
		return c.node(n.Alias, depth+1)
	}
	if n.Anchor != "" {
		if c.anchors == nil {
			c.anchors = map[*yaml.Node]*Value{}
		}
		c.anchors[n] = nil // in progress
		v, err := c.build(n, depth)
		if err == nil {
			c.anchors[n] = v
		}
		return v, err
	}
	return c.build(n, depth)
}

// build converts a node that is not an alias.
func (c *converter) build(n *yaml.Node, depth int) (*Value, error) {
	tag := explicitTag(n)
	if _, nonSpecific := c.properties(n); tag == "" && nonSpecific {
		return nil, conflict(n, "the non-specific tag !: yaml.v3 resolves the value as if untagged, js-yaml keeps it a string")
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return c.scalar(n, tag)
	case yaml.SequenceNode:
		if tag != "" && tag != tagSeq {
			return nil, tagProblem(n, tag, "a list")
		}
		v := &Value{Kind: List, Line: n.Line}
		if depth > 1 || c.rootItem == nil {
			v.Items = make([]*Value, 0, len(n.Content))
		}
		defer c.enter(n)()
		for _, it := range n.Content {
			if n.Style&yaml.FlowStyle == 0 && it.Kind == yaml.SequenceNode && it.Style&yaml.FlowStyle == 0 && hasEmptyItem(it) {
				return nil, conflict(it, "a block list nested in a list item with an empty item (\"- -\"): js-yaml takes the items after it for the inner list, yaml.v3 for the outer one")
			}
			iv, err := c.node(it, depth+1)
			if err != nil {
				return nil, err
			}
			if depth == 1 && c.rootItem != nil {
				c.rootItem(iv)
				continue
			}
			v.Items = append(v.Items, iv)
		}
		return v, nil
	case yaml.MappingNode:
		if tag != "" && tag != tagMap {
			return nil, tagProblem(n, tag, "a mapping")
		}
		defer c.enter(n)()
		return c.mapping(n, depth)
	}
	return nil, refused(n, "a YAML node of kind %d", n.Kind)
}

// hasEmptyItem says a list has an item written as nothing at all.
func hasEmptyItem(n *yaml.Node) bool {
	for _, it := range n.Content {
		if it.Kind == yaml.ScalarNode && it.Value == "" && it.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.TaggedStyle) == 0 {
			return true
		}
	}
	return false
}

// enter notes that the converter is inside a flow collection when n is
// one, and returns the function that restores the state.
func (c *converter) enter(n *yaml.Node) func() {
	was := c.flow
	if n.Style&yaml.FlowStyle != 0 {
		c.flow = true
	}
	return func() { c.flow = was }
}

// tagProblem refuses a tag on a collection that js-yaml's schema does not
// give that kind: js-yaml throws ("unknown tag" or "unacceptable node kind").
func tagProblem(n *yaml.Node, tag, kind string) error {
	return refused(n, "tag %q on %s: js-yaml's schema (JSON with !!js) throws on it", tag, kind)
}

func (c *converter) mapping(n *yaml.Node, depth int) (*Value, error) {
	v := &Value{Kind: Map, Line: n.Line}
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if c.before(kn.Line, kn.Column) == '?' {
			return nil, conflict(kn, "an explicit key (?): yaml.v3 and js-yaml read a '?' before a key differently in flow collections; write the mapping without it")
		}
		key, err := c.key(kn, depth+1)
		if err != nil {
			return nil, err
		}
		if first, dup := seen[key]; dup {
			return nil, refused(kn, "duplicated mapping key %q (first at line %d): js-yaml throws, while a reader keeping the first or the last value would see a value", key, first)
		}
		seen[key] = kn.Line
		val, err := c.node(vn, depth+1)
		if err != nil {
			return nil, err
		}
		v.Keys = append(v.Keys, key)
		v.Vals = append(v.Vals, val)
	}
	return v, nil
}

// key reads a mapping key. js-yaml stringifies every key (String(key));
// dshaudit accepts only keys that are strings to begin with, since a
// number, null or a boolean as a key is written differently by other
// readers, and a plain `<<`, which js-yaml's JSON schema keeps as the
// key "<<", is a merge to a YAML 1.1 loader.
func (c *converter) key(kn *yaml.Node, depth int) (string, error) {
	if kn.Kind == yaml.AliasNode {
		return "", conflict(kn, "an alias as a mapping key: readers stringify or refuse it differently")
	}
	if kn.Kind != yaml.ScalarNode {
		return "", conflict(kn, "a %s as a mapping key: js-yaml turns it into a string (e.g. \"[object Object]\"), other readers refuse it", kindWord(kn))
	}
	kv, err := c.scalar(kn, explicitTag(kn))
	if err != nil {
		return "", err
	}
	if kv.Kind != String {
		return "", conflict(kn, "the key %q is %s to js-yaml, which stringifies it; dshaudit reads only string keys, as other readers key by the value", kn.Value, Describe(kv))
	}
	if kv.Str == "<<" && kn.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0 && explicitTag(kn) == "" {
		return "", conflict(kn, "a merge key <<: js-yaml (dsh's JSON schema) reads it as a plain key named \"<<\", a YAML 1.1 loader merges the mapping it names")
	}
	return kv.Str, nil
}

func kindWord(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "mapping"
	}
	return "node"
}

func (c *converter) scalar(n *yaml.Node, tag string) (*Value, error) {
	if err := c.checkSource(n); err != nil {
		return nil, err
	}
	plain := n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0
	v := &Value{Line: n.Line}
	if (n.Style&(yaml.LiteralStyle|yaml.FoldedStyle)) != 0 && n.Value == "" {
		return nil, refused(n, "an empty block scalar: js-yaml throws on one at the end of the input (missing indentation for block scalar), yaml.v3 reads an empty string")
	}
	switch tag {
	case "":
		if !plain {
			v.Kind, v.Str = String, n.Value
			return v, nil
		}
		if c.flow && flowIndicatorStart(n.Value) {
			return nil, refused(n, "the plain scalar %q in a flow collection starts with an indicator followed by a flow indicator: yaml.v3 reads a scalar, js-yaml throws", n.Value)
		}
		return resolvePlain(n, v)
	case tagStr:
		if plain && n.Value == "" {
			// js-yaml: an empty node's result is null, which !!str cannot resolve.
			return nil, refused(n, "!!str with no value: js-yaml throws (cannot resolve a node with !<tag:yaml.org,2002:str> explicit tag)")
		}
		v.Kind, v.Str = String, n.Value
		return v, nil
	case tagJS:
		if plain && n.Value == "" {
			return nil, refused(n, "!!js with no value: js-yaml throws (cannot resolve a node with !<tag:yaml.org,2002:js> explicit tag)")
		}
		v.Kind, v.Str = Expr, n.Value
		return v, nil
	}
	// !!null, !!bool, !!int, !!float and every other tag: js-yaml resolves
	// these with rules of its own (or throws on an unknown tag), which
	// differ from yaml.v3's and other loaders' for many spellings.
	return nil, conflict(n, "explicit tag %q on %q: js-yaml's schema resolves or refuses it by rules other readers do not share; write the value without a tag", n.Tag, n.Value)
}

// flowIndicatorStart says a plain scalar in flow context starts with -, ?
// or : alone or before a flow indicator, which js-yaml does not take as
// a plain scalar (its readPlainScalar wants a safe character next).
func flowIndicatorStart(s string) bool {
	if s == "" || (s[0] != '-' && s[0] != '?' && s[0] != ':') {
		return false
	}
	return len(s) == 1 || strings.IndexByte(",[]{} \t", s[1]) >= 0
}

// resolvePlain resolves a plain scalar as js-yaml's JSON schema does, in
// its order: null, bool, int, float, else a string.
func resolvePlain(n *yaml.Node, v *Value) (*Value, error) {
	s := n.Value
	switch {
	case isNull(s):
		v.Kind = Null
	case isBool(s):
		v.Kind, v.Bool = Bool, s[0] == 't' || s[0] == 'T'
	default:
		if f, ok, sure := resolveInt(s); !sure {
			return nil, conflict(n, "the plain scalar %q is an integer too long to be sure how js-yaml rounds it; quote it", s)
		} else if ok {
			v.Kind, v.Num = Number, f
			return v, nil
		}
		if f, ok, sure := resolveFloat(s); !sure {
			return nil, conflict(n, "the plain scalar %q is a number too long to be sure how js-yaml rounds it; quote it", s)
		} else if ok {
			v.Kind, v.Num = Number, f
			return v, nil
		}
		v.Kind, v.Str = String, s
	}
	return v, nil
}

// isNull is js-yaml's resolveYamlNull: "", ~, null, Null, NULL.
func isNull(s string) bool {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return true
	}
	return false
}

// isBool is js-yaml's resolveYamlBoolean (YAML 1.2: no yes/no/on/off).
func isBool(s string) bool {
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return true
	}
	return false
}

// maxNumberDigits bounds the digits of a number this package rounds
// itself; a longer one is refused (sure false), since JavaScript's
// parseInt accumulates digits in a way not worth reproducing.
const maxNumberDigits = 15

// resolveInt is js-yaml's resolveYamlInteger and parseYamlInteger: an
// optional sign, then 0, 0b…, 0x…, 0o… or decimal digits (no underscores),
// and a finite value.
func resolveInt(s string) (val float64, ok, sure bool) {
	if s == "" {
		return 0, false, true
	}
	i, neg := 0, false
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		i++
	}
	body := s[i:]
	base, digits := 10, body
	if body == "0" {
		return signed(0, neg), true, true
	}
	if len(body) >= 2 && body[0] == '0' {
		switch body[1] {
		case 'b':
			base, digits = 2, body[2:]
		case 'x':
			base, digits = 16, body[2:]
		case 'o':
			base, digits = 8, body[2:]
		}
	}
	if digits == "" {
		return 0, false, true
	}
	for j := 0; j < len(digits); j++ {
		if digitVal(digits[j]) >= base {
			return 0, false, true
		}
	}
	b, _ := new(big.Int).SetString(digits, base)
	if b.BitLen() > 53 {
		return 0, false, false // beyond exact doubles: refuse rather than round
	}
	f, _ := new(big.Float).SetInt(b).Float64()
	return signed(f, neg), true, true
}

func signed(f float64, neg bool) float64 {
	if neg {
		return -f
	}
	return f
}

func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return 99
}

// floatPattern is js-yaml's YAML_FLOAT_PATTERN.
var floatPattern = lazyregexp.New(`^(?:[-+]?(?:[0-9]+)(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)

// resolveFloat is js-yaml's resolveYamlFloat and constructYamlFloat.
func resolveFloat(s string) (val float64, ok, sure bool) {
	if !floatPattern.MatchString(s) {
		return 0, false, true
	}
	low := strings.ToLower(s)
	neg := low[0] == '-'
	body := strings.TrimLeft(low, "+-")
	switch body {
	case ".inf":
		return signed(math.Inf(1), neg), true, true
	case ".nan":
		return math.NaN(), true, true
	}
	if n := countDigits(body); n > maxNumberDigits {
		return 0, false, false
	}
	f, err := strconv.ParseFloat(body, 64)
	if err != nil || math.IsInf(f, 0) {
		// JavaScript's parseFloat gives Infinity, not finite: js-yaml
		// keeps the scalar as a string. Be conservative: refuse.
		return 0, false, false
	}
	return signed(f, neg), true, true
}

func countDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
		if s[i] == 'e' {
			break
		}
	}
	return n
}

// PlainKind is the kind js-yaml's JSON schema resolves a plain scalar
// written s to (Null, Bool, Number or String); sure is false for a number
// too long to round here, which FromNode refuses.
func PlainKind(s string) (k Kind, sure bool) {
	switch {
	case isNull(s):
		return Null, true
	case isBool(s):
		return Bool, true
	}
	if _, ok, sure := resolveInt(s); !sure || ok {
		return Number, sure
	}
	if _, ok, sure := resolveFloat(s); !sure || ok {
		return Number, sure
	}
	return String, true
}
