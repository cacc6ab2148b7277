package rules

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestReadProfileManifest(t *testing.T) {
	for _, c := range []struct {
		doc                  string
		name                 string
		bundles, listed, err bool
	}{
		{`{"name":"dsh-profile-web","dsh":{"profile":{"bundles":["a","p"]}}}`, "dsh-profile-web", true, true, false},
		{`{"name":"dsh-profile-web","dsh":{"profile":{"bundles":["a",1,{"p":1}]}}}`, "dsh-profile-web", true, false, false},
		{`{"name":"x","name":"dsh-profile-web"}`, "", false, false, true}, // readers would disagree
		{`{"name":1,"dsh":{"profile":{"bundles":"p"}}}`, "", false, false, false},
		{`{"dsh":{"profile":{"bundles":["p\u0000"]}}}`, "", true, false, false},
		{`{"dsh":{"profile":{"bundles":["\u0070"]}}}`, "", true, true, false},
		{`[1]`, "", false, false, true},
		{`{"name":"a"} x`, "", false, false, true},
	} {
		pm, err := ReadProfileManifest([]byte(c.doc), "p")
		if (err != nil) != c.err || err == nil && (pm.Name != c.name || pm.Bundles != c.bundles || pm.Listed != c.listed) {
			t.Errorf("%s: %+v, %v", c.doc, pm, err)
		}
	}
	// Every string element is a bundle name, in order, the asked-for one
	// included and the search going on after it.
	pm, err := ReadProfileManifest([]byte(`{"dsh":{"profile":{"bundles":["a","p",1,"\u0062"]}}}`), "p")
	if err != nil || !pm.Listed || !slices.Equal(pm.BundleNames, []string{"a", "p", "b"}) {
		t.Errorf("bundle names %q, listed %v, %v", pm.BundleNames, pm.Listed, err)
	}
}

// A section label names the layer that appended the rows and the layers
// that patched them, bundles by name and patch files by path.
func TestDumpSectionLayers(t *testing.T) {
	for label, want := range map[string][]string{
		"hello-dsh-plugin": {"hello-dsh-plugin"},
		"@deepseek-ai/dsh-base, patched by @deepseek-ai/dsh-web-app":                     {"@deepseek-ai/dsh-base", "@deepseek-ai/dsh-web-app"},
		"@deepseek-ai/dsh-base, patched by /dsh-home/profiles/web/cordis.patch.yml, b":   {"@deepseek-ai/dsh-base", "/dsh-home/profiles/web/cordis.patch.yml", "b"},
		"/dsh-home/profiles/web/cordis.patch.yml, patched by /dsh-home/cordis.patch.yml": {"/dsh-home/profiles/web/cordis.patch.yml", "/dsh-home/cordis.patch.yml"},
		"": nil,
	} {
		if got := DumpSectionLayers(label); !slices.Equal(got, want) {
			t.Errorf("DumpSectionLayers(%q) = %q, want %q", label, got, want)
		}
	}
}

// The real hello capture's stages read as the run it was: one profile
// set up in T1, a fresh store, pnpm 9.15.9 named, the profile's project
// in T2.
func TestReadStageModelRealEvidence(t *testing.T) {
	read := func(name string) StageModel {
		b, err := os.ReadFile(filepath.Join(evidenceDir, "hello", name))
		if err != nil {
			t.Fatal(err)
		}
		return ReadStageModel(b)
	}
	t1 := read("t1.stderr")
	if len(t1.Profiles) != 1 || t1.Profiles[0] != (ProfileInit{Name: "web", Dir: "/dsh-home/profiles/web", Line: "dsh: initialized profile web at /dsh-home/profiles/web"}) {
		t.Errorf("T1 profiles %+v", t1.Profiles)
	}
	out := read("t1.stdout")
	if out.Progress != 2 || out.Reuse != nil {
		t.Errorf("T1 progress %d, reuse %+v", out.Progress, out.Reuse)
	}
	if r := ReadStageModel([]byte("Progress: resolved 1, reused 0, downloaded 1\nProgress: resolved 2, reused 00000000000000000000001, downloaded 1, added 2, done\n")).Reuse; r == nil || r.Reused != "00000000000000000000001" {
		t.Errorf("a reuse count beyond int64 read as %+v", r)
	}
	if len(out.Versions) != 2 || out.Versions[0].Version != "9.15.9" || out.Versions[1].Version != "9.15.9" || len(out.Done) != 1 || out.Done[0].Elapsed != "1.1s" {
		t.Errorf("T1 versions %+v, done %+v", out.Versions, out.Done)
	}
	t2 := read("t2.stdout")
	if len(t2.Projects) != 1 || t2.Projects[0].Name != "dsh-profile-web" || t2.Projects[0].Dir != "/dsh-home/profiles/web" {
		t.Errorf("T2 projects %+v", t2.Projects)
	}
	e := ReadStageModel([]byte(FormOf(FormUnsupportedEngine).Example))
	if len(e.Versions) != 2 || e.Versions[0] != (VersionPrint{Form: FormUnsupportedEngine, Program: "node", Version: "24.11.1", Line: FormOf(FormUnsupportedEngine).Example}) || e.Versions[1].Version != "9.15.9" {
		t.Errorf("engine warning versions %+v", e.Versions)
	}
}

// TestProfileManifestVersion reads a profile package.json's version as
// pnpm list's label shows it (SPEC.md "The run model", relation 4): the
// string value, and whether the member is there at all.
func TestProfileManifestVersion(t *testing.T) {
	for _, tc := range []struct {
		doc        string
		version    string
		hasVersion bool
	}{
		{doc: `{"name":"dsh-profile-web"}`},
		{doc: `{"version":"9.9.9"}`, version: "9.9.9", hasVersion: true},
		{doc: `{"version":"1.0.0","version":"9.9.9"}`, hasVersion: true},
		{doc: `{"version":1}`, hasVersion: true},
	} {
		pm, err := ReadProfileManifest([]byte(tc.doc), "a")
		if err != nil {
			t.Fatalf("%s: %v", tc.doc, err)
		}
		if pm.Version != tc.version || pm.HasVersion != tc.hasVersion {
			t.Errorf("%s: version %q %v; want %q %v", tc.doc, pm.Version, pm.HasVersion, tc.version, tc.hasVersion)
		}
	}
}

// TestProfileListing compares a profile project's listed names with the
// keys of its package.json's dependencies (SPEC.md "The run model",
// relation 4): each listed name is a key and, without another dependency
// field holding a member, each key is listed; keys are decoded as
// JSON.parse decodes them, the last of a repeated member counts.
func TestProfileListing(t *testing.T) {
	for _, tc := range []struct {
		doc            string
		listed         []string
		extra, missing string
		ok, otherDeps  bool
	}{
		{doc: `{"dependencies":{"a":"1","b":"2"}}`, listed: []string{"a", "b"}, ok: true},
		{doc: `{"dependencies":{"a":"1"}}`, listed: []string{"a", "x"}, extra: "x", ok: true},
		{doc: `{"dependencies":{"a":"1","y":"2"}}`, listed: []string{"a"}, missing: "y", ok: true},
		{doc: `{"dependencies":{"\u0061":"1","y":"2"}}`, listed: []string{"a", "y"}, ok: true},
		{doc: `{"dependencies":{"a":"1","a":"2"}}`, listed: []string{"a"}, ok: true},
		{doc: `{"dependencies":{}}`, listed: []string{"a"}, extra: "a", ok: true},
		{doc: `{"dependencies":{"a":"1","y":"2"},"optionalDependencies":{"y":"2"}}`, listed: []string{"a"}, ok: true, otherDeps: true},
		{doc: `{"dependencies":{"a":"1","y":"2"},"devDependencies":{}}`, listed: []string{"a"}, missing: "y", ok: true},
		{doc: `{"dependencies":{"a":"1"},"dependencies":{"b":"1"}}`, listed: []string{"a"}},
		{doc: `{"dependencies":[]}`, listed: []string{"a"}},
		{doc: `{"dependencies":{"a":"1","y":"2"},"optionalDependencies":{},"optionalDependencies":{"y":"2"}}`, listed: []string{"a"}, ok: true, otherDeps: true},
		{doc: `{"dependencies":{"a":"1","\ud800":"2"}}`, listed: []string{"a"}, ok: true, missing: "\ufffd"},
	} {
		pm, err := ReadProfileManifest([]byte(tc.doc), "a")
		if err != nil {
			t.Fatalf("%s: %v", tc.doc, err)
		}
		if pm.OtherDependencies != tc.otherDeps {
			t.Errorf("%s: other dependencies %v, want %v", tc.doc, pm.OtherDependencies, tc.otherDeps)
		}
		extra, missing, ok := ProfileListing(pm, tc.listed)
		if extra != tc.extra || missing != tc.missing || ok != tc.ok {
			t.Errorf("%s listing %q: extra %q, missing %q, %v; want %q, %q, %v", tc.doc, tc.listed, extra, missing, ok, tc.extra, tc.missing, tc.ok)
		}
	}
}

// TestUninstalledBundle: a listed bundle is one dsh ships or a key of the
// profile's dependencies (SPEC.md "The run model", relation 5).
func TestUninstalledBundle(t *testing.T) {
	for doc, want := range map[string]string{
		`{"dependencies":{"p":"1"},"dsh":{"profile":{"bundles":["@deepseek-ai/dsh-base","@deepseek-ai/dsh-web-app","p"]}}}`: "",
		`{"dependencies":{"p":"1"},"dsh":{"profile":{"bundles":["@deepseek-ai/dsh-headless","p","evil"]}}}`:                 "evil",
		`{"dependencies":{"p":"1"},"devDependencies":{"evil":"1"},"dsh":{"profile":{"bundles":["p","evil"]}}}`:              "evil",
		`{"dependencies":{"p":"1","evil":"1"},"dsh":{"profile":{"bundles":["p","evil"]}}}`:                                  "",
		`{"dsh":{"profile":{"bundles":["evil"]}}}`:                                                                          "",
		`{"dependencies":{"p":"1"},"dependencies":{"q":"1"},"dsh":{"profile":{"bundles":["evil"]}}}`:                        "",
	} {
		pm, err := ReadProfileManifest([]byte(doc), "p")
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if got := UninstalledBundle(pm); got != want {
			t.Errorf("%s: %q, want %q", doc, got, want)
		}
	}
}

// TestProfileManifestPrivate reads "private" as JavaScript's truthiness,
// as pnpm list does for its "(PRIVATE)" label.
func TestProfileManifestPrivate(t *testing.T) {
	for doc, want := range map[string]bool{
		`{"private":true}`: true, `{"private":"yes"}`: true, `{"private":1}`: true, `{"private":-0.5}`: true, `{"private":{}}`: true, `{"private":[]}`: true,
		`{}`: false, `{"private":false}`: false, `{"private":null}`: false, `{"private":""}`: false, `{"private":0}`: false, `{"private":-0.0e5}`: false,
		`{"private":false,"private":true}`: true,
	} {
		pm, err := ReadProfileManifest([]byte(doc), "p")
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if pm.Private != want {
			t.Errorf("%s: private %v, want %v", doc, pm.Private, want)
		}
	}
}

// TestProfileOtherDependency: the first key of dependencies that is not
// the package, decoded as JSON.parse decodes it, escaped or not.
func TestProfileOtherDependency(t *testing.T) {
	for _, tc := range []struct {
		doc, other string
		ok         bool
	}{
		{`{"dependencies": {"p": "1"}}`, "", true},
		{`{"dependencies": {}}`, "", true},
		{`{"dependencies": {"\u0070": "1"}}`, "", true},
		{`{"dependencies": {"p": "1", "q": "2"}}`, "q", true},
		{`{"dependencies": {"\u0071": "2", "p": "1"}}`, "q", true},
		{`{"name": "x"}`, "", false},
		{`{"dependencies": []}`, "", false},
	} {
		pm, err := ReadProfileManifest([]byte(tc.doc), "p")
		if err != nil {
			t.Fatalf("%s: %v", tc.doc, err)
		}
		if other, ok := ProfileOtherDependency(pm, "p"); other != tc.other || ok != tc.ok {
			t.Errorf("ProfileOtherDependency(%s) = %q, %v; want %q, %v", tc.doc, other, ok, tc.other, tc.ok)
		}
	}
}
