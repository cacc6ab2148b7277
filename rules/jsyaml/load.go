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
	defer func() {
		if r := recover(); r != nil {
			v, root, err = nil, nil, fmt.Errorf("%w: the YAML parser failed: %v", ErrRefused, r)
		}
	}()
	if i := bytes.IndexAny(b, "\u2028\u2029\u0085"); i >= 0 {
		line := bytes.Count(b[:i], []byte("\n")) + 1
		return nil, nil, fmt.Errorf("%w: line %d: U+2028, U+2029 or U+0085 (NEL): a line break to yaml.v3 and YAML 1.1 readers, an ordinary character to js-yaml (YAML 1.2)", ErrConflict, line)
	}
	if i := bytes.Index(b[min(len(b), 3):], []byte("\ufeff")); i >= 0 {
		line := bytes.Count(b[:i+3], []byte("\n")) + 1
		return nil, nil, fmt.Errorf("%w: line %d: a byte order mark (U+FEFF) after the start: js-yaml and yaml.v3 treat it differently", ErrConflict, line)
	}
	for i := bytes.IndexByte(b, '\r'); i >= 0; {
		if i+1 >= len(b) || b[i+1] != '\n' {
			line := bytes.Count(b[:i], []byte("\n")) + 1
			return nil, nil, fmt.Errorf("%w: line %d: a carriage return not followed by a line feed: yaml.v3 and js-yaml break lines there differently", ErrConflict, line)
		}
		j := bytes.IndexByte(b[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	if line, ok := markerLike(b); ok {
		return nil, nil, fmt.Errorf("%w: line %d: a line starting with --- or ... that is not a document marker: yaml.v3 may read a scalar where js-yaml throws", ErrConflict, line)
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
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, nil, nil
	}
	root = doc.Content[0]
	v, err = fromSource(root, b)
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
