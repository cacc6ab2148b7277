package jsonwalk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// ErrConflict: plausible readers of the document read it differently,
// and the reader refuses rather than choosing (SPEC.md "Consumers").
var ErrConflict = errors.New("readers of the JSON document disagree")

// ConflictError is one place where JSON.parse's reading of a document
// and another plausible reader's differ. It unwraps to ErrConflict.
type ConflictError struct {
	// Member names the member, as a path from the document's top
	// ("dependencies", `dsh.bundle["patch"]`), or "the document".
	Member string
	// JSONParse is what Node's JSON.parse reads there.
	JSONParse string
	// Other is the conflicting reading, and whose it is.
	Other string
}

func (e *ConflictError) Error() string {
	return e.Member + ": JSON.parse reads " + e.JSONParse + ", " + e.Other
}

func (e *ConflictError) Unwrap() error { return ErrConflict }

// bom is U+FEFF in UTF-8.
var bom = []byte("\xef\xbb\xbf")

// BOM refuses a document that starts with a UTF-8 byte order mark:
// JSON.parse refuses it (U+FEFF is not JSON white space), while npm's and
// pnpm's readers strip it first and read the object after it.
func BOM(doc []byte) error {
	if bytes.HasPrefix(doc, bom) {
		return &ConflictError{Member: "the document", JSONParse: "a syntax error at the byte order mark U+FEFF it starts with",
			Other: "npm's and pnpm's readers strip the mark and read the object after it"}
	}
	return nil
}

// Last returns the value JSON.parse gives the member name of obj, a
// well-formed object as First returns it: the last member of that
// decoded name, nil when there is none. When an earlier member of the
// name has other bytes, a reader that keeps the first (or merges the
// objects, as encoding/json does into a struct) reads something else:
// that is a *ConflictError naming path. Members of the same bytes read
// the same whoever reads them.
func Last(obj []byte, name, path string) ([]byte, error) {
	var v [1][]byte
	var e [1]error
	if err := LastEach(obj, []string{name}, []string{path}, v[:], e[:]); err != nil {
		return nil, err
	}
	return v[0], e[0]
}

// LastEach is Last for several member names of obj in one pass over it:
// vals[i] and errs[i] are what Last(obj, names[i], paths[i]) returns, and
// the error is Members' when obj does not walk (then vals and errs say
// nothing). A document read for several members is walked once, not once
// per member.
func LastEach(obj []byte, names, paths []string, vals [][]byte, errs []error) error {
	var fb [8][]byte // no allocation for the few names a reader asks for
	var db [8]bool
	firsts, differ := fb[:0], db[:0]
	if len(names) > len(fb) {
		firsts, differ = make([][]byte, 0, len(names)), make([]bool, 0, len(names))
	}
	firsts, differ = firsts[:len(names)], differ[:len(names)]
	err := Members(obj, func(key, value []byte) bool {
		for i, name := range names {
			if !KeyIs(key, name) {
				continue
			}
			if vals[i] == nil {
				firsts[i] = value
			} else if !bytes.Equal(value, vals[i]) {
				differ[i] = true
			}
			vals[i] = value
		}
		return true
	})
	if err != nil {
		return err
	}
	for i := range names {
		if differ[i] {
			vals[i], errs[i] = nil, duplicateConflict(paths[i], firsts[i], vals[i])
		}
	}
	return nil
}

func duplicateConflict(path string, first, last []byte) error {
	return &ConflictError{Member: path,
		JSONParse: "the last of the members of that name, " + Excerpt(last),
		Other:     "a reader keeping the first reads " + Excerpt(first) + " (the member appears more than once with different values)"}
}

// Excerpt renders raw JSON text for a message: quoted, non-printable
// characters escaped, cut after 60 bytes.
func Excerpt(raw []byte) string {
	const max = 60
	if len(raw) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(raw[cut]) {
			cut--
		}
		return strconv.Quote(string(raw[:cut])) + "…"
	}
	return strconv.Quote(string(raw))
}

// String decodes raw, a well-formed JSON string, as JSON.parse does, and
// refuses (a *ConflictError naming path) one whose readings differ:
// invalid UTF-8 (Node's file reading replaces each maximal invalid
// sequence by U+FFFD, encoding/json each byte) and an escaped surrogate
// that is not half of a pair (JSON.parse keeps the lone UTF-16 unit,
// which no UTF-8 reader can hold: encoding/json gives U+FFFD).
func String(raw []byte, path string) (string, error) {
	if why := stringProblem(raw); why != "" {
		return "", &ConflictError{Member: path, JSONParse: why, Other: "a UTF-8 reader (encoding/json, a Go or Rust program) reads U+FFFD there"}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", err
	}
	return s, nil
}

// stringProblem says what in the raw JSON string JSON.parse reads
// otherwise than a UTF-8 reader, or "".
func stringProblem(raw []byte) string {
	if !utf8.Valid(raw) {
		return "bytes that are not UTF-8 (Node's UTF-8 decoding replaces each maximal invalid sequence)"
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++
		if i >= len(raw) || raw[i] != 'u' {
			continue
		}
		r, ok := hex4(raw[i+1:])
		if !ok {
			continue
		}
		i += 4
		switch {
		case 0xD800 <= r && r < 0xDC00:
			if i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
				if lo, ok := hex4(raw[i+3:]); ok && 0xDC00 <= lo && lo < 0xE000 {
					i += 6
					continue
				}
			}
			return fmt.Sprintf(`a lone high surrogate \u%04x`, r)
		case 0xDC00 <= r && r < 0xE000:
			return fmt.Sprintf(`a lone low surrogate \u%04x`, r)
		}
	}
	return ""
}

// CheckTree refuses a well-formed JSON value v (as First returns it)
// anywhere in which plausible readers differ, with a *ConflictError
// naming the first such member: a member whose name appears again in
// the same object with other bytes (JSON.parse keeps the last); a string
// or member name String refuses; a number beyond float64's range, which
// JSON.parse reads as Infinity and a reader keeping the digits does not;
// a member named "__proto__", which JSON.parse keeps as an own member
// and a consumer copying members by assignment (Object.assign) turns
// into the object's prototype. It keeps a set of the names of each
// object on the path being walked, so its memory grows with the widest
// object: for documents of bounded size (T0's package.json) and for the
// walks of package pkgsource.
func CheckTree(v []byte) error { return checkValue(v, "") }

func checkValue(v []byte, path string) error {
	switch v[0] {
	case '"':
		_, err := String(v, pathOr(path))
		return err
	case '{':
		return checkObject(v, path)
	case '[':
		return checkArray(v, path)
	case 't', 'f', 'n':
		return nil
	}
	if _, err := strconv.ParseFloat(string(v), 64); err != nil {
		return &ConflictError{Member: pathOr(path), JSONParse: "the number " + Excerpt(v) + " as Infinity",
			Other: "a reader keeping its digits reads a finite number (the number is beyond float64's range)"}
	}
	return nil
}

func pathOr(path string) string {
	if path == "" {
		return "the document"
	}
	return path
}

// Child is the path of member name under path, as Member names it.
func Child(path, name string) string {
	plain := name != ""
	for i, r := range name {
		if !(r == '_' || r == '$' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && ('0' <= r && r <= '9' || r == '-')) {
			plain = false
			break
		}
	}
	switch {
	case plain && path == "":
		return name
	case plain:
		return path + "." + name
	}
	return path + "[" + strconv.Quote(name) + "]"
}

func checkObject(obj []byte, path string) error {
	seen := map[string][]byte{}
	var err error
	werr := Members(obj, func(key, value []byte) bool {
		var name string
		if name, err = String(key, pathOr(path)+" (a member name)"); err != nil {
			return false
		}
		p := Child(path, name)
		if name == "__proto__" {
			err = &ConflictError{Member: p, JSONParse: "an own member named __proto__",
				Other: "a consumer copying members by assignment (Object.assign) sets the object's prototype instead"}
			return false
		}
		if prev, ok := seen[name]; ok && !bytes.Equal(prev, value) {
			err = duplicateConflict(p, prev, value)
			return false
		}
		seen[name] = value
		err = checkValue(value, p)
		return err == nil
	})
	if werr != nil {
		return werr
	}
	return err
}

func checkArray(arr []byte, path string) error {
	i := skipSpace(arr, 1)
	for n := 0; i < len(arr) && arr[i] != ']'; n++ {
		end := valueEnd(arr, i)
		if err := checkValue(arr[i:end], path+"["+strconv.Itoa(n)+"]"); err != nil {
			return err
		}
		i = skipSpace(arr, end)
		if i < len(arr) && arr[i] == ',' {
			i = skipSpace(arr, i+1)
		}
	}
	return nil
}

// IsConflict reports whether err is a reading conflict, and gives it.
func IsConflict(err error) (*ConflictError, bool) {
	var c *ConflictError
	ok := errors.As(err, &c)
	return c, ok
}
