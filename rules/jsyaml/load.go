package jsyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

// Load reads b as js-yaml's load does with dsh's schema: exactly one YAML
// document (js-yaml throws on a second), converted by FromNode. It
// returns the root node beside the value (for line numbers), and a nil
// value for a stream with no document, which js-yaml loads as undefined.
// yaml.v3 parses the bytes; a syntax error is reported as its error,
// wrapping ErrRefused. It never panics: a panic inside yaml.v3 is an error.
func Load(b []byte) (v *Value, root *yaml.Node, err error) {
	return load(b, nil)
}

// LoadItems is Load for a reader of a root list's items: each item's
// value is given to item, in order, as soon as it is built, and is not
// kept in the list returned, whose Items stay empty. A 256 KiB list of
// one-character items is 17 MiB of values beside its 21 MiB node tree,
// so the values of the whole list were never needed at once (issue 48).
// The values and errors are Load's: when it returns an error, the items
// given before it belong to a document js-yaml refuses, and are to be
// discarded.
func LoadItems(b []byte, item func(*Value)) (v *Value, root *yaml.Node, err error) {
	return load(b, item)
}

func load(b []byte, item func(*Value)) (v *Value, root *yaml.Node, err error) {
	defer recoverParser(&v, &root, &err)
	if err := conflicts(b); err != nil {
		return nil, nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("%w: %w", ErrRefused, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %w", ErrRefused, err)
		}
		return nil, nil, fmt.Errorf("%w: more than one YAML document (a second starts at line %d); js-yaml's load throws", ErrRefused, extra.Line)
	}
	return convert(b, &doc, item)
}

// LoadDecoded is Load for a caller that has already decoded b with
// yaml.v3 into doc and found no second document (doc is the zero node
// when b holds none): the same checks, value and errors as Load(b) when
// yaml.v3 accepts b, without building a second node tree. A non-nil item
// is given the root list's items as LoadItems gives them. T0's clause
// 5.1.3 decodes the patch itself and keeps its tree, and a second tree
// of a 256 KiB patch beside it was the peak of a verification's memory
// (issue 48).
func LoadDecoded(b []byte, doc *yaml.Node, item func(*Value)) (v *Value, root *yaml.Node, err error) {
	defer recoverParser(&v, &root, &err)
	if err := conflicts(b); err != nil {
		return nil, nil, err
	}
	return convert(b, doc, item)
}

// recoverParser turns a panic inside yaml.v3 or the conversion into an
// error wrapping ErrRefused.
func recoverParser(v **Value, root **yaml.Node, err *error) {
	if r := recover(); r != nil {
		*v, *root, *err = nil, nil, fmt.Errorf("%w: the YAML parser failed: %v", ErrRefused, r)
	}
}

// conflicts finds what yaml.v3 and js-yaml read differently in the bytes
// themselves, before any parse.
func conflicts(b []byte) error {
	if i := bytes.IndexAny(b, "\u2028\u2029\u0085"); i >= 0 {
		line := bytes.Count(b[:i], []byte("\n")) + 1
		return fmt.Errorf("%w: line %d: U+2028, U+2029 or U+0085 (NEL): a line break to yaml.v3 and YAML 1.1 readers, an ordinary character to js-yaml (YAML 1.2)", ErrConflict, line)
	}
	if i := bytes.Index(b[min(len(b), 3):], []byte("\ufeff")); i >= 0 {
		line := bytes.Count(b[:i+3], []byte("\n")) + 1
		return fmt.Errorf("%w: line %d: a byte order mark (U+FEFF) after the start: js-yaml and yaml.v3 treat it differently", ErrConflict, line)
	}
	for i := bytes.IndexByte(b, '\r'); i >= 0; {
		if i+1 >= len(b) || b[i+1] != '\n' {
			line := bytes.Count(b[:i], []byte("\n")) + 1
			return fmt.Errorf("%w: line %d: a carriage return not followed by a line feed: yaml.v3 and js-yaml break lines there differently", ErrConflict, line)
		}
		j := bytes.IndexByte(b[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	if line, ok := markerLike(b); ok {
		return fmt.Errorf("%w: line %d: a line starting with --- or ... that is not a document marker: yaml.v3 may read a scalar where js-yaml throws", ErrConflict, line)
	}
	return nil
}

// convert reads a decoded document's one root as js-yaml builds it; a
// document that is not one root (none) is nil, as js-yaml's undefined.
// A non-nil item is given a root list's items instead of the list.
func convert(b []byte, doc *yaml.Node, item func(*Value)) (*Value, *yaml.Node, error) {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, nil, nil
	}
	root := doc.Content[0]
	v, err := fromSource(root, b, item)
	if err != nil {
		return nil, nil, err
	}
	return v, root, nil
}

// markerLike finds a line that starts with "---" or "..." followed by
// something other than a space, a tab or the line's end.
func markerLike(b []byte) (int, bool) {
	line := 1
	for start := 0; start < len(b); line++ {
		end := bytes.IndexByte(b[start:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += start
		}
		l := b[start:end]
		if len(l) > 3 && (bytes.HasPrefix(l, []byte("---")) || bytes.HasPrefix(l, []byte("..."))) && l[3] != ' ' && l[3] != '\t' && l[3] != '\r' {
			return line, true
		}
		start = end + 1
	}
	return 0, false
}
