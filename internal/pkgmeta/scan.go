package pkgmeta

import (
	"bytes"
	"errors"
)

// errWalk: eachMember met a byte that a well-formed object cannot hold
// there. Names checks the object with encoding/json first, so this is a
// disagreement between that check and the walk, reported, never a panic.
var errWalk = errors.New("object walk lost its place")

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

// eachMember calls f with the raw key (quotes included) and the raw value
// of every member of obj, a well-formed JSON object, in order.
func eachMember(obj []byte, f func(key, value []byte)) error {
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
		f(key, obj[i:v])
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

// keyIs reports whether the raw JSON string key decodes to want, an ASCII
// name, without allocating. A key without a backslash is its own text
// (invalid UTF-8, which decoding replaces by U+FFFD, never equals ASCII).
// In a key with escapes each escape is decoded as RFC 8259 section 7
// has it; one that decodes to a non-ASCII character cannot match, so
// surrogates need no pairing. FuzzNames checks this against
// encoding/json.
func keyIs(key []byte, want string) bool {
	if len(key) < 2 {
		return false
	}
	body := key[1 : len(key)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body) == want
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
