package static

import (
	"errors"
	"strings"
	"testing"
)

func TestCleanPatchPath(t *testing.T) {
	ok := map[string]string{
		"./cordis.patch.yml":   "cordis.patch.yml",
		"cordis.patch.yml":     "cordis.patch.yml",
		"././config/patch.yml": "config/patch.yml",
		".//config//a.yml":     "config/a.yml",
		"config/./patch.yml":   "config/patch.yml",
		"dir with space/p.yml": "dir with space/p.yml",
	}
	for in, want := range ok {
		got, err := CleanPatchPath(in)
		if err != nil || got != want {
			t.Errorf("CleanPatchPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":                        "empty",
		"../outside.yml":          `".."`,
		"./../outside.yml":        `".."`,
		"a/../../b.yml":           `".."`,
		"a/../b.yml":              `".."`,
		"/etc/passwd":             "absolute",
		"C:/x.yml":                "absolute",
		`.\patch.yml`:             "backslash",
		"a\x00b":                  "NUL",
		"./":                      "directory",
		"config/":                 "directory",
		".":                       "directory",
		strings.Repeat("a", 1025): "1024",
	}
	for in, msg := range bad {
		_, err := CleanPatchPath(in)
		if !errors.Is(err, ErrPatchPathInvalid) || !strings.Contains(err.Error(), msg) {
			t.Errorf("CleanPatchPath(%q) = %v; want ErrPatchPathInvalid mentioning %q", in, err, msg)
		}
	}
}
