package verify

import (
	"testing"

	"github.com/dshaudit/dshaudit/manifest"
)

// TestVariableConditionForms: each form a dshaudit command writes for a
// variable condition (runner, pkgsource's T0 conditions, replay, the
// vectors' capture note) is accepted, and values that say the run was
// not the standard's, or are not of their name's form, are refused; a
// name outside the set is unknown (SPEC.md "Recorded conditions").
func TestVariableConditionForms(t *testing.T) {
	reg := &manifest.Manifest{Subject: manifest.Subject{Name: "hello-dsh-plugin", Version: "1.0.0", Source: "registry"}}
	local := &manifest.Manifest{Subject: manifest.Subject{Name: "hello-dsh-plugin", Version: "1.0.0", Source: "local-tarball"},
		Repetitions: []manifest.Repetition{{}, {}}}
	dir := &manifest.Manifest{Subject: manifest.Subject{Name: "hello-dsh-plugin", Version: "1.0.0", Source: "local-dir"}}
	cases := []struct {
		m           *manifest.Manifest
		name, value string
		ok          bool
	}{
		{reg, "package spec given", "hello-dsh-plugin@^1", true},
		{reg, "package spec given", " hello", false},
		{reg, "package source", "registry", true},
		{reg, "package source", "local-tarball", false},
		{reg, "package source", "git", false},
		{reg, "container engine", "podman 5.4.2", true},
		{reg, "container engine", "docker 27.3.1", true},
		{reg, "container engine", "podman 4.3.1 --runtime runc", true},
		{reg, "container engine", "podman 4.3.1 --privileged", false},
		{reg, "container engine", "none (every command ran on the host)", false},
		{reg, "host kernel", "6.1.0-28-amd64", true},
		{reg, "host kernel", "unknown", true},
		{reg, "host kernel", "6.1.0 with seccomp off", false},
		{reg, "host CPUs", "2", true},
		{reg, "host CPUs", "0", false},
		{reg, "host load average (1, 5, 15 min) at start", "0.52 0.61 0.70", true},
		{reg, "host load average (1, 5, 15 min) at end", "unknown", true},
		{reg, "host load average (1, 5, 15 min) at end", "high", false},
		{reg, "T1 registry", "https://registry.npmjs.org/ (npm_config_registry, the registry T0 used)", true},
		{reg, "T1 registry", "pnpm's default in the image (for the local package's dependencies)", true},
		{reg, "T1 registry", "a mirror we trust", false},
		{reg, "T1 extra CA bundle", "/etc/ssl/corp-ca.pem", true},
		{reg, "registry", "https://registry.npmjs.org/ (from npm config)", true},
		{reg, "registry", "http://127.0.0.1:4873/ (from --registry)", true},
		{reg, "registry", "https://registry.npmjs.org/ (from environment npm_config_registry)", true},
		{reg, "registry", "https://registry.npmjs.org/ (from npm default (npm not installed))", true},
		{reg, "registry", "https://registry.npmjs.org/ (rebuilt from git)", false},
		{reg, "version_resolution", `exact version "1.0.0"`, true},
		{reg, "version_resolution", `dist-tag "latest" → 1.0.0`, true},
		{reg, "version_resolution", `range "^1" → 1.0.0 (highest satisfying)`, true},
		{reg, "version_resolution", `no "latest" dist-tag; range "*" → 1.0.0 (the "latest" dist-tag satisfies it)`, true},
		{reg, "version_resolution", `exact version "0.9.0"`, false},
		{reg, "version_resolution", `rebuilt from git at 1.0.0`, false},
		{reg, "metadata_source", "registry version object versions[1.0.0], raw bytes", true},
		{reg, "metadata_source", "registry version object versions[0.9.0], raw bytes", false},
		{local, "metadata_source", "package.json inside the tarball (local source; a registry adds fields to its version object)", true},
		{reg, "tarball_url", "http://127.0.0.1:4873/hello-dsh-plugin/-/hello-dsh-plugin-1.0.0.tgz (dist.tarball https://registry.npmjs.org/hello-dsh-plugin/-/hello-dsh-plugin-1.0.0.tgz rewritten to the configured registry, as npm's replace-registry-host=npmjs does)", true},
		{reg, "tarball_url", "rebuilt from git", false},
		{local, "local_source", "tarball /tmp/hello-dsh-plugin-1.0.0.tgz", true},
		{local, "local_source", "tarball rebuilt from git", false},
		{reg, "local_source", "tarball /tmp/hello-dsh-plugin-1.0.0.tgz", false},
		{dir, "local_source", "directory ./hello packed with npm pack --ignore-scripts (npm 10.9.2)", true},
		{local, "local_source", "directory ./hello packed with npm pack --ignore-scripts (npm 10.9.2)", false},
		{reg, "patch_source", "https://cdn.jsdelivr.net/npm/hello-dsh-plugin@1.0.0/cordis.patch.yml", true},
		{reg, "patch_source", "tarball (no CDN configured)", true},
		{local, "patch_source", "tarball (local source: not published, so on no CDN)", true},
		{reg, "patch_source", "tarball (rebuilt from git)", false},
		{reg, "replay_of", "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", true},
		{reg, "replay_of", "the bundle of yesterday", false},
		{reg, "replay_of_unverified_bundle", "tampered", true},
		{reg, "replay_of_unverified_bundle", "verified", false},
		{reg, "source", "testdata/dsh-evidence capture, converted by internal/vectorgen", true},
		{reg, "source", "tarball rebuilt from git", false},
		{local, "repetition 2 T4 output truncated", "repetition 2 T4: output beyond the capture limit was dropped (stdout true, stderr false)", true},
		{local, "repetition 2 T4 output truncated", "repetition 1 T4: output beyond the capture limit was dropped (stdout true, stderr false)", false},
		{local, "repetition 3 T4 output truncated", "repetition 3 T4: output beyond the capture limit was dropped (stdout true, stderr false)", false},
	}
	for _, c := range cases {
		vf := &verification{m: c.m}
		known, why := vf.variableProblem(c.name, c.value)
		if !known {
			t.Errorf("%s: unknown", c.name)
		} else if (why == "") != c.ok {
			t.Errorf("%s = %q: accepted %v (%s), want %v", c.name, c.value, why == "", why, c.ok)
		}
	}
	for _, name := range []string{"note", "tarball", "container reuse", "Package source", "repetition 1 T5 output truncated"} {
		if known, _ := (&verification{m: local}).variableProblem(name, "x"); known {
			t.Errorf("%q: known, want unknown", name)
		}
	}
}
