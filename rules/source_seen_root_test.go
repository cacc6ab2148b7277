package rules

import "testing"

func TestStorePathRoot(t *testing.T) {
	for line, want := range map[string]string{
		"    at new apply (file:///dsh-home/profiles/web/node_modules/.pnpm/a@file+x.tgz/node_modules/a/lib/index.js:2:36)": "/dsh-home/profiles/web",
		"    at /srv/p/node_modules/.pnpm/a@1.0.0/node_modules/a/index.js:1:1":                                              "/srv/p",
		"Error: Cannot find module '/x/y/node_modules/.pnpm/a@1.0.0/node_modules/a/index.js'":                               "/x/y",
		"rel/node_modules/.pnpm/a@1.0.0/node_modules/a/i.js":                                                                "",
		"at ./rel/node_modules/.pnpm/a@1.0.0/node_modules/a/i.js":                                                           "",
	} {
		ps := StorePaths(line)
		if len(ps) != 1 {
			t.Errorf("%q: %d store paths, want 1", line, len(ps))
			continue
		}
		if ps[0].Root != want {
			t.Errorf("%q: root %q, want %q", line, ps[0].Root, want)
		}
	}
}
