package verify

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestDumpSectionOfUnlistedBundle gives repetition 1's T3 dump a section
// of a bundle acme-dsh-extra and repetition 2's a section that it
// patched. dsh composes the dump from the bundles of the profile's
// dsh.profile.bundles alone, so each dump contradicts the profile
// package.json its T1 recorded: one condition-mismatch per dump, on its
// stdout. Before, both verified, every verdict pass (the dump was held
// to the patch only for the plugin's own entries). The control lists
// acme-dsh-extra in both profiles, installed as a dependency and listed
// by T2: the same dumps, no finding. Then a
// section of repetition 1 also patched by the profile's own patch file,
// which dsh labels by its path: a fresh profile's patch file is dsh's
// template [], which changes no row, so one finding naming the file.
func TestDumpSectionOfUnlistedBundle(t *testing.T) {
	a, signer, pol := passVectorToResign(t)
	edits := map[string][2]string{
		"repetitions/1/T3/": {"# == hello-dsh-plugin\n", "# == acme-dsh-extra\n- id: extra\n  name: acme-dsh-extra\n# == hello-dsh-plugin\n"},
		"repetitions/2/T3/": {"# == @deepseek-ai/dsh-base\n- id: timer\n", "# == @deepseek-ai/dsh-base, patched by acme-dsh-extra\n- id: timer\n"},
	}
	verifyWith := func(t *testing.T, listed bool) *Report {
		t.Helper()
		files := maps.Clone(a.Files)
		for dir, e := range edits {
			for _, role := range []string{"stdout", "merged"} {
				if !bytes.Contains(files[dir+role], []byte(e[0])) {
					t.Fatalf("%s%s lacks %q", dir, role, e[0])
				}
				files[dir+role] = bytes.Replace(files[dir+role], []byte(e[0]), []byte(e[1]), 1)
			}
		}
		if listed {
			for _, p := range []string{"repetitions/1/T1/profile-package.json", "repetitions/2/T1/profile-package.json"} {
				files[p] = bytes.Replace(files[p], []byte(`"hello-dsh-plugin"
      ]`), []byte(`"hello-dsh-plugin",
        "acme-dsh-extra"
      ]`), 1)
				// installed beside the plugin, as dsh adds only a
				// dependency to the bundles, and so listed by T2
				files[p] = bytes.Replace(files[p], []byte(`"dependencies": {`), []byte(`"dependencies": {"acme-dsh-extra": "1.0.0",`), 1)
			}
			for _, p := range []string{"repetitions/1/T2/", "repetitions/2/T2/"} {
				for _, role := range []string{"stdout", "merged"} {
					files[p+role] = bytes.Replace(files[p+role], []byte("dependencies:\n"), []byte("dependencies:\nacme-dsh-extra 1.0.0\n"), 1)
				}
			}
		}
		rep, err := Verify(context.Background(), "sections", bytes.NewReader(resign(t, a.RawManifest, files, signer)), Options{Policy: pol})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := verifyWith(t, false)
	var got []string
	for _, f := range rep.Findings {
		if f.Class == ClassConditionMismatch && strings.Contains(f.Message, `section of bundle "acme-dsh-extra"`) {
			got = append(got, f.Field)
		}
	}
	if want := []string{"repetitions[1].T3.evidence.stdout", "repetitions[2].T3.evidence.stdout"}; !slices.Equal(got, want) || len(rep.Findings) != len(want) {
		t.Errorf("findings on %v, want %v; all: %v", got, want, rep.Findings)
	}
	// Listed, the bundle is the profile's: relation 8 finds nothing (the
	// second dependency is relation 5's finding, withoutSecondDependency).
	if fs := withoutSecondDependency(verifyWith(t, true).Findings); len(fs) != 0 {
		t.Errorf("acme-dsh-extra listed in the profile: %v", fs)
	}
	edits["repetitions/1/T3/"] = [2]string{"# == @deepseek-ai/dsh-base, patched by @deepseek-ai/dsh-web-app\n- id: hmr\n", "# == @deepseek-ai/dsh-base, patched by @deepseek-ai/dsh-web-app, /dsh-home/profiles/web/cordis.patch.yml\n- id: hmr\n"}
	fs := withoutSecondDependency(verifyWith(t, true).Findings)
	if len(fs) != 1 || fs[0].Field != "repetitions[1].T3.evidence.stdout" || !strings.Contains(fs[0].Message, `patched by the file "/dsh-home/profiles/web/cordis.patch.yml"`) {
		t.Errorf("a section patched by the profile's patch file: %v", fs)
	}
}
