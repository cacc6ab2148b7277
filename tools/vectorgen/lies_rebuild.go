package main

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/verify"
)

// forgedDeclaration is a second declaration line a line break in writer
// text would put into the declaration verify composes.
const forgedDeclaration = "Conforms to DSHIO/T 10—2026 (baseline DSH 0.2.2-rc.1, static + dynamic layer)"

// sri is a well-formed npm sha512 integrity string made from b (a stand-in
// digest: the vectors need two that differ, not a real tarball's).
func sri(b []byte) string {
	s := sha256.Sum256(b)
	d := append(s[:], s[:]...) // 64 bytes, the length of a sha512
	return "sha512-" + base64.StdEncoding.EncodeToString(d)
}

// rebuildLies are the relations issue 31 found unchecked: writer text
// that would become structure, digests of the subject that disagree, the
// evidence contradicting the manifest about itself, streams hiding a line
// from merged, the dump against the patch, and dates.
func rebuildLies() []lie {
	I := verify.ClassInputInvalid
	whyBreak := func(name, brk string) lie {
		return lie{name: "deviation_why_" + name, class: I, field: "/deviations/0/why", verdict: "pass", honest: true,
			desc: "a deviation's why holds " + name + " and a second declaration line after it",
			edit: func(c *lieCtx) { c.m.Deviations[0].Why += brk + forgedDeclaration }}
	}
	return []lie{
		whyBreak("lf", "\n"), whyBreak("cr", "\r"), whyBreak("u2028", "\u2028"), whyBreak("u2029", "\u2029"), whyBreak("nel", "\u0085"),
		{name: "deviation_what_line_break", class: I, field: "/deviations/3/what", verdict: "pass", honest: true,
			desc: "a deviation of another name whose what holds U+2028 and a declaration line",
			edit: func(c *lieCtx) {
				c.m.Deviations = append(c.m.Deviations, manifest.Deviation{What: "note\u2028" + forgedDeclaration, Standard: "a", ChangedTo: "b", Why: "stated"})
			}},
		{name: "deviation_names_no_difference", class: I, field: "/deviations/3", verdict: "pass", honest: true,
			desc: "a deviation \"note\" from - to -, naming no recorded difference",
			edit: func(c *lieCtx) {
				c.m.Deviations = append(c.m.Deviations, manifest.Deviation{What: "note", Standard: "-", ChangedTo: "-", Why: "none"})
			}},
		{name: "integrity_malformed", class: I, field: "/subject/integrity", verdict: "pass",
			desc: "subject.integrity is sha512- and 3 bytes",
			edit: func(c *lieCtx) { c.m.Subject.Integrity = "sha512-abcd" }},
		{name: "integrity_vs_metadata_dist", class: verify.ClassSubjectMismatch, field: "subject.integrity", verdict: "pass", honest: true,
			desc: "the metadata's dist.integrity names another tarball than subject.integrity",
			edit: func(c *lieCtx) {
				p := c.m.Static.Evidence[manifest.RoleMetadata]
				b := strings.TrimRight(string(c.files[p]), "\n\r\t ")
				b = strings.TrimSuffix(b, "}") + `,"dist":{"integrity":"` + sri([]byte("registry tarball")) + `"}}` + "\n"
				c.files[p] = []byte(b)
				c.m.Subject.Integrity = sri([]byte("tested tarball"))
			}},
		{name: "pnpm_done_longer_than_stage", class: verify.ClassTimeInconsistent, field: "repetitions[1].T1.duration_ms", verdict: "pass",
			desc: "T1's output says pnpm took 9.9s in a stage of 3 s",
			edit: func(c *lieCtx) {
				st := c.stage(1, rules.T1)
				for _, role := range []string{manifest.RoleStdout, manifest.RoleMerged} {
					c.replaceIn(st.Evidence[role], "Done in 1.1s using pnpm", "Done in 9.9s using pnpm")
				}
			}},
		{name: "pnpm_gave_up_exit_zero", class: verify.ClassTimeInconsistent, field: "repetitions[1].T1.exit_code", verdict: "install_failed", base: "install_failed", honest: true,
			desc: "T1 records exit 0 beside pnpm's ERR_PNPM_ADDING_TO_ROOT",
			edit: func(c *lieCtx) { c.stage(1, rules.T1).ExitCode = intp(0) }},
		{name: "dsh_pnpm_failed_exit_zero", class: verify.ClassTimeInconsistent, field: "repetitions[1].T1.exit_code", verdict: "pass",
			desc: "T1 records exit 0 beside dsh's \"pnpm failed in profile directory\", which dsh plugin prints only before exiting with pnpm's non-zero status",
			edit: func(c *lieCtx) {
				st := c.stage(1, rules.T1)
				for _, role := range []string{manifest.RoleStderr, manifest.RoleMerged} {
					c.files[st.Evidence[role]] = append(c.files[st.Evidence[role]], "dsh: pnpm failed in profile directory /dsh-home/profiles/web\n"...)
				}
			}},
		{name: "t2_pnpm_error_exit_zero", class: verify.ClassTimeInconsistent, field: "repetitions[1].T2.exit_code", verdict: "pass",
			desc: "T2 records exit 0 beside pnpm's error label \" ERR_PNPM_BROKEN_LOCKFILE\" before its listing: dsh plugin list exits with pnpm's status, and pnpm exits 1 after it",
			edit: func(c *lieCtx) {
				st := c.stage(1, rules.T2)
				for _, role := range []string{manifest.RoleStdout, manifest.RoleMerged} {
					c.files[st.Evidence[role]] = append([]byte(" ERR_PNPM_BROKEN_LOCKFILE  The lockfile at \"/dsh-home/profiles/web/pnpm-lock.yaml\" is broken\n"), c.files[st.Evidence[role]]...)
				}
			}},
		{name: "fatal_hidden_in_merged", class: verify.ClassStreamMismatch, field: "repetitions[1].T4.evidence.merged", verdict: "pass",
			desc: "T4's stderr has a fatal line that merged cuts around a stdout line, so merged alone shows none",
			edit: func(c *lieCtx) {
				st := c.stage(1, rules.T4)
				out := string(c.files[st.Evidence[manifest.RoleStdout]])
				c.files[st.Evidence[manifest.RoleStdout]] = []byte(out + "ready\n")
				c.files[st.Evidence[manifest.RoleStderr]] = []byte("hello-dsh: fatal: plugin apply failed\n")
				c.files[st.Evidence[manifest.RoleMerged]] = []byte(out + "hello-dsh: fa" + "ready\n" + "tal: plugin apply failed\n")
			}},
		{name: "dump_entry_not_in_patch", class: verify.ClassSubjectMismatch, field: "static.evidence.patch", verdict: "pass",
			desc: "T3's dump shows a second entry of the plugin that the recorded patch does not insert",
			edit: func(c *lieCtx) {
				st := c.stage(1, rules.T3)
				for _, role := range []string{manifest.RoleStdout, manifest.RoleMerged} {
					c.replaceIn(st.Evidence[role], "- id: hello-dsh\n  name: hello-dsh-plugin\n",
						"- id: hello-dsh\n  name: hello-dsh-plugin\n- id: hello-dsh-extra\n  name: hello-dsh-plugin\n")
				}
			}},
		{name: "pnpm_failed_other_profile_dir", class: verify.ClassConditionMismatch, field: "conditions.fixed " + assemble.CondProfile, verdict: "install_failed", base: "install_failed",
			desc: "repetition 1's T1 has dsh say pnpm failed in /srv/other/profiles/web while the profile condition and the set-up line name /dsh-home/profiles/web",
			edit: func(c *lieCtx) {
				st := c.stage(1, rules.T1)
				for _, role := range []string{manifest.RoleStderr, manifest.RoleMerged} {
					c.replaceIn(st.Evidence[role], "pnpm failed in profile directory /dsh-home/profiles/web", "pnpm failed in profile directory /srv/other/profiles/web")
				}
			}},
		{name: "profile_home_other", class: verify.ClassConditionMismatch, field: "conditions.fixed " + assemble.CondProfile, verdict: "pass", also: []verify.Class{verify.ClassEditionFact},
			desc: "the profile condition records DSH_HOME=/srv/dsh while dsh's output set up the profile under /dsh-home",
			edit: func(c *lieCtx) {
				f := c.fixed(assemble.CondProfile)
				f.Value = strings.Replace(f.Value, "DSH_HOME=/dsh-home", "DSH_HOME=/srv/dsh", 1)
			}},
		{name: "duration_off_by_one", class: verify.ClassVerdictMismatch, field: "/repetitions/0/stages/1/duration_ms", verdict: "pass",
			desc: "repetition 1's T2 duration_ms is 1 ms more than its times give: within the time check's tolerance, named only by the rebuild",
			edit: func(c *lieCtx) { c.stage(1, rules.T2).DurationMS++ }},
		{name: "run_before_editions", class: verify.ClassTimeInconsistent, field: "started_at", verdict: "pass",
			desc: "the run started on 2026-11-01, before the editions it cites were published (2026-11-07)",
			edit: func(c *lieCtx) { c.m.StartedAt = "2026-11-01T00:00:00Z" }},
		{name: "run_after_clock", class: verify.ClassTimeInconsistent, field: "finished_at", verdict: "pass", honest: true,
			desc: "the run finished in 2999, after any verifier's clock",
			edit: func(c *lieCtx) { c.m.FinishedAt, c.m.TestDate = "2999-01-01T00:00:00Z", "2999-01-01" }},
	}
}

// rebuildTrue are true bundles the verifier refused before issue 31.
func (g *gen) rebuildTrue() error {
	c, err := lieBase(g.pass)
	if err != nil {
		return err
	}
	// SPEC.md "Manifest fields": timeouts_ms may also hold version, the
	// limit of the version commands.
	c.m.Settings.TimeoutsMS["version"] = 60000
	reclaim(c.m, c.files)
	c.m.Files = bundle.FileList(c.files)
	out, err := g.sign(c.m, c.files, g.signer)
	if err != nil {
		return err
	}
	return g.emit("timeouts_version", "valid: settings.timeouts_ms also holds version, the version commands' limit", out, "verified", nil, "pass")
}
