package rules

import (
	"strings"
	"testing"
)

func TestReadProfileDependencyFound(t *testing.T) {
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
		dep, err := ReadProfileDependency([]byte(c.doc), "hello")
		found := dep.Found
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

// TestReadProfileDependencyValue: the value the verifier cross-checks
// with the subject (SPEC.md "What the verifier cross-checks", class 6).
func TestReadProfileDependencyValue(t *testing.T) {
	for _, c := range []struct {
		doc              string
		value, notString string
		differs          bool
	}{
		{`{"dependencies":{"hello":"file:/pkgs/hello.tgz"}}`, "file:/pkgs/hello.tgz", "", false},
		{`{"dependencies":{"a":"2","hello":"1.0.0","b":"3"}}`, "1.0.0", "", false},
		{`{"dependencies":{"hello":"\u0031.0.0"}}`, "1.0.0", "", false},
		{`{"dependencies":{"hello":1}}`, "", "a number", false},
		{`{"dependencies":{"hello":null}}`, "", "null", false},
		{`{"dependencies":{"hello":{"version":"1.0.0"}}}`, "", "an object", false},
		{`{"dependencies":{"hello":"1.0.0","hello":"1.0.0"}}`, "1.0.0", "", false},
		{`{"dependencies":{"hello":"1.0.0","hello":"file:/x.tgz"}}`, "1.0.0", "", true},
		{`{"dependencies":{"hello":"1.0.0"},"dependencies":{"hello":"file:/x.tgz"}}`, "1.0.0", "", true},
		{`{"dependencies":{"hello":[1]},"dependencies":{"hello":[1]}}`, "", "an array", false},
		{`{"dependencies":{"hello":[1]},"dependencies":{"hello":[2]}}`, "", "an array", true},
		{`{"dependencies":{"hello":[1]},"dependencies":{"hello":"1"}}`, "", "an array", true},
		{`{"dependencies":{"hello":"1"},"dependencies":{"hello":["1"]}}`, "1", "", true},
	} {
		dep, err := ReadProfileDependency([]byte(c.doc), "hello")
		if err != nil || !dep.Found || dep.Value != c.value || dep.NotString != c.notString || dep.Differs != c.differs {
			t.Errorf("%s: %+v, %v; want value %q, not string %q, differs %v", c.doc, dep, err, c.value, c.notString, c.differs)
		}
	}
}
