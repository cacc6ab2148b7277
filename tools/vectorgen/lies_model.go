package main

import (
	"bytes"
	"fmt"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/verify"
)

// The run model's relations (SPEC.md "The run model", issue 45): lies
// whose evidence shows a run other than the recorded one, and true
// bundles with honest unusual output.

const (
	initLine    = "dsh: initialized profile web at /dsh-home/profiles/web\n"
	projectLine = "dsh-profile-web /dsh-home/profiles/web (PRIVATE)"
	// engineWarn is pnpm's unsupported-engine warning (formatWarn's thin
	// spaces) naming node and pnpm as current.
	engineWarn = "\u2009WARN\u2009 Unsupported engine: wanted: {\"node\":\">=30\"} (current: {\"node\":\"v%s\",\"pnpm\":\"%s\"})\n"
	doneLine   = "Done in 1.1s using pnpm v9.15.9\n"
)

// inRep replaces old with new in stage st's stream role and merged in
// repetition rep only.
func (c *lieCtx) inRep(rep int, st rules.Stage, role, old, new string) {
	s := c.stage(rep, st)
	c.replaceIn(s.Evidence[role], old, new)
	c.replaceIn(s.Evidence[manifest.RoleMerged], old, new)
}

// profileJSON replaces old with new in both repetitions' T1 profile
// package.json.
func (c *lieCtx) profileJSON(old, new string) {
	for r := 1; r <= 2; r++ {
		c.replaceIn(c.stage(r, rules.T1).Evidence[manifest.RoleProfilePackageJSON], old, new)
	}
}

func modelLies() []lie {
	C := verify.ClassConditionMismatch
	prof := "conditions.fixed " + assemble.CondProfile
	const spec = "The run model"
	return []lie{
		{name: "plugin_installed_outside_profile", class: C, field: prof, verdict: "pass", spec: spec,
			desc: "a stack frame in T4 runs the plugin from /srv/old-home/profiles/web/node_modules/.pnpm/…: the plugin was installed in another profile directory than the recorded /dsh-home/profiles/web",
			edit: func(c *lieCtx) {
				c.streams(rules.T4, "stdout", "dsh web: http://127.0.0.1:3080\n", "dsh web: http://127.0.0.1:3080\n    at apply (file:///srv/old-home/profiles/web/node_modules/.pnpm/hello-dsh-plugin@file+..+..+..+pkgs+hello-dsh-plugin-1.0.0.tgz/node_modules/hello-dsh-plugin/lib/index.js:2:3)\n")
			}},
		{name: "profile_other_name", class: C, field: prof, verdict: "pass", honest: true, spec: spec,
			desc: "dsh's output set up profile work at /dsh-home/profiles/work while the profile condition records web",
			edit: func(c *lieCtx) {
				c.streams(rules.T1, "stderr", initLine, "dsh: initialized profile work at /dsh-home/profiles/work\n")
			}},
		{name: "profile_not_initialised", class: C, field: prof, verdict: "pass", honest: true, spec: spec,
			desc: "repetition 2's T1 has no \"dsh: initialized profile\" line: the profile existed before it, the repetition was not fresh",
			edit: func(c *lieCtx) { c.inRep(2, rules.T1, "stderr", initLine, "") }},
		{name: "profile_initialised_twice", class: C, field: prof, verdict: "pass", honest: true, spec: spec,
			desc: "repetition 1's T3 also says dsh set up the profile: the profile T3 read was not T1's",
			edit: func(c *lieCtx) {
				st := c.stage(1, rules.T3)
				c.files[st.Evidence["stderr"]] = append([]byte(initLine), c.files[st.Evidence["stderr"]]...)
				c.files[st.Evidence[manifest.RoleMerged]] = append([]byte(initLine), c.files[st.Evidence[manifest.RoleMerged]]...)
			}},
		{name: "store_reused", class: C, field: prof, verdict: "pass", honest: true, spec: spec,
			desc: "repetition 2's T1 says pnpm reused 1 package and downloaded none: the store was repetition 1's",
			edit: func(c *lieCtx) {
				c.inRep(2, rules.T1, "stdout", "Progress: resolved 0, reused 0, downloaded 1, added 0\n", "Progress: resolved 0, reused 1, downloaded 0, added 0\n")
				c.inRep(2, rules.T1, "stdout", "Progress: resolved 1, reused 0, downloaded 1, added 1, done\n", "Progress: resolved 1, reused 1, downloaded 0, added 1, done\n")
			}},
		{name: "t2_project_other_profile", class: C, field: "repetitions[1].T2.evidence.merged", verdict: "pass", honest: true, spec: spec,
			desc: "T2 lists the plugin only under the project dsh-profile-work /dsh-home/profiles/work, not the recorded profile web",
			edit: func(c *lieCtx) {
				c.streams(rules.T2, "stdout", projectLine, "dsh-profile-work /dsh-home/profiles/work (PRIVATE)")
			}},
		{name: "t2_project_other_home", class: C, field: "repetitions[1].T2.evidence.merged", verdict: "pass", honest: true, spec: spec,
			desc: "T2 lists the plugin only under dsh-profile-web at /srv/old/profiles/web, a home other than the fresh DSH_HOME",
			edit: func(c *lieCtx) {
				c.streams(rules.T2, "stdout", projectLine, "dsh-profile-web /srv/old/profiles/web (PRIVATE)")
			}},
		{name: "t2_project_label_with_version", class: C, field: "repetitions[1].T2.evidence.merged", verdict: "pass", honest: true, spec: spec,
			desc: "T2 labels the profile's project dsh-profile-web@9.9.9, but the profile package.json T1 recorded has no version: pnpm list labels a project with its package.json's version, so the listing is of another package.json",
			edit: func(c *lieCtx) {
				c.streams(rules.T2, "stdout", projectLine, "dsh-profile-web@9.9.9 /dsh-home/profiles/web (PRIVATE)")
			}},
		{name: "t2_project_private_profile_not", class: C, field: "repetitions[1].T2.evidence.merged", verdict: "pass", honest: true, spec: spec,
			desc: "T2 labels the profile's project (PRIVATE), but the profile package.json T1 recorded says private: false: pnpm list adds the mark only for a truthy private, as dsh writes it, so the listing is of another package.json",
			edit: func(c *lieCtx) { c.profileJSON(`"private": true,`, `"private": false,`) }},
		{name: "t2_lists_package_profile_lacks", class: C, field: "repetitions[1].T2.evidence.merged", verdict: "pass", honest: true, spec: spec,
			desc: "T2 lists evil-plugin 1.0.0 among the dependencies of the profile's project, which the profile package.json T1 recorded does not have: the listing is of another profile, one holding a second plugin",
			edit: func(c *lieCtx) {
				c.streams(rules.T2, "stdout", "dependencies:\nhello-dsh-plugin 1.0.0", "dependencies:\nevil-plugin 1.0.0\nhello-dsh-plugin 1.0.0")
			}},
		{name: "t1_profile_second_dependency", class: C, field: "repetitions[1].T1.evidence.profile_package_json", verdict: "pass", honest: true, spec: spec,
			desc: "the profile package.json T1 recorded has a second dependency, a plain library, which T1's summary adds and T2 lists beside the plugin, all consistent: but dsh writes a fresh profile with no dependency and T1's one pnpm add adds only the plugin",
			edit: func(c *lieCtx) {
				c.profileJSON("\"dependencies\": {\n", "\"dependencies\": {\n    \"a-dsh-helper\": \"^2.0.0\",\n")
				c.streams(rules.T1, "stdout", "+ hello-dsh-plugin 1.0.0\n", "+ a-dsh-helper 2.0.0\n+ hello-dsh-plugin 1.0.0\n")
				c.streams(rules.T2, "stdout", "dependencies:\nhello-dsh-plugin 1.0.0", "dependencies:\na-dsh-helper 2.0.0\nhello-dsh-plugin 1.0.0")
			}},
		{name: "t1_profile_dependency_not_listed", class: C, field: "repetitions[1].T2.evidence.merged", verdict: "pass", honest: true, spec: spec,
			desc: "the profile package.json T1 recorded has a dependency evil-plugin that T2's listing of the profile's project lacks: pnpm installed and lists every dependency of that package.json",
			edit: func(c *lieCtx) {
				c.profileJSON("\"dependencies\": {\n", "\"dependencies\": {\n    \"evil-plugin\": \"file:/pkgs/evil-plugin-1.0.0.tgz\",\n")
			}},
		{name: "t1_profile_json_other_profile", class: C, field: "repetitions[1].T1.evidence.profile_package_json", verdict: "pass", honest: true, spec: spec,
			desc: "T1's recorded profile package.json is named dsh-profile-work, another profile's",
			edit: func(c *lieCtx) { c.profileJSON(`"name": "dsh-profile-web"`, `"name": "dsh-profile-work"`) }},
		{name: "t1_bundles_lack_plugin", class: verify.ClassSubjectMismatch, field: "repetitions[1].T1.evidence.profile_package_json", verdict: "pass", honest: true, spec: spec,
			also: []verify.Class{C}, // T3's dump has a section of the plugin the recorded bundles lack
			desc: "T1's recorded profile package.json has the plugin in dependencies but not in dsh.profile.bundles, so the profile T3 and T4 read lacks it",
			edit: func(c *lieCtx) {
				c.profileJSON("\"@deepseek-ai/dsh-web-app\",\n        \"hello-dsh-plugin\"\n", "\"@deepseek-ai/dsh-web-app\"\n")
			}},
		{name: "t1_bundles_list_uninstalled_plugin", class: C, field: "repetitions[1].T1.evidence.profile_package_json", verdict: "pass", honest: true, spec: spec,
			desc: "T1's profile package.json lists a bundle evil-plugin that is neither shipped with dsh nor one of its dependencies, and T3's dump has its section: dsh adds only installed dependencies to the bundles and loads any other bundle from its own installation, so the profile was set up by other hands",
			edit: func(c *lieCtx) {
				c.profileJSON("\"hello-dsh-plugin\"\n", "\"hello-dsh-plugin\",\n        \"evil-plugin\"\n")
				c.streams(rules.T3, manifest.RoleStdout, "# == hello-dsh-plugin\n", "# == evil-plugin\n- id: evil\n  name: evil-plugin\n# == hello-dsh-plugin\n")
			}},
		{name: "t3_section_of_unlisted_bundle", class: C, field: "repetitions[1].T3.evidence.stdout", verdict: "pass", spec: spec,
			desc: "repetition 1's T3 dump has a section of a bundle acme-dsh-extra that the profile package.json T1 recorded does not list: the dump is of a profile holding another plugin",
			edit: func(c *lieCtx) {
				c.inRep(1, rules.T3, manifest.RoleStdout, "# == hello-dsh-plugin\n", "# == acme-dsh-extra\n- id: extra\n  name: acme-dsh-extra\n# == hello-dsh-plugin\n")
			}},
		{name: "t3_section_of_unlisted_bundle_restyled", class: C, field: "repetitions[1].T3.evidence.stdout", verdict: "pass", spec: spec,
			desc: "t3_section_of_unlisted_bundle with one name of the dump double-quoted, a style dsh's dump does not write for it: the section of acme-dsh-extra is read from the dump's lines in any style",
			edit: func(c *lieCtx) {
				c.inRep(1, rules.T3, manifest.RoleStdout, "# == hello-dsh-plugin\n", "# == acme-dsh-extra\n- id: extra\n  name: acme-dsh-extra\n# == hello-dsh-plugin\n")
				c.inRep(1, rules.T3, manifest.RoleStdout, "  name: '@deepseek-ai/cordis-plugin-timer'\n", "  name: \"@deepseek-ai/cordis-plugin-timer\"\n")
			}},
		{name: "t3_section_patched_by_profile_file", class: C, field: "repetitions[1].T3.evidence.stdout", verdict: "pass", spec: spec,
			desc: "repetition 1's T3 dump has rows patched by the profile's own cordis.patch.yml, which in a fresh profile is dsh's template [] and changes none: the profile was set up by hand",
			edit: func(c *lieCtx) {
				c.inRep(1, rules.T3, manifest.RoleStdout, "# == @deepseek-ai/dsh-base, patched by @deepseek-ai/dsh-web-app\n- id: hmr\n", "# == @deepseek-ai/dsh-base, patched by @deepseek-ai/dsh-web-app, /dsh-home/profiles/web/cordis.patch.yml\n- id: hmr\n")
			}},
		{name: "engine_warning_other_node", class: verify.ClassFingerprintInvalid, field: "fingerprint", verdict: "pass", honest: true, spec: "Fingerprint cross-checks",
			desc: "pnpm's unsupported-engine warning names node v22.1.0 as current while the fingerprint says 24.11.1",
			edit: func(c *lieCtx) {
				c.streams(rules.T1, "stdout", doneLine, fmt.Sprintf(engineWarn, "22.1.0", "9.15.9")+doneLine)
			}},
		{name: "engine_warning_other_pnpm", class: verify.ClassFingerprintInvalid, field: "fingerprint", verdict: "pass", honest: true, spec: "Fingerprint cross-checks",
			desc: "pnpm's unsupported-engine warning names pnpm 8.6.0 as current while the fingerprint says 9.15.9",
			edit: func(c *lieCtx) {
				c.streams(rules.T1, "stdout", doneLine, fmt.Sprintf(engineWarn, "24.11.1", "8.6.0")+doneLine)
			}},
	}
}

func modelTruths() []truth {
	const spec = "The run model"
	return []truth{
		{name: "true_engine_warning_fingerprint_versions", verdict: "pass", spec: "Fingerprint cross-checks",
			desc: "pnpm warns that the plugin wants node >=30, naming the fingerprint's node v24.11.1 and pnpm 9.15.9 as current",
			edit: func(c *lieCtx) {
				c.streams(rules.T1, "stdout", doneLine, fmt.Sprintf(engineWarn, "24.11.1", "9.15.9")+doneLine)
			}},
		{name: "true_no_update_box", verdict: "pass", spec: spec,
			desc: "T1's output has no update box (pnpm's update check found nothing newer or did not run)",
			edit: func(c *lieCtx) {
				for r := 1; r <= 2; r++ {
					st := c.stage(r, rules.T1)
					for _, role := range []string{"stdout", manifest.RoleMerged} {
						b := c.files[st.Evidence[role]]
						i, j := bytes.Index(b, []byte("\n   ╭")), bytes.Index(b, []byte("╯\n"))
						c.files[st.Evidence[role]] = append(append([]byte{}, b[:i]...), b[j+len("╯\n"):]...)
					}
				}
			}},
		{name: "true_t2_other_private_project_beside", verdict: "pass", spec: spec,
			desc: "T2 lists the plugin under the recorded profile's project and under a second private project, another profile at another home",
			edit: func(c *lieCtx) {
				c.streams(rules.T2, "stdout", "hello-dsh-plugin 1.0.0", "hello-dsh-plugin 1.0.0\n\ndsh-profile-work /srv/old/profiles/work (PRIVATE)\n\ndependencies:\nhello-dsh-plugin 1.0.0")
			}},
	}
}
