package pkgsource

import (
	"strings"
	"testing"
)

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
