package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStorePathsRealTrace: the throws case's stack trace shows the
// plugin installed from its local tarball, and nothing else of it.
func TestStorePathsRealTrace(t *testing.T) {
	out, err := os.ReadFile(filepath.Join(evidenceDir, "throws", "t4.stderr"))
	if err != nil {
		t.Fatal(err)
	}
	m := ReadStageModel(out)
	n := 0
	for _, p := range m.StorePaths {
		if p.Package != "throws-dsh-plugin" {
			continue
		}
		n++
		if p.Ref != "file+..+..+..+pkgs+throws-dsh-plugin-1.0.0.tgz" || SourceSeen(p) != SeenLocal {
			t.Errorf("read %+v", p)
		}
		if why := InstallSourceAgrees("local-tarball", "throws-dsh-plugin", p); why != "" {
			t.Errorf("a local subject: %s", why)
		}
		if why := InstallSourceAgrees("registry", "throws-dsh-plugin", p); !strings.Contains(why, `subject.source is "registry"`) || !strings.Contains(why, SeenLocal) {
			t.Errorf("a registry subject: %q", why)
		}
	}
	if n < 2 {
		t.Fatalf("%d store paths of the plugin, want the trace's", n)
	}
}

func TestStorePaths(t *testing.T) {
	for _, tt := range []struct {
		line, pkg, ref, seen string
	}{
		{"at f (file:///dsh-home/profiles/web/node_modules/.pnpm/hello-dsh-plugin@1.0.0/node_modules/hello-dsh-plugin/lib/index.js:1:1)", "hello-dsh-plugin", "1.0.0", SeenRegistry},
		{"/p/node_modules/.pnpm/@acme+weather@2.1.0_react@18.0.0/node_modules/@acme/weather/lib/x.js", "@acme/weather", "2.1.0_react@18.0.0", SeenRegistry},
		{"/p/node_modules/.pnpm/@acme+weather@file+..+pkgs+acme-weather-1.0.0.tgz/node_modules/@acme/weather/lib/x.js", "@acme/weather", "file+..+pkgs+acme-weather-1.0.0.tgz", SeenLocal},
		{"/p/node_modules/.pnpm/x@git+https+++example.com+x.git/node_modules/x/i.js", "x", "git+https+++example.com+x.git", ""},
		// A dependency's directory inside the plugin's is the dependency's.
		{"/p/node_modules/.pnpm/dep@1.0.0/node_modules/dep/i.js", "dep", "1.0.0", SeenRegistry},
	} {
		ps := StorePaths(tt.line)
		if len(ps) != 1 || ps[0].Package != tt.pkg || ps[0].Ref != tt.ref || SourceSeen(ps[0]) != tt.seen {
			t.Errorf("%q: read %+v, want %s %s %q", tt.line, ps, tt.pkg, tt.ref, tt.seen)
		}
	}
	// A hashed directory name whose name part is not the package's is not read.
	if ps := StorePaths("/p/node_modules/.pnpm/verylongname_abcdef/node_modules/other/i.js"); len(ps) != 0 {
		t.Errorf("read %+v", ps)
	}
}
