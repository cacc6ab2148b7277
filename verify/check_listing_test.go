package verify

import (
	"bytes"
	"context"
	"maps"
	"strings"
	"testing"
)

// TestListedProfileAgainstT1 holds T2's listing of the profile's project
// to the profile package.json the same repetition's T1 recorded (SPEC.md
// "The run model", relation 4): pnpm list labels the project with its
// package.json's version (none when it has none, as dsh's profile
// package.json has none) and lists its dependencies from the lockfile
// pnpm wrote with that package.json. Each lie is re-signed with every
// verdict unchanged; before, each verified. Each honest twin changes
// both sides alike and verifies.
func TestListedProfileAgainstT1(t *testing.T) {
	a, signer, pol := passVectorToResign(t)
	const (
		label   = "dsh-profile-web /dsh-home/profiles/web (PRIVATE)\n"
		listing = "dependencies:\nhello-dsh-plugin 1.0.0\n"
		deps    = "\"dependencies\": {\n"
	)
	type edit struct{ t2Old, t2New, pjOld, pjNew string }
	for _, tc := range []struct {
		name  string
		edits []edit
		want  string // a finding's message holds it; "" = verifies
	}{
		{"label with a version", []edit{{t2Old: label, t2New: "dsh-profile-web@9.9.9 /dsh-home/profiles/web (PRIVATE)\n"}},
			`labels the profile's project "dsh-profile-web@9.9.9 /dsh-home/profiles/web (PRIVATE)", version "9.9.9", but the profile package.json`},
		{"label with another version than the package.json's", []edit{{t2Old: label, t2New: "dsh-profile-web@9.9.9 /dsh-home/profiles/web (PRIVATE)\n", pjOld: deps, pjNew: "\"version\": \"1.0.0\",\n" + deps}},
			`has version "1.0.0"`},
		{"honest: label with the package.json's version", []edit{{t2Old: label, t2New: "dsh-profile-web@9.9.9 /dsh-home/profiles/web (PRIVATE)\n", pjOld: deps, pjNew: "\"version\": \"9.9.9\",\n" + deps}}, ""},
		{"listed package the package.json lacks", []edit{{t2Old: listing, t2New: "dependencies:\nevil-plugin 1.0.0\nhello-dsh-plugin 1.0.0\n"}},
			`lists "evil-plugin" among the dependencies of the profile's project, but the dependencies of the profile package.json`},
		{"package.json dependency not listed", []edit{{pjOld: deps, pjNew: deps + "\"evil-plugin\": \"file:/pkgs/evil-plugin-1.0.0.tgz\",\n"}},
			`does not list "evil-plugin" among the dependencies of the profile's project, but the dependencies of the profile package.json`},
		{"package.json dependency not listed, escaped key", []edit{{pjOld: deps, pjNew: deps + "\"evil\\u002dplugin\": \"file:/pkgs/evil-plugin-1.0.0.tgz\",\n"}},
			`does not list "evil-plugin"`},
		{"honest: both hold another dependency", []edit{{t2Old: listing, t2New: "dependencies:\nevil-plugin 1.0.0\nhello-dsh-plugin 1.0.0\n", pjOld: deps, pjNew: deps + "\"evil\\u002dplugin\": \"file:/pkgs/evil-plugin-1.0.0.tgz\",\n"}}, ""},
		{"honest: the other dependency also optional, listed under optionalDependencies", []edit{
			{t2Old: listing, t2New: listing + "\noptionalDependencies:\nevil-plugin 1.0.0\n", pjOld: deps, pjNew: "\"optionalDependencies\": {\"evil-plugin\": \"file:/pkgs/evil-plugin-1.0.0.tgz\"},\n" + deps + "\"evil-plugin\": \"file:/pkgs/evil-plugin-1.0.0.tgz\",\n"}}, ""},
		{"label private, package.json not", []edit{{pjOld: `"private": true,`, pjNew: `"private": false,`}},
			`labels the profile's project private ("dsh-profile-web /dsh-home/profiles/web (PRIVATE)"), but the profile package.json`},
		{"label private, package.json without private", []edit{{pjOld: `"private": true,`, pjNew: ``}}, `is not private`},
		{"honest: private is a truthy string", []edit{{pjOld: `"private": true,`, pjNew: `"private": "yes",`}}, ""},
		{"honest: another project lists another package", []edit{{t2Old: listing, t2New: listing + "\ndsh-profile-work /srv/old/profiles/work (PRIVATE)\n\ndependencies:\nevil-plugin 1.0.0\n"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := maps.Clone(a.Files)
			for r := 1; r <= 2; r++ {
				dir := "repetitions/" + string(rune('0'+r))
				for _, e := range tc.edits {
					if e.t2Old != "" {
						for _, role := range []string{"/T2/stdout", "/T2/merged"} {
							if !bytes.Contains(files[dir+role], []byte(e.t2Old)) {
								t.Fatalf("%s has no %q", dir+role, e.t2Old)
							}
							files[dir+role] = bytes.Replace(files[dir+role], []byte(e.t2Old), []byte(e.t2New), 1)
						}
					}
					if e.pjOld != "" {
						p := dir + "/T1/profile-package.json"
						if !bytes.Contains(files[p], []byte(e.pjOld)) {
							t.Fatalf("%s has no %q", p, e.pjOld)
						}
						files[p] = bytes.Replace(files[p], []byte(e.pjOld), []byte(e.pjNew), 1)
					}
				}
			}
			rep, err := Verify(context.Background(), "listing", bytes.NewReader(resign(t, a.RawManifest, files, signer)), Options{Policy: pol})
			if err != nil {
				t.Fatal(err)
			}
			findings := withoutSecondDependency(rep.Findings)
			var got []string
			for _, f := range findings {
				got = append(got, string(f.Class)+" "+f.Field+": "+f.Message)
			}
			if tc.want == "" {
				if len(got) != 0 {
					t.Fatalf("honest listing: findings\n%s", strings.Join(got, "\n"))
				}
				return
			}
			n := 0
			for _, f := range findings {
				if f.Class == ClassConditionMismatch && strings.HasSuffix(f.Field, ".T2.evidence.merged") && strings.Contains(f.Message, tc.want) {
					n++
				}
			}
			if n != 2 || len(got) != 2 {
				t.Fatalf("want one condition-mismatch per repetition's T2 saying %q, got\n%s", tc.want, strings.Join(got, "\n"))
			}
		})
	}
}

// withoutSecondDependency drops the findings of relation 5 that a
// profile package.json holds a dependency beside the subject (SPEC.md
// "The run model"), for the tests of other relations whose stories give
// the profile a second dependency, each of which it also gets.
func withoutSecondDependency(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Class == ClassConditionMismatch && strings.HasSuffix(f.Field, ".T1.evidence.profile_package_json") && strings.Contains(f.Message, "whose package.json dsh writes with no dependency") {
			continue
		}
		out = append(out, f)
	}
	return out
}
