package static

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"unicode/utf8"
)

// maxFastDepth is how deeply nested a document decodeObjectFast takes;
// deeper ones go to encoding/json, which has its own limit.
const maxFastDepth = 100

// decodeObjectFast decodes a package.json whose top level is one object,
// with nothing but whitespace after it, into what encoding/json's decoder
// with UseNumber gives (map[string]any, []any, string, json.Number, bool,
// nil), in one pass and without reflection: encoding/json scans a
// document twice and took a quarter of a T0 check. It takes only the
// common case: strings in valid UTF-8 (which encoding/json keeps as it
// is), without control characters, with any escape but that of a UTF-16
// surrogate. On anything else, including every error, ok is false and
// parsePackageJSON asks encoding/json, so what is accepted, what is
// refused and every message stay encoding/json's. FuzzPackageJSONFast
// compares the two.
func decodeObjectFast(b []byte) (m map[string]any, ok bool) {
	d := fastDecoder{b: b}
	d.space()
	if d.i >= len(b) || b[d.i] != '{' {
		return nil, false
	}
	v, ok := d.value(0)
	if !ok {
		return nil, false
	}
	if d.space(); d.i != len(b) {
		return nil, false // trailing data: encoding/json's decoder decides
	}
	return v.(map[string]any), true
}

// fastDecoder is decodeObjectFast's position in its input.
type fastDecoder struct {
	b []byte
	i int
}

// space skips JSON whitespace.
func (d *fastDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// value decodes the value at d.i (whitespace already skipped).
func (d *fastDecoder) value(depth int) (any, bool) {
	if d.i >= len(d.b) || depth > maxFastDepth {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.str()
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, false
}

// object decodes an object; a repeated key keeps its last value, as in
// encoding/json.
func (d *fastDecoder) object(depth int) (any, bool) {
	d.i++ // {
	m := map[string]any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, true
	}
	for {
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, false
		}
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		if d.space(); d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.space()
		v, ok := d.value(depth + 1)
		if !ok {
			return nil, false
		}
		m[k.(string)] = v
		if more, ok := d.more('}'); !ok || !more {
			return m, ok
		}
	}
}

// array decodes an array; an empty one is an empty, non-nil slice.
func (d *fastDecoder) array(depth int) (any, bool) {
	d.i++ // [
	a := []any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, true
	}
	for {
		v, ok := d.value(depth + 1)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		if more, ok := d.more(']'); !ok || !more {
			return a, ok
		}
	}
}

// more reads what follows a member of an object or an array: a comma
// (more is true) or the closer that ends it; ok is false on anything else.
func (d *fastDecoder) more(closer byte) (more, ok bool) {
	if d.space(); d.i >= len(d.b) {
		return false, false
	}
	switch d.b[d.i] {
	case ',':
		d.i++
		d.space()
		return true, true
	case closer:
		d.i++
		return false, true
	}
	return false, false
}

// str decodes a string in valid UTF-8 without control characters. Of
// the escapes it takes all but \u for a UTF-16 surrogate, whose pairing
// rules are left to encoding/json.
func (d *fastDecoder) str() (any, bool) {
	d.i++ // "

	var buf []byte // the decoded text once there is an escape
	end := -1      // the index of the next quote, at or after d.i
	for {
		// The next quote ends the string unless a backslash comes first;
		// both found with bytes.IndexByte, the text between checked for
		// control characters and UTF-8 only.
		if end < d.i {
			q := bytes.IndexByte(d.b[d.i:], '"')
			if q < 0 {
				return nil, false
			}
			end = d.i + q
		}
		chunk := d.b[d.i:end]
		bs := bytes.IndexByte(chunk, '\\')
		if bs >= 0 {
			chunk = chunk[:bs]
		}
		if hasControl(chunk) || !utf8.Valid(chunk) {
			return nil, false
		}
		if bs < 0 {
			d.i = end + 1
			if buf != nil {
				return string(append(buf, chunk...)), true
			}
			return string(chunk), true
		}
		if buf == nil {
			buf = make([]byte, 0, end-d.i+utf8.UTFMax)
		}
		buf = append(buf, chunk...)
		r, n := unescape(d.b[d.i+bs:])
		if n == 0 {
			return nil, false
		}
		buf = utf8.AppendRune(buf, r)
		d.i += bs + n
	}
}

// hasControl reports whether b has a byte below 0x20, eight bytes at a
// time: a byte x < 0x20 is one where x - 0x20 borrows into its top bit
// while x's own top bit is clear (the first such byte of a word is always
// found; borrows can only add bits above it).
func hasControl(b []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b)
		if (w-0x20*ones)&^w&highs != 0 {
			return true
		}
		b = b[8:]
	}
	for _, c := range b {
		if c < ' ' {
			return true
		}
	}
	return false
}

// unescape decodes the escape at the start of b (a backslash and what
// follows): the rune and the escape's length, or n 0 when it is not one
// str takes.
func unescape(b []byte) (r rune, n int) {
	if len(b) < 2 {
		return 0, 0
	}
	switch b[1] {
	case '"', '\\', '/':
		return rune(b[1]), 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		if len(b) < 6 {
			return 0, 0
		}
		for _, h := range b[2:6] {
			var v byte
			switch {
			case h >= '0' && h <= '9':
				v = h - '0'
			case h >= 'a' && h <= 'f':
				v = h - 'a' + 10
			case h >= 'A' && h <= 'F':
				v = h - 'A' + 10
			default:
				return 0, 0
			}
			r = r<<4 | rune(v)
		}
		if r >= 0xD800 && r <= 0xDFFF {
			return 0, 0
		}
		return r, 6
	}
	return 0, 0
}

// number decodes a number as json.Number, its text, after checking it
// against JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *fastDecoder) number() (any, bool) {
	start := d.i
	if d.b[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.b) && d.b[d.i] == '0':
		d.i++
	case d.digits() == 0:
		return nil, false
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if d.digits() == 0 {
			return nil, false
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if d.digits() == 0 {
			return nil, false
		}
	}
	return json.Number(d.b[start:d.i]), true
}

// digits skips decimal digits and says how many there were.
func (d *fastDecoder) digits() int {
	n := 0
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
		n++
	}
	return n
}

// literal consumes word (true, false or null).
func (d *fastDecoder) literal(word string) bool {
	if len(d.b)-d.i < len(word) || string(d.b[d.i:d.i+len(word)]) != word {
		return false
	}
	d.i += len(word)
	return true
}
