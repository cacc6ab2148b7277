package manifest

import (
	"errors"
	"strings"
	"testing"
)

func TestValidPath(t *testing.T) {
	ok := []string{"a", "a/b", "r1/t1/stdout", "static/README.md", "ünïcödé/文件", "a..b", ".hidden", "a/.b", "..a"}
	for _, p := range ok {
		if err := ValidPath(p, 64); err != nil {
			t.Errorf("ValidPath(%q) = %v, want nil", p, err)
		}
	}
	bad := map[string]error{
		"":                      ErrPathInvalid,
		"/abs":                  ErrPathEscape,
		"../x":                  ErrPathEscape,
		"a/../../x":             ErrPathEscape,
		"..":                    ErrPathEscape,
		".":                     ErrPathInvalid,
		"./a":                   ErrPathInvalid,
		"a/./b":                 ErrPathInvalid,
		"a//b":                  ErrPathInvalid,
		"a/":                    ErrPathInvalid,
		`a\b`:                   ErrPathInvalid,
		`..\x`:                  ErrPathInvalid,
		"a\x00b":                ErrPathInvalid,
		"a\nb":                  ErrPathInvalid,
		"a\x7fb":                ErrPathInvalid,
		"a\u0085b":              ErrPathInvalid, // C1 control
		"\xff":                  ErrPathInvalid,
		strings.Repeat("a", 65): ErrPathInvalid,
	}
	for p, want := range bad {
		if err := ValidPath(p, 64); !errors.Is(err, want) {
			t.Errorf("ValidPath(%q) = %v, want %v", p, err, want)
		}
	}
}

func TestEvidencePathReserved(t *testing.T) {
	for _, p := range []string{Path, SignaturePath} {
		if err := CheckEvidencePath(p, 64); !errors.Is(err, ErrReservedPath) {
			t.Errorf("CheckEvidencePath(%q) = %v, want ErrReservedPath", p, err)
		}
	}
	if err := CheckEvidencePath("r1/"+Path, 64); err != nil {
		t.Errorf("nested manifest.json refused: %v", err)
	}
}

func TestPathSet(t *testing.T) {
	cases := []struct {
		paths []string
		want  error
	}{
		{[]string{"a/b", "a/c", "b"}, nil},
		{[]string{"a", "a"}, ErrDuplicate},
		{[]string{"a", "a/b"}, ErrPathConflict},
		{[]string{"a/b/c", "a/b"}, ErrPathConflict},
		{[]string{"a/b/c", "a"}, ErrPathConflict},
		{[]string{"a-b", "a/b", "a.b"}, nil},
	}
	for _, c := range cases {
		s := NewPathSet()
		var err error
		for _, p := range c.paths {
			if err = s.Add(p); err != nil {
				break
			}
		}
		if !errors.Is(err, c.want) || (c.want == nil && err != nil) {
			t.Errorf("%q: got %v, want %v", c.paths, err, c.want)
		}
	}
}
