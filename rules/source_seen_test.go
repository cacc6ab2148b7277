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

// TestInstalledObjectAgrees: a store path of the subject's kind of
// source names the subject's version (registry) or its spec as pnpm
// writes a file: dependency from the profile directory (local); a peer
// suffix and a hashed name are not read (SPEC.md "The run model",
// relation 6).
func TestInstalledObjectAgrees(t *testing.T) {
	const spec, dir = "/pkgs/hello-dsh-plugin-1.0.0.tgz", "/dsh-home/profiles/web"
	for _, tc := range []struct {
		source, dir, ref string
		bad              bool
	}{
		{"local-tarball", dir, "file+..+..+..+pkgs+hello-dsh-plugin-1.0.0.tgz", false},
		{"local-dir", dir, "file+..+..+..+pkgs+hello-dsh-plugin-1.0.0.tgz_dsh-peer@2.0.0", false},
		{"local-tarball", dir, "file+..+..+..+pkgs+hello-dsh-plugin-0.9.0.tgz", true},
		{"local-tarball", dir, "file+..+..+..+srv+hello-dsh-plugin-1.0.0.tgz", true},
		{"local-tarball", "", "file+..+..+..+srv+hello-dsh-plugin-1.0.0.tgz", false},
		{"local-tarball", "", "file+..+pkgs+hello-dsh-plugin-0.9.0.tgz", true},
		{"local-tarball", dir, "file+..+..+..+pkgs+hello-dsh-plugin-1.0.0.tgz.bak", true},
		{"local-tarball", dir, "file+..+..+..+pkgs+hello-dsh-plugin-0_abcdefghijklmnopqrstuvwxyz", false},
		{"local-tarball", dir, "1.0.0", false}, // the source's finding, not this one's
		{"registry", dir, "1.0.0", false},
		{"registry", dir, "1.0.0_dsh-peer@2.0.0", false},
		{"registry", dir, "0.9.0", true},
		{"registry", dir, "1.0.0-rc.1", true},
		{"registry", dir, "file+..+..+..+pkgs+hello-dsh-plugin-0.9.0.tgz", false},
	} {
		p := StorePath{Package: "hello-dsh-plugin", Ref: tc.ref, Line: "at x"}
		why := InstalledObjectAgrees(tc.source, "hello-dsh-plugin", "1.0.0", spec, tc.dir, p)
		if (why != "") != tc.bad {
			t.Errorf("%s %q from %q: %q, want a finding %v", tc.source, tc.ref, tc.dir, why, tc.bad)
		}
	}
}
