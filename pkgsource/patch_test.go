package pkgsource

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalizePatchPath(t *testing.T) {
	ok := map[string]string{
		"./cordis.patch.yml":   "cordis.patch.yml",
		"cordis.patch.yml":     "cordis.patch.yml",
		"././config/patch.yml": "config/patch.yml",
		".//config//a.yml":     "config/a.yml",
		"config/./patch.yml":   "config/patch.yml",
		"dir with space/p.yml": "dir with space/p.yml",
	}
	for in, want := range ok {
		got, err := NormalizePatchPath(in)
		if err != nil || got != want {
			t.Errorf("NormalizePatchPath(%q) = %q, %v; want %q", in, got, err, want)
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
		_, err := NormalizePatchPath(in)
		if !errors.Is(err, ErrBadPatchPath) || !strings.Contains(err.Error(), msg) {
			t.Errorf("NormalizePatchPath(%q) = %v; want ErrBadPatchPath mentioning %q", in, err, msg)
		}
	}
}

func TestDeclaredPatch(t *testing.T) {
	cases := []struct {
		json, want, why string
	}{
		{`{"dsh":{"bundle":{"patch":"./p.yml"}}}`, "./p.yml", ""},
		{`{"name":"x"}`, "", "no dsh field"},
		{`{"dsh":"yes"}`, "", "dsh is not an object"},
		{`{"dsh":{}}`, "", "no dsh.bundle field"},
		{`{"dsh":{"bundle":[]}}`, "", "dsh.bundle is not an object"},
		{`{"dsh":{"bundle":{}}}`, "", "no dsh.bundle.patch field"},
		{`{"dsh":{"bundle":{"patch":7}}}`, "", "not a string"},
		{`{"dsh":{"bundle":{"patch":""}}}`, "", "empty"},
		{`[1]`, "", "not a JSON object"},
	}
	for _, c := range cases {
		got, ok, why := DeclaredPatch([]byte(c.json))
		if got != c.want || ok != (c.want != "") || !strings.Contains(why, c.why) {
			t.Errorf("DeclaredPatch(%s) = %q, %v, %q; want %q, %q", c.json, got, ok, why, c.want, c.why)
		}
	}
}

func TestCDNTemplates(t *testing.T) {
	for _, tmpl := range DefaultCDNTemplates {
		if err := ValidateCDNTemplate(tmpl); err != nil {
			t.Errorf("default %q: %v", tmpl, err)
		}
	}
	for _, tmpl := range []string{"https://x/{name}/{path}", "ftp://x/{name}@{version}/{path}", "{name}{version}{path}"} {
		if err := ValidateCDNTemplate(tmpl); err == nil {
			t.Errorf("%q accepted", tmpl)
		}
	}
	u, err := expandCDN(DefaultCDNTemplates[2], "@s/x", "1.0.0-rc.1", "dir/a b#.yml")
	if err != nil || u != "https://registry.npmmirror.com/@s/x/1.0.0-rc.1/files/dir/a%20b%23.yml" {
		t.Errorf("expand = %q, %v", u, err)
	}
}
