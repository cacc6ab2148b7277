package pkgsource

import (
	"errors"
	"strings"
	"testing"
)

func TestParseSpecValid(t *testing.T) {
	cases := []struct {
		in   string
		want Spec
	}{
		{"hello-dsh-plugin", Spec{Source: SourceRegistry, Name: "hello-dsh-plugin", Selector: "latest", SelectorKind: SelectTag}},
		{"hello-dsh-plugin@1.0.0", Spec{Source: SourceRegistry, Name: "hello-dsh-plugin", Selector: "1.0.0", SelectorKind: SelectExact}},
		{"hello-dsh-plugin@v1.0.0", Spec{Source: SourceRegistry, Name: "hello-dsh-plugin", Selector: "v1.0.0", SelectorKind: SelectExact}},
		{"hello-dsh-plugin@1.0.0-rc.1", Spec{Source: SourceRegistry, Name: "hello-dsh-plugin", Selector: "1.0.0-rc.1", SelectorKind: SelectExact}},
		{"@scope/x@^1.2", Spec{Source: SourceRegistry, Name: "@scope/x", Selector: "^1.2", SelectorKind: SelectRange}},
		{"@scope/x", Spec{Source: SourceRegistry, Name: "@scope/x", Selector: "latest", SelectorKind: SelectTag}},
		{"x@latest", Spec{Source: SourceRegistry, Name: "x", Selector: "latest", SelectorKind: SelectTag}},
		{"x@next", Spec{Source: SourceRegistry, Name: "x", Selector: "next", SelectorKind: SelectTag}},
		{"x@1", Spec{Source: SourceRegistry, Name: "x", Selector: "1", SelectorKind: SelectRange}},
		{"x@1.x", Spec{Source: SourceRegistry, Name: "x", Selector: "1.x", SelectorKind: SelectRange}},
		{"x@>=1.0.0 <2.0.0", Spec{Source: SourceRegistry, Name: "x", Selector: ">=1.0.0 <2.0.0", SelectorKind: SelectRange}},
		{"x@^1 || ^2", Spec{Source: SourceRegistry, Name: "x", Selector: "^1 || ^2", SelectorKind: SelectRange}},
		{"x@*", Spec{Source: SourceRegistry, Name: "x", Selector: "*", SelectorKind: SelectRange}},
		{"github:owner/repo", Spec{Source: SourceGitHub, Owner: "owner", Repo: "repo"}},
		{"github:owner/repo.git#v1.2.0", Spec{Source: SourceGitHub, Owner: "owner", Repo: "repo", Ref: "v1.2.0"}},
		{"github:o/r#semver:^1.2", Spec{Source: SourceGitHub, Owner: "o", Repo: "r", Ref: "semver:^1.2"}},
		{"./x-1.0.0.tgz", Spec{Source: SourceLocalTarball, Path: "x-1.0.0.tgz"}},
		{"x-1.0.0.tar.gz", Spec{Source: SourceLocalTarball, Path: "x-1.0.0.tar.gz"}},
		{"/abs/p.TGZ", Spec{Source: SourceLocalTarball, Path: "/abs/p.TGZ"}},
		{"./plugins/hello", Spec{Source: SourceLocalDir, Path: "plugins/hello"}},
		{"../hello/", Spec{Source: SourceLocalDir, Path: "../hello"}},
		{"file:../hello", Spec{Source: SourceLocalDir, Path: "../hello"}},
		{".", Spec{Source: SourceLocalDir, Path: "."}},
	}
	for _, c := range cases {
		got, err := ParseSpec(c.in)
		if err != nil {
			t.Errorf("ParseSpec(%q): %v", c.in, err)
			continue
		}
		c.want.Raw = c.in
		if got != c.want {
			t.Errorf("ParseSpec(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestParseSpecInvalid(t *testing.T) {
	cases := []struct{ in, wantMsg string }{
		{"", "empty"},
		{"   ", "empty"},
		{"x@", "nothing after @"},
		{"owner/repo", "github:owner/repo"},
		{"https://example.com/x.tgz", "URLs are not supported"},
		{"git+https://github.com/a/b.git", "URLs are not supported"},
		{"github:owner", "expected github:owner/repo"},
		{"github:own er/repo", "owner"},
		{"github:owner/repo#../x", "ref"},
		{"@scope", "@scope/name"},
		{"@/x", "@scope/name"},
		{".hidden", "characters"},
		{"_under", "characters"},
		{"has space", "characters"},
		{"x@not a range!", "neither a version"},
		{"node_modules", "reserved"},
		{"npm:x@1", "aliases"},
		{"x\x00y", "control character"},
		{strings.Repeat("a", 215), "214"},
	}
	for _, c := range cases {
		_, err := ParseSpec(c.in)
		if err == nil {
			t.Errorf("ParseSpec(%q): no error", c.in)
			continue
		}
		if !errors.Is(err, ErrInvalidSpec) {
			t.Errorf("ParseSpec(%q): %v is not ErrInvalidSpec", c.in, err)
		}
		if !strings.Contains(err.Error(), c.wantMsg) {
			t.Errorf("ParseSpec(%q) = %q, want it to mention %q", c.in, err, c.wantMsg)
		}
	}
}

func TestSpecString(t *testing.T) {
	for in, want := range map[string]string{
		"x":                  "x@latest",
		"@s/x@^1.2":          "@s/x@^1.2",
		"github:o/r#main":    "github:o/r#main",
		"./a/../b-1.0.0.tgz": "b-1.0.0.tgz",
	} {
		s, err := ParseSpec(in)
		if err != nil {
			t.Fatal(err)
		}
		if s.String() != want {
			t.Errorf("%q.String() = %q, want %q", in, s.String(), want)
		}
	}
}
