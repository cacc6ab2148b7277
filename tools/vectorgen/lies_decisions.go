package main

import (
	"strings"

	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/verify"
)

// decisionLies pin the choices the specification settles (its version of 2026-12-06) where an
// implementation written from SPEC.md alone had to guess (issue 47): each
// names the section that decides it, and a verifier that reads the
// section otherwise fails it.
func decisionLies() []lie {
	V := verify.ClassVerdictMismatch
	return []lie{
		{name: "t1_summary_header_indented", class: V, field: "repetitions[1].T1.status", verdict: "install_failed", spec: "T1 install",
			desc: "pnpm's summary header is written \"  dependencies:\" (indented): the header is the cleaned line untrimmed, so no summary block opens, the added-dependency line is outside one, and T1 is recorded passed",
			edit: func(c *lieCtx) {
				c.streams(rules.T1, "stdout", "\ndependencies:\n+ hello-dsh-plugin 1.0.0\n", "\n  dependencies:\n+ hello-dsh-plugin 1.0.0\n")
			}},
		{name: "t4_marker_only_on_stderr", class: V, field: "repetitions[1].T4.status", verdict: "boot_failed", spec: "Output lines",
			desc: "T4's startup marker is on stderr only (the merged output holds it as before): the marker is read from stdout, not from the merged output, and T4 is recorded passed",
			edit: func(c *lieCtx) {
				for r := 1; r <= 2; r++ {
					st := c.stage(r, rules.T4)
					c.files[st.Evidence["stderr"]] = append(c.files[st.Evidence["stderr"]], c.files[st.Evidence["stdout"]]...)
					c.files[st.Evidence["stdout"]] = []byte{}
				}
			}},
		{name: "t4_entry_failed_mid_line", class: V, field: "repetitions[1].T4.status", verdict: "boot_failed", spec: "T4 boot",
			desc: "T4's stdout, after the marker, holds cordis's loader message \"failed to apply loader entry hello-dsh (hello-dsh-plugin): boom\" after a logger's time stamp and level, and T4 is recorded passed: the plugin's entry never applied",
			edit: func(c *lieCtx) {
				c.streams(rules.T4, "stdout", "dsh web: http://127.0.0.1:3080\n", "dsh web: http://127.0.0.1:3080\n2026-12-06T10:00:01.000Z [E] loader failed to apply loader entry hello-dsh (hello-dsh-plugin): boom\n")
			}},
		{name: "t4_port_in_use", class: V, field: "repetitions[1].T4.status", verdict: "boot_failed", spec: "T4 boot",
			desc: "T4's stdout holds node's \"listen EADDRINUSE: address already in use 127.0.0.1:3080\" inside a logger's line, and T4 is recorded passed: a dsh of an earlier repetition still held the port, so the sandbox was not fresh",
			edit: func(c *lieCtx) {
				c.streams(rules.T4, "stdout", "dsh web: http://127.0.0.1:3080\n", "dsh web: http://127.0.0.1:3080\n[W] web-server Error: listen EADDRINUSE: address already in use 127.0.0.1:3080\n")
			}},
		{name: "registry_but_trace_shows_tarball", class: verify.ClassSubjectMismatch, field: "subject.source", verdict: "pass", honest: true, spec: "The run model",
			desc: "the subject is the registry's hello-dsh-plugin@1.0.0 (spec, argv, conditions and the profile package.json's 1.0.0 agree), but a stack frame in T4 runs the plugin from pnpm's store directory hello-dsh-plugin@file+..+..+..+pkgs+hello-dsh-plugin-1.0.0.tgz: it was installed from a local tarball",
			edit: func(c *lieCtx) {
				c.registryInstall()
				c.traceT4("hello-dsh-plugin@file+..+..+..+pkgs+hello-dsh-plugin-1.0.0.tgz")
			}},
		{name: "trace_shows_other_tarball", class: verify.ClassSubjectMismatch, field: "subject.spec", verdict: "pass", honest: true, spec: "The run model",
			desc: "the subject is the local tarball /pkgs/hello-dsh-plugin-1.0.0.tgz, but a stack frame in T4 runs the plugin from pnpm's store directory hello-dsh-plugin@file+..+..+..+pkgs+hello-dsh-plugin-0.9.0.tgz: the plugin that ran was installed from another tarball",
			edit: func(c *lieCtx) { c.traceT4("hello-dsh-plugin@file+..+..+..+pkgs+hello-dsh-plugin-0.9.0.tgz") }},
		{name: "trace_shows_other_version", class: verify.ClassSubjectMismatch, field: "subject.spec", verdict: "pass", honest: true, spec: "The run model",
			desc: "the subject is the registry's hello-dsh-plugin@1.0.0, but a stack frame in T4 runs the plugin from pnpm's store directory hello-dsh-plugin@0.9.0: the plugin that ran was another version",
			edit: func(c *lieCtx) {
				c.registryInstall()
				c.traceT4("hello-dsh-plugin@0.9.0")
			}},
		{name: "local_but_trace_shows_registry", class: verify.ClassSubjectMismatch, field: "subject.source", verdict: "pass", spec: "The run model",
			desc: "the subject is the local tarball /pkgs/hello-dsh-plugin-1.0.0.tgz, but a stack frame in T4 runs the plugin from pnpm's store directory hello-dsh-plugin@1.0.0, a registry install",
			edit: func(c *lieCtx) { c.traceT4("hello-dsh-plugin@1.0.0") }},
		{name: "t4_marker_trailing_space", class: V, field: "repetitions[1].T4.status", verdict: "boot_failed", spec: "T4 boot",
			desc: "T4's startup marker is followed by a space (\"dsh web: http://127.0.0.1:3080 \"): the marker is the cleaned line untrimmed, so it is not in dsh's form, and T4 is recorded passed",
			edit: func(c *lieCtx) {
				c.streams(rules.T4, "stdout", "dsh web: http://127.0.0.1:3080\n", "dsh web: http://127.0.0.1:3080 \n")
			}},
		{name: "t4_marker_port_six_digits", class: V, field: "repetitions[1].T4.status", verdict: "boot_failed", spec: "T4 boot",
			desc: "T4's startup marker names port 308000 (six digits): the port is one to five digits, so it is not in dsh's form, and T4 is recorded passed",
			edit: func(c *lieCtx) {
				c.streams(rules.T4, "stdout", "dsh web: http://127.0.0.1:3080\n", "dsh web: http://127.0.0.1:308000\n")
			}},
		{name: "deviation_both_placeholders", class: verify.ClassInputInvalid, field: "/deviations/3", verdict: "pass", honest: true, spec: "Deviation names",
			desc: "a deviation of a name the verifier does not check records n/a changed to none: both values placeholders, no recorded difference",
			edit: func(c *lieCtx) {
				c.m.Deviations = append(c.m.Deviations, manifest.Deviation{What: "disk", Standard: "n/a", ChangedTo: "none", Why: "no disk was attached"})
			}},
		{name: "started_before_published", class: verify.ClassTimeInconsistent, field: "started_at", verdict: "pass", spec: "Edition facts",
			desc: "started_at is 2026-11-06T23:59:59Z, one second before 2026-11-07T00:00:00Z, the instant the cited editions were published",
			edit: func(c *lieCtx) { c.m.StartedAt = "2026-11-06T23:59:59Z" }},
		{name: "dependency_scp_unknown_git_host", class: V, field: "static.report.clauses[11].status", verdict: "pass", spec: "Package inputs (D1–D5)",
			desc: "package.json depends on git@git.example.com:user/repo.git, an scp-style spec of a host hosted-git-info does not know, which npm-package-arg reads as a directory, and 5.3.2 is still recorded conforming",
			edit: func(c *lieCtx) {
				c.replaceIn(c.m.Static.Evidence[manifest.RoleMetadata], `"engines": {`, `"dependencies": {"my-kernel": "git@git.example.com:user/repo.git"},
  "engines": {`)
			}},
		{name: "t3_dump_float_16_digits", class: V, field: "repetitions[1].T3.status", verdict: "config_failed", spec: "YAML as dsh reads it",
			desc: "the dump's hello-dsh entry has a config value 1.234567890123456, a float of 16 digits, which the YAML reading refuses, and T3 is recorded passed",
			edit: func(c *lieCtx) { c.dumpEntry("  config:\n    ratio: 1.234567890123456\n") }},
		{name: "dump_entry_patch_without_insert", class: verify.ClassSubjectMismatch, field: "static.evidence.patch", verdict: "installs_but_not_registered", base: "installs_but_not_registered", spec: "What the verifier cross-checks",
			desc: "the recorded patch reads as a list without an insert entry (- id: llm-retry, disabled: true), and T3, which exited 0, is recorded installs_but_not_registered while its dump shows a root entry naming the package: that entry is not an insert entry of the patch, a finding on the patch, not a patch left uncompared",
			edit: func(c *lieCtx) {
				c.streams(rules.T3, "stdout", "- id: timer\n  name: '@deepseek-ai/cordis-plugin-timer'\n",
					"- id: timer\n  name: '@deepseek-ai/cordis-plugin-timer'\n- id: noinsert\n  name: noinsert-dsh-plugin\n")
			}},
		{name: "not_run_stage_with_verdict", class: V, field: "repetitions[1].T2.verdict", verdict: "install_failed", base: "install_failed", spec: "Normative and informative values",
			desc: "repetition 1's T2, not run after T1 failed, records the verdict install_failed: a stage that did not run is rebuilt as its code and not_executed alone",
			edit: func(c *lieCtx) { c.stage(1, rules.T2).Verdict = "install_failed" }},
		{name: "not_run_stage_with_network", class: V, field: "/repetitions/0/stages/2/network", verdict: "install_failed", base: "install_failed", spec: "Rebuilding the manifest",
			desc: "repetition 1's T3, not run after T1 failed, records network none: a stage that did not run is rebuilt as its code and not_executed alone, so the rebuild names the value",
			edit: func(c *lieCtx) { c.stage(1, rules.T3).Network = "none" }},
	}
}

// decisionTruths are the true variants among the same decisions: each
// verifies, and a verifier reading its section otherwise refuses it.
func decisionTruths() []truth {
	return []truth{
		{name: "true_deviation_placeholder_standard", verdict: "pass", spec: "Deviation names",
			desc: "a deviation of a name the verifier does not check records n/a changed to a local SSD: one placeholder beside a value is a recorded difference",
			edit: func(c *lieCtx) {
				c.m.Deviations = append(c.m.Deviations, manifest.Deviation{What: "disk", Standard: "n/a", ChangedTo: "local SSD", Why: "the runner has one"})
			}},
		{name: "true_readme_labels_any_case", verdict: "pass", spec: "README exception",
			desc: "package.json declares network and shell; the README's labels are written why NETWORK :, WHY SHELL: and data Flow: (any case, white space before the colon), which register the exception: 5.5.3 conforming",
			edit: func(c *lieCtx) {
				c.redLineWithREADME(strings.NewReplacer("Why network:", "why NETWORK :", "Why shell:", "WHY SHELL:", "Data flow:", "data Flow:").Replace(exceptionREADME))
			}},
		{name: "true_t4_plugin_names_its_entry", verdict: "pass", spec: "T4 boot",
			desc: "T4's stdout holds the plugin's own line \"hello-dsh: loader entry hello-dsh applied, 0 entries failed\", which is none of dsh's failure messages: T4 passes",
			edit: func(c *lieCtx) {
				c.streams(rules.T4, "stdout", "dsh web: http://127.0.0.1:3080\n", "dsh web: http://127.0.0.1:3080\nhello-dsh: loader entry hello-dsh applied, 0 entries failed\n")
			}},
		{name: "true_local_trace_in_t4", verdict: "pass", spec: "The run model",
			desc: "a stack frame in T4 (a warning's trace) runs the local subject's plugin from pnpm's store directory hello-dsh-plugin@file+..+..+..+pkgs+hello-dsh-plugin-1.0.0.tgz, as pnpm names a tarball's",
			edit: func(c *lieCtx) { c.traceT4("hello-dsh-plugin@file+..+..+..+pkgs+hello-dsh-plugin-1.0.0.tgz") }},
		{name: "true_registry_trace_with_peer_suffix", verdict: "pass", spec: "The run model",
			desc: "a stack frame in T4 runs the registry subject's plugin from pnpm's store directory hello-dsh-plugin@1.0.0_dsh-peer@2.0.0, the version and pnpm's suffix of a resolved peer dependency",
			edit: func(c *lieCtx) {
				c.registryInstall()
				c.traceT4("hello-dsh-plugin@1.0.0_dsh-peer@2.0.0")
			}},
		{name: "true_registry_trace_in_t4", verdict: "pass", spec: "The run model",
			desc: "the registry's hello-dsh-plugin@1.0.0 with a stack frame in T4 from pnpm's store directory hello-dsh-plugin@1.0.0, as pnpm names a registry package's",
			edit: func(c *lieCtx) {
				c.registryInstall()
				c.traceT4("hello-dsh-plugin@1.0.0")
			}},
		{name: "true_t4_marker_lan_ipv6", verdict: "pass", spec: "T4 boot",
			desc: "T4's marker names a LAN address whose host is an IPv6 literal, \"dsh web: http://127.0.0.1:3080 (LAN: http://[fe80::1]:3080)\": the host is any run of characters other than space and parentheses",
			edit: func(c *lieCtx) {
				c.streams(rules.T4, "stdout", "dsh web: http://127.0.0.1:3080\n", "dsh web: http://127.0.0.1:3080 (LAN: http://[fe80::1]:3080)\n")
			}},
		{name: "true_started_at_published_midnight", verdict: "pass", spec: "Edition facts",
			desc: "started_at is 2026-11-07T00:00:00Z, the instant the cited editions were published (the day's start, UTC)",
			edit: func(c *lieCtx) { c.m.StartedAt = "2026-11-07T00:00:00Z" }},
		{name: "true_metadata_dependency_sourcehut", verdict: "pass", spec: "Package inputs (D1–D5)",
			desc: "package.json depends on git@git.sr.ht:~user/repo, an scp-style spec of sourcehut, one of the git hosts hosted-git-info knows: not a local path, and 5.3.2 is conforming",
			edit: func(c *lieCtx) {
				c.replaceIn(c.m.Static.Evidence[manifest.RoleMetadata], `"engines": {`, `"dependencies": {"my-kernel": "git@git.sr.ht:~user/repo"},
  "engines": {`)
			}},
		{name: "true_t3_dump_float_15_digits", verdict: "pass", spec: "YAML as dsh reads it",
			desc: "the dump's hello-dsh entry has a config value 1.23456789012345, a float of 15 digits, which the YAML reading accepts",
			edit: func(c *lieCtx) { c.entryFields("  config:\n    ratio: 1.23456789012345\n") }},
		{name: "true_profile_repeated_off_path", verdict: "pass", spec: "JSON documents (J1–J6)",
			desc: "repetition 1's profile package.json repeats private with other bytes (false, then true), a member off the path T1 reads (dependencies and the subject's member), which is not refused",
			edit: func(c *lieCtx) {
				c.replaceIn(c.stage(1, rules.T1).Evidence[manifest.RoleProfilePackageJSON], `"private": true,`, `"private": false, "private": true,`)
			}},
		{name: "true_merged_cut_inside_character", verdict: "pass", spec: "Streams",
			desc: "T4's stderr prints \"note: café ready\" and merged holds stdout's marker line inside it, cut between the two bytes of é, as a capture reading the pipes in chunks can: a cut may fall anywhere",
			edit: func(c *lieCtx) {
				for r := 1; r <= 2; r++ {
					st := c.stage(r, rules.T4)
					out := c.files[st.Evidence["stdout"]]
					c.files[st.Evidence["stderr"]] = []byte("note: caf\xc3\xa9 ready\n")
					c.files[st.Evidence["merged"]] = append(append([]byte("note: caf\xc3"), out...), "\xa9 ready\n"...)
				}
			}},
	}
}

// lieSpecs are the sections earlier lies pin, for the kit's index.
var lieSpecs = map[string]string{
	"environment_output_missing":    "Fingerprint cross-checks",
	"dump_entry_not_in_patch":       "What the verifier cross-checks",
	"t1_added_line_outside_summary": "T1 install",
	"duration_off_by_one":           "Rebuilding the manifest",
	"profile_home_other":            "Time and process facts",
	"t4_marker_other_form":          "T4 boot",
}
