package rules

import (
	"strings"
	"testing"
)

func TestProfileDependsOn(t *testing.T) {
	for _, c := range []struct {
		doc   string
		found bool
		err   string
	}{
		{`{"dependencies":{"hello":"file:/pkgs/hello.tgz"}}`, true, ""},
		{`{"name":"p","dependencies":{"a":{"x":[1,2,{"y":null}]},"hello":"1.0.0"},"z":[{}]}`, true, ""},
		{`{"devDependencies":{"hello":"1.0.0"}}`, false, ""},
		{`{"dependencies":{"hellox":"1"},"x":{"hello":"1"}}`, false, ""},
		{`{"Dependencies":{"hello":"1"}}`, false, ""}, // SPEC: the member named exactly "dependencies"
		{`{"dependencies":{"a":"1"},"dependencies":{"hello":"1"}}`, true, ""},
		{`{"dependencies":null}`, false, ""},
		{`null`, false, ""},
		{`{}`, false, ""},
		{`{"dependencies":["hello"]}`, false, "dependencies is an array"},
		{`{"dependencies":"hello"}`, false, "dependencies is a string"},
		{`["hello"]`, false, "the document is an array"},
		{`{"dependencies":{"hello":"1"}} {}`, false, "more than one JSON value"},
		{`{"dependencies":{"hello":"1"}`, false, "EOF"},
		{`{"dependencies":{"hello":}}`, false, "invalid character"},
	} {
		found, err := profileDependsOn([]byte(c.doc), "hello")
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one containing %q", c.doc, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%s: unexpected error %v", c.doc, err)
		case c.err == "" && found != c.found:
			t.Errorf("%s: found %v, want %v", c.doc, found, c.found)
		}
	}
}
