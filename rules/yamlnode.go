package rules

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"

	"github.com/dshaudit/dshaudit/rules/yamlmerge"
)

// parseSingleDocument decodes b as exactly one YAML document and returns
// its root content node. It never panics: a panic inside the YAML library
// is turned into an error.
func parseSingleDocument(b []byte) (root *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, fmt.Errorf("yaml parser failed: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("no YAML document")
		}
		return nil, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, err
		}
		return nil, errors.New("more than one YAML document")
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, errors.New("no YAML document")
	}
	return doc.Content[0], nil
}

// resolve follows an alias node to its anchor (one level; yaml.v3 does not
// let an alias point to another alias).
func resolve(n *yaml.Node) *yaml.Node { return yamlmerge.Resolve(n) }

// scalarString returns the text of a non-null scalar, or "" and false.
func scalarString(n *yaml.Node) (string, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return "", false
	}
	return n.Value, true
}
