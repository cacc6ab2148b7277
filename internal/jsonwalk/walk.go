// Package jsonwalk reads parts of a JSON document in place, in memory
// that does not grow with the document: encoding/json's validator
// (json.Valid, which allocates nothing) checks the document, and the walk
// then hands out the raw bytes of members as slices of it, never copies.
// The verifier reads documents of up to the reader's entry limit (16 MiB)
// written by the party whose claim it checks; decoded whole, such JSON
// costs several times its size (SPEC.md "What the verifier
// cross-checks", class 6; "T1 install").
package jsonwalk

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// Sentinel errors.
var (
	// ErrEmpty: the document holds only white space.
	ErrEmpty = errors.New("no JSON value")
	// errWalk: Members met a byte that a well-formed object cannot hold
	// there: a disagreement between the validator and the walk, reported,
	// never a panic.
	errWalk = errors.New("object walk lost its place")
)

// First returns the first JSON value of doc, without the white space
// before it, and the rest of doc after it. err is ErrEmpty, or the
// *json.SyntaxError encoding/json gives for a value that is not well
// formed (then value and rest are nil). A well-formed value is found
// whole, as a json.Decoder reads it: valueEnd's end is exact on one.
func First(doc []byte) (value, rest []byte, err error) {
	i := skipSpace(doc, 0)
	if i == len(doc) {
		return nil, nil, ErrEmpty
	}
	end := valueEnd(doc, i)
	if err := syntaxError(doc[i:end]); err != nil {
		return nil, nil, err
	}
	return doc[i:end], doc[end:], nil
}

// Trailing reports whether rest holds anything but JSON white space
// (space, tab, line feed, carriage return; RFC 8259 section 2).
func Trailing(rest []byte) bool { return skipSpace(rest, 0) < len(rest) }

// syntaxError is encoding/json's verdict on data as one JSON value: nil
// when json.Valid accepts it, else the error json.Unmarshal returns, which
// checks all of data before it decodes anything (into discard, which
// keeps nothing).
func syntaxError(data []byte) error {
	if json.Valid(data) {
		return nil
	}
	err := json.Unmarshal(data, &discard{})
	if err == nil {
		err = errors.New("json.Valid and json.Unmarshal disagree")
	}
	return err
}

// discard is an unmarshal target that keeps nothing.
type discard struct{}

func (*discard) UnmarshalJSON([]byte) error { return nil }

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space (RFC 8259 section 2), or len(b).
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns the index just past the JSON value starting at b[i]:
// past the closing quote of a string, past the bracket that brings an
// object or array back to its own depth (brackets inside strings do not
// count), past the run of bytes that can make up a number or a literal.
// It judges nothing: on malformed input it returns some end, len(b) if
// no bracket closes the value, and the caller's encoding/json check says
// what is wrong. On a well-formed value the end is exact, so a value
// that is well formed is found whole.
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	default:
		j := i
		for j < len(b) && !endsScalar(b[j]) {
			j++
		}
		return j
	}
}

// endsScalar reports whether c cannot be part of a number or a literal.
func endsScalar(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ',', ':', '[', ']', '{', '}', '"':
		return true
	}
	return false
}

// stringEnd returns the index just past the string whose opening quote is
// b[i]: the next quote that no backslash escapes, or len(b).
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// Members calls f with the raw key (quotes included) and the raw value
// of each member of obj, a well-formed JSON object as First returns it,
// in order, until f returns false.
func Members(obj []byte, f func(key, value []byte) bool) error {
	if len(obj) == 0 || obj[0] != '{' {
		return errWalk
	}
	i := skipSpace(obj, 1)
	if i < len(obj) && obj[i] == '}' {
		return nil
	}
	for i < len(obj) {
		if obj[i] != '"' {
			return errWalk
		}
		k := stringEnd(obj, i)
		key := obj[i:k]
		i = skipSpace(obj, k)
		if i >= len(obj) || obj[i] != ':' {
			return errWalk
		}
		i = skipSpace(obj, i+1)
		if i >= len(obj) {
			return errWalk
		}
		v := valueEnd(obj, i)
		if !f(key, obj[i:v]) {
			return nil
		}
		i = skipSpace(obj, v)
		if i >= len(obj) {
			return errWalk
		}
		switch obj[i] {
		case '}':
			return nil
		case ',':
			i = skipSpace(obj, i+1)
		default:
			return errWalk
		}
	}
	return errWalk
}

// KeyIs reports whether the raw JSON string key (quotes included)
// decodes to want, as encoding/json decodes a member name. For an ASCII
// want it allocates nothing: a key without a backslash is its own text
// (invalid UTF-8, which decoding replaces by U+FFFD, never equals ASCII),
// and in one with escapes each escape is decoded as RFC 8259 section 7
// has it, one that decodes to a non-ASCII character failing the match,
// so surrogates need no pairing. Any other want is compared with the key
// decoded by encoding/json. TestKeyIs and the packages' fuzz targets
// check it against encoding/json.
func KeyIs(key []byte, want string) bool {
	if len(key) < 2 {
		return false
	}
	body := key[1 : len(key)-1]
	ascii := isASCII(want)
	if bytes.IndexByte(body, '\\') < 0 && (ascii || utf8.Valid(body)) {
		return string(body) == want
	}
	if !ascii {
		var s string
		return json.Unmarshal(key, &s) == nil && s == want
	}
	n := 0 // bytes of want matched
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == '\\' {
			if i+1 >= len(body) {
				return false
			}
			i++
			switch body[i] {
			case '"', '\\', '/':
				c = body[i]
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'u':
				r, ok := hex4(body[i+1:])
				if !ok || r >= 0x80 {
					return false
				}
				c, i = byte(r), i+4
			default:
				return false
			}
		}
		if n >= len(want) || want[n] != c {
			return false
		}
		n++
	}
	return n == len(want)
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hex4 decodes the four hexadecimal digits that start b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// Elements calls f with the raw value of each element of arr, a
// well-formed JSON array as First returns it, in order, until f returns
// false.
func Elements(arr []byte, f func(value []byte) bool) error {
	if len(arr) == 0 || arr[0] != '[' {
		return errWalk
	}
	i := skipSpace(arr, 1)
	for i < len(arr) && arr[i] != ']' {
		end := valueEnd(arr, i)
		if !f(arr[i:end]) {
			return nil
		}
		i = skipSpace(arr, end)
		if i < len(arr) && arr[i] == ',' {
			i = skipSpace(arr, i+1)
		}
	}
	return nil
}
