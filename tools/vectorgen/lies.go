package main

import (
	"strings"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/verify"
)

// Field names the verifier gives (SPEC.md "What the verifier
// cross-checks"); repetitions are numbered from 1.
const (
	fT1Cmd     = "conditions.fixed " + "T1 command (DSHIO/T 21 5.1.8)"
	fNetwork   = "conditions.fixed network"
	fIsolation = "conditions.fixed " + assemble.CondIsolation
	fProfile   = "conditions.fixed " + assemble.CondProfile
)

func intp(v int) *int { return &v }

// lies is the family of lying vectors, at least one per class of SPEC.md
// "What the verifier cross-checks".
func lies() []lie {
	V := verify.ClassVerdictMismatch
	return []lie{
		// 1. Edition facts.
		{name: "window_shorter_no_deviation", class: verify.ClassEditionFact, field: "settings.observation_window_ms", verdict: "pass", honest: true,
			desc: "a 10 s window recorded in settings, conditions and liveness, with no deviation",
			edit: func(c *lieCtx) {
				c.m.Settings.ObservationWindowMS = 10000
				c.fixed(assemble.CondWindow).Value = "10s"
				for r := 1; r <= 2; r++ {
					l := c.stage(r, rules.T4).Liveness
					l.WindowMS, l.AliveMS = 10000, 10000
				}
			}},
		{name: "window_longer_no_deviation", class: verify.ClassEditionFact, field: "settings.observation_window_ms", verdict: "pass", honest: true,
			desc: "a 12.5 s window (longer than the standard's: a deviation too), no deviation",
			edit: func(c *lieCtx) {
				c.m.Settings.ObservationWindowMS = 12500
				c.fixed(assemble.CondWindow).Value = "12.5s"
				c.m.Settings.TimeoutsMS["T4"] = 42500
				c.fixed(assemble.CondTimeout(rules.T4)).Value = "42.5s"
				c.m.Deviations = append(c.m.Deviations, manifest.Deviation{What: assemble.DeviationTimeout(rules.T4), Standard: "42s", ChangedTo: "42.5s", Why: "follows the window"})
				for r := 1; r <= 2; r++ {
					st := c.stage(r, rules.T4)
					st.Liveness.WindowMS, st.Liveness.AliveMS = 12500, 12500
					st.EndedAt = strings.Replace(st.EndedAt, ":34Z", ":34.5Z", 1)
					st.EndedAt = strings.Replace(st.EndedAt, ":03Z", ":03.5Z", 1)
					st.DurationMS = 12500
				}
			}},
		{name: "timeout_t1_longer", class: verify.ClassEditionFact, field: "settings.timeouts_ms.T1", verdict: "pass", honest: true,
			desc: "T1 time limit 10 min in settings and conditions, no deviation",
			edit: func(c *lieCtx) {
				c.m.Settings.TimeoutsMS["T1"] = 600000
				c.fixed(assemble.CondTimeout(rules.T1)).Value = "10m0s"
			}},
		{name: "timeout_t3_shorter", class: verify.ClassEditionFact, field: "settings.timeouts_ms.T3", verdict: "pass", honest: true,
			desc: "T3 time limit 30 s, no deviation",
			edit: func(c *lieCtx) {
				c.m.Settings.TimeoutsMS["T3"] = 30000
				c.fixed(assemble.CondTimeout(rules.T3)).Value = "30s"
			}},
		{name: "memory_limit_changed", class: verify.ClassEditionFact, field: "fingerprint mem", verdict: "pass", honest: true,
			desc: "mem=1g in the fingerprint and the conditions, no deviation",
			edit: func(c *lieCtx) {
				c.fingerprint("mem", "1g")
				c.fixed(assemble.CondMemory).Value = "1g"
			}},
		{name: "cpu_limit_changed", class: verify.ClassEditionFact, field: "fingerprint cpu", verdict: "pass", honest: true,
			desc: "cpu=2 in the fingerprint and the conditions, no deviation",
			edit: func(c *lieCtx) {
				c.fingerprint("cpu", "2")
				c.fixed(assemble.CondCPU).Value = "2"
			}},
		{name: "pids_limit_changed", class: verify.ClassEditionFact, field: "conditions.fixed " + assemble.CondPids, verdict: "pass", honest: true,
			desc: "pids limit 4096, no deviation",
			edit: func(c *lieCtx) { c.fixed(assemble.CondPids).Value = "4096" }},
		{name: "repeat_one_no_deviation", class: verify.ClassEditionFact, field: "settings.repeat", verdict: "pass", honest: true,
			desc: "one repetition, settings and conditions say 1, no deviation",
			edit: func(c *lieCtx) {
				c.m.Repetitions = c.m.Repetitions[:1]
				c.m.Settings.Repeat = 1
				c.fixed(assemble.CondRepeat).Value = "1"
				for p := range c.files {
					if strings.HasPrefix(p, "repetitions/2/") {
						c.removeFile(p)
					}
				}
			}},
		{name: "other_edition", class: verify.ClassEditionFact, field: "standards", verdict: "pass",
			desc: "cites DSHIO/T 10—2025 editions this verifier does not know",
			edit: func(c *lieCtx) {
				c.m.Standards = []string{"DSHIO/T 10—2025", "DSHIO/T 20—2025", "DSHIO/T 21—2025"}
			}},
		{name: "deviation_without_difference", class: verify.ClassEditionFact, field: "deviations[3]", verdict: "pass", honest: true,
			desc: "a window deviation 12s → 15s while every record says 12 s",
			edit: func(c *lieCtx) {
				c.m.Deviations = append(c.m.Deviations, manifest.Deviation{What: assemble.DeviationObservationWindow, Standard: "12s", ChangedTo: "15s", Why: "stated"})
			}},
		{name: "usable_claimed", class: V, field: "claimed.usable_for_certification", verdict: "pass",
			desc: "usable_for_certification: true although three deviations are recorded",
			edit: func(c *lieCtx) { c.m.Claimed.UsableForCertification = true }},

		// Usable beside a condition that is not the standard's: the
		// standard run (usable once derived honestly) with one fixed
		// condition changed and no deviation for it.
		{name: "usable_isolation_shared_container", class: verify.ClassEditionFact, field: fIsolation, verdict: "pass", honest: true,
			desc: "a run under the standard's conditions, usable for certification, except that the isolation condition says one shared container ran every command; no isolation deviation",
			edit: func(c *lieCtx) {
				c.standardRun()
				c.fixed(assemble.CondIsolation).Value = "one shared container for every command; environment only DSH_HOME"
			}},
		{name: "usable_profile_reused", class: verify.ClassEditionFact, field: fProfile, verdict: "pass", honest: true,
			desc: "a run under the standard's conditions, usable for certification, except that the profile condition says DSH_HOME was reused across repetitions; no profile deviation",
			edit: func(c *lieCtx) {
				c.standardRun()
				c.fixed(assemble.CondProfile).Value = "web; DSH_HOME=/dsh-home, one host directory reused across repetitions"
			}},
		{name: "usable_isolation_no_container", class: verify.ClassEditionFact, field: fIsolation, verdict: "pass", honest: true,
			desc: "a run under the standard's conditions, usable for certification, except that the isolation condition says no container: every command ran on the host; no isolation deviation",
			edit: func(c *lieCtx) {
				c.standardRun()
				c.fixed(assemble.CondIsolation).Value = "no container: every command ran on the host"
			}},
		{name: "usable_isolation_privileged", class: verify.ClassEditionFact, field: fIsolation, verdict: "pass", honest: true,
			desc: "a run under the standard's conditions, usable for certification, except that the isolation condition says --privileged with seccomp off; no isolation deviation",
			edit: func(c *lieCtx) {
				c.standardRun()
				c.fixed(assemble.CondIsolation).Value = "a fresh container per command, --privileged, seccomp off"
			}},
		{name: "usable_fixed_condition_unknown", class: verify.ClassInputInvalid, field: "/conditions/fixed/21/name", verdict: "pass", honest: true,
			desc: "a run under the standard's conditions, usable for certification, beside a fixed condition of a name the standard does not give: container reuse, one shared container for every command",
			edit: func(c *lieCtx) {
				c.standardRun()
				c.m.Conditions.Fixed = append(c.m.Conditions.Fixed, manifest.Condition{Name: "container reuse", Value: "one shared container for every command"})
			}},

		// Usable beside a variable condition that says the run was not
		// the standard's: a name outside the closed set, or a value not
		// of its name's form.
		{name: "usable_tarball_rebuilt_from_git", class: verify.ClassInputInvalid, field: "/conditions/variable/2/value", verdict: "pass", honest: true,
			desc: "a run under the standard's conditions, usable for certification, beside the variable condition local_source: tarball rebuilt from git (not the published tarball)",
			edit: func(c *lieCtx) {
				c.standardRun()
				c.m.Conditions.Variable = append(c.m.Conditions.Variable, manifest.Condition{Name: "local_source", Value: "tarball rebuilt from git"})
			}},
		{name: "usable_source_rebuilt_from_git", class: verify.ClassInputInvalid, field: "/conditions/variable/0/value", verdict: "pass", honest: true,
			desc: "a run under the standard's conditions, usable for certification, whose capture note (source) says the tarball was rebuilt from git instead of the published one",
			edit: func(c *lieCtx) {
				c.standardRun()
				c.m.Conditions.Variable[0].Value = "tarball rebuilt from git instead of the published one"
			}},
		{name: "usable_variable_condition_unknown", class: verify.ClassInputInvalid, field: "/conditions/variable/2/name", verdict: "pass", honest: true,
			desc: "a run under the standard's conditions, usable for certification, beside a variable condition of a name no run records: tarball = rebuilt from git",
			edit: func(c *lieCtx) {
				c.standardRun()
				c.m.Conditions.Variable = append(c.m.Conditions.Variable, manifest.Condition{Name: "tarball", Value: "rebuilt from git, not the published one"})
			}},
		{name: "usable_engine_none", class: verify.ClassInputInvalid, field: "/conditions/variable/1/value", verdict: "pass", honest: true,
			desc: "a run under the standard's conditions, usable for certification, whose container engine condition says none: every command ran on the host",
			edit: func(c *lieCtx) {
				c.standardRun()
				c.m.Conditions.Variable[1].Value = "none (every command ran on the host)"
			}},
		{name: "usable_engine_privileged", class: verify.ClassInputInvalid, field: "/conditions/variable/1/value", verdict: "pass", honest: true,
			desc: "a run under the standard's conditions, usable for certification, whose container engine condition adds --privileged --security-opt seccomp=unconfined",
			edit: func(c *lieCtx) {
				c.standardRun()
				c.m.Conditions.Variable[1].Value = "podman 4.3.1 --privileged --security-opt seccomp=unconfined"
			}},
		{name: "usable_package_source_other", class: verify.ClassInputInvalid, field: "/conditions/variable/2/value", verdict: "pass", honest: true,
			desc: "a run under the standard's conditions, usable for certification, beside a package source condition of git while subject.source says local-tarball",
			edit: func(c *lieCtx) {
				c.standardRun()
				c.m.Conditions.Variable = append(c.m.Conditions.Variable, manifest.Condition{Name: "package source", Value: "git"})
			}},

		// 2. One source of truth for conditions.
		{name: "argv_differs_from_condition", class: verify.ClassConditionMismatch, field: "repetitions[1].T2.argv", verdict: "pass", honest: true,
			desc: "repetition 1's T2 ran with --json, the T2 command condition says otherwise",
			edit: func(c *lieCtx) {
				st := c.stage(1, rules.T2)
				st.Argv = append(st.Argv, "--json")
			}},
		{name: "t1_deviation_dropped", class: verify.ClassConditionMismatch, field: fT1Cmd, verdict: "pass", honest: true,
			desc: "T1 ran with -w, the condition says so, the deviation is gone",
			edit: func(c *lieCtx) { c.dropDeviation(assemble.DeviationCommand(rules.T1)) }},
		{name: "t4_deviation_other_values", class: verify.ClassConditionMismatch, field: "deviations[1]", verdict: "pass", honest: true,
			desc: "the T4 command deviation states another changed_to than the command run",
			edit: func(c *lieCtx) {
				c.m.Deviations[c.deviation(assemble.DeviationCommand(rules.T4))].ChangedTo = "dsh --profile web --headless"
			}},
		{name: "network_t2_on", class: verify.ClassConditionMismatch, field: "repetitions[1].T2.network", verdict: "pass", honest: true,
			desc: "repetition 1's T2 records network on; the conditions say none",
			edit: func(c *lieCtx) { c.stage(1, rules.T2).Network = "on" }},
		{name: "network_condition_on_no_deviation", class: verify.ClassConditionMismatch, field: fNetwork, verdict: "pass", honest: true,
			desc: "T2–T4 ran with network on, conditions agree, no network deviation",
			edit: func(c *lieCtx) {
				c.fixed(assemble.CondNetworkT2T4).Value = "on (host network)"
				for r := 1; r <= 2; r++ {
					for _, s := range []rules.Stage{rules.T2, rules.T3, rules.T4} {
						c.stage(r, s).Network = "on"
					}
				}
			}},
		{name: "image_condition_other", class: verify.ClassConditionMismatch, field: "conditions.fixed " + assemble.CondImage, verdict: "pass", honest: true,
			desc: "the container image condition names another digest than image and fingerprint",
			edit: func(c *lieCtx) {
				c.fixed(assemble.CondImage).Value = imageName + "@sha256:" + strings.Repeat("0", 64)
			}},
		{name: "image_name_other", class: verify.ClassConditionMismatch, field: "image.name", verdict: "pass", also: nil, honest: true,
			desc: "image.name differs from the fingerprint's image",
			edit: func(c *lieCtx) {
				c.m.Image.Name = "localhost/other:1"
				c.fixed(assemble.CondImage).Value = "localhost/other:1@" + c.m.Image.Digest
			}},
		{name: "dsh_condition_baseline", class: verify.ClassConditionMismatch, field: "conditions.fixed " + assemble.CondDSHVersion, verdict: "pass", honest: true,
			desc: "the dsh version condition claims the baseline 0.2.2-rc.1; the fingerprint says 0.1.0-rc.8",
			edit: func(c *lieCtx) { c.fixed(assemble.CondDSHVersion).Value = "0.2.2-rc.1" }},
		{name: "dsh_deviation_dropped", class: verify.ClassConditionMismatch, field: "fingerprint dsh", verdict: "pass", honest: true,
			desc: "dsh 0.1.0-rc.8 is not the baseline and the dsh version deviation is gone",
			edit: func(c *lieCtx) { c.dropDeviation(assemble.DeviationDSHVersion) }},
		{name: "duplicate_deviation", class: verify.ClassConditionMismatch, field: "deviations[3]", verdict: "pass", honest: true,
			desc: "the T4 command deviation recorded twice",
			edit: func(c *lieCtx) {
				c.m.Deviations = append(c.m.Deviations, c.m.Deviations[c.deviation(assemble.DeviationCommand(rules.T4))])
			}},
		{name: "window_condition_vs_settings", class: verify.ClassConditionMismatch, field: "conditions.fixed " + assemble.CondWindow, verdict: "pass", honest: true,
			desc: "the window condition says 15s, the settings 12 s",
			edit: func(c *lieCtx) { c.fixed(assemble.CondWindow).Value = "15s" }},
		{name: "entry_schema_unexplained", class: verify.ClassConditionMismatch, field: "static.evidence.schema", verdict: "pass", honest: true,
			desc: "the patch entry says group: \"yes\" (EntryOptions allows boolean or null); a permissive static/entry-schema.json, which takes precedence, makes clause 5.1.6 conforming, though dsh 0.1.0-rc.8 prints no entry schema",
			edit: func(c *lieCtx) {
				c.badEntryGroup()
				p := manifest.StaticPath(manifest.RoleSchema)
				c.files[p] = []byte(`{"properties": {}}`)
				c.m.Static.Evidence[manifest.RoleSchema] = p
			}},
		{name: "duplicate_fixed_condition", class: verify.ClassConditionMismatch, field: "conditions.fixed[21]", verdict: "pass", honest: true,
			desc: "the memory limit condition recorded twice with two values",
			edit: func(c *lieCtx) {
				c.m.Conditions.Fixed = append(c.m.Conditions.Fixed, manifest.Condition{Name: assemble.CondMemory, Value: "2g"})
			}},
		{name: "argv_one_argument", class: verify.ClassConditionMismatch, field: "repetitions[1].T4.argv", verdict: "pass", honest: true,
			desc: "T4 ran as dsh with the one argument \"--profile web --no-open\", which joined with spaces reads as the deviated command",
			edit: func(c *lieCtx) {
				for r := 1; r <= 2; r++ {
					c.stage(r, rules.T4).Argv = []string{"dsh", "--profile web --no-open"}
				}
			}},
		{name: "static_only_sandbox_conditions", class: verify.ClassConditionMismatch, field: "image", verdict: "", base: "static_only", honest: true,
			desc: "a static-only bundle records the baseline dsh, an official image, a memory limit, a 1 s window and a 1 ms T1 limit: conditions of a sandbox that never ran",
			edit: func(c *lieCtx) {
				ref := "registry.example/dsh-sandbox:official@sha256:" + strings.Repeat("a", 64)
				c.m.Conditions.Fixed = append(c.m.Conditions.Fixed,
					manifest.Condition{Name: assemble.CondDSHVersion, Value: "0.2.2-rc.1"},
					manifest.Condition{Name: assemble.CondImage, Value: ref},
					manifest.Condition{Name: assemble.CondMemory, Value: "768m"})
				c.m.Image = manifest.Image{Name: "registry.example/dsh-sandbox:official", Digest: "sha256:" + strings.Repeat("a", 64)}
				c.m.Settings.ObservationWindowMS = 1000
				c.m.Settings.TimeoutsMS = map[string]int64{"T1": 1}
			}},
		{name: "static_only_installed_size", class: verify.ClassConditionMismatch, field: "static.installed_size", verdict: "", base: "static_only", honest: true,
			desc: "a static-only bundle records an installed size of 1,000 bytes, which no T1 measured, and its 5.3.3 re-derived conforming from it",
			edit: func(c *lieCtx) { c.m.Static.InstalledSize = 1000 }},
		{name: "static_only_fingerprint", class: verify.ClassConditionMismatch, field: "fingerprint", verdict: "", base: "static_only", honest: true,
			desc: "a static-only bundle carries a fingerprint and the version outputs behind it, which its declaration then prints",
			edit: func(c *lieCtx) {
				c.m.Fingerprint = "dsh=0.2.2-rc.1;img=" + imageName + "@" + imageDigest + ";node=24.11.1;pnpm=9.15.9;mem=768m;cpu=1"
				c.m.Image = manifest.Image{Name: imageName, Digest: imageDigest}
				if c.m.Environment.Evidence == nil {
					c.m.Environment.Evidence = map[string]string{}
				}
				for role, out := range map[string]string{manifest.RoleDSHVersion: "0.2.2-rc.1\n", manifest.RoleNodeVersion: "v24.11.1\n", manifest.RolePNPMVersion: "9.15.9\n"} {
					p := manifest.EnvironmentPath(role)
					c.files[p] = []byte(out)
					c.m.Environment.Evidence[role] = p
				}
			}},
		{name: "static_only_deviation", class: verify.ClassConditionMismatch, field: "deviations[0]", verdict: "", base: "static_only", honest: true,
			desc: "a static-only bundle records a T4 command deviation although no T4 ran",
			edit: func(c *lieCtx) {
				c.m.Deviations = append(c.m.Deviations, manifest.Deviation{What: assemble.DeviationCommand(rules.T4), Standard: "dsh --profile web", ChangedTo: "dsh --profile web --no-open", Why: "stated"})
			}},

		// 3. Sequence shape.
		{name: "stage_after_failure", class: verify.ClassSequenceShape, field: "repetitions[1].T2.exit_code", verdict: "install_failed", base: "install_failed",
			desc: "install_failed, but repetition 1 records an executed T2 after the failed T1",
			edit: func(c *lieCtx) {
				st := c.stage(1, rules.T2)
				st.Argv = assemble.StandardArgv(rules.T2, c.m.Subject.Spec)
				st.Network = "none"
				st.StartedAt, st.EndedAt, st.DurationMS, st.ExitCode = "2026-11-20T10:00:14Z", "2026-11-20T10:00:15Z", 1000, intp(0)
				st.Evidence = map[string]string{}
				for _, role := range []string{"stdout", "stderr", "merged"} {
					p := manifest.StagePath(1, string(rules.T2), role)
					c.files[p] = []byte{}
					st.Evidence[role] = p
				}
			}},
		{name: "gap_t3_missing", class: verify.ClassSequenceShape, field: "repetitions[1]", verdict: "",
			desc: "repetition 1's T3 is recorded not executed although T2 passed, and T4 ran",
			edit: func(c *lieCtx) {
				st := c.stage(1, rules.T3)
				for _, p := range st.Evidence {
					c.removeFile(p)
				}
				*st = manifest.Stage{Stage: "T3", Status: "not_executed"}
			}},
		{name: "duplicate_stage", class: verify.ClassSequenceShape, field: "repetitions[1].stages", verdict: "",
			desc: "repetition 1 records T2 twice",
			edit: func(c *lieCtx) {
				r := &c.m.Repetitions[0]
				r.Stages = append(r.Stages[:2], append([]manifest.Stage{r.Stages[1]}, r.Stages[2:]...)...)
			}},
		{name: "stages_out_of_order", class: verify.ClassSequenceShape, field: "repetitions[1].T4", verdict: "pass",
			desc: "repetition 1 records T4 before T3",
			edit: func(c *lieCtx) {
				r := &c.m.Repetitions[0]
				r.Stages[2], r.Stages[3] = r.Stages[3], r.Stages[2]
			}},
		{name: "repetition_index_wrong", class: verify.ClassSequenceShape, field: "repetitions[2].index", verdict: "pass",
			desc: "the second repetition says index 3",
			edit: func(c *lieCtx) { c.m.Repetitions[1].Index = 3 }},
		{name: "repeat_count_mismatch", class: verify.ClassSequenceShape, field: "repetitions", verdict: "pass", honest: true,
			desc: "settings and conditions say 3 repetitions (with a deviation); 2 are recorded",
			edit: func(c *lieCtx) {
				c.m.Settings.Repeat = 3
				c.fixed(assemble.CondRepeat).Value = "3"
				c.m.Deviations = append(c.m.Deviations, manifest.Deviation{What: assemble.DeviationRepeatCount, Standard: "2", ChangedTo: "3", Why: "stated"})
			}},
		{name: "evidence_path_off_layout", class: verify.ClassSequenceShape, field: "repetitions[1].T1.evidence.stdout", verdict: "",
			desc: "repetition 1's T1 stdout stored as repetitions/1/T1/out",
			edit: func(c *lieCtx) {
				st := c.stage(1, rules.T1)
				old := st.Evidence["stdout"]
				c.files["repetitions/1/T1/out"] = c.files[old]
				c.removeFile(old)
				st.Evidence["stdout"] = "repetitions/1/T1/out"
			}},
		{name: "evidence_shared_across_repetitions", class: verify.ClassSequenceShape, field: "repetitions[2].T2.evidence.stdout", verdict: "",
			desc: "repetition 2's T2 stdout points at repetition 1's file",
			edit: func(c *lieCtx) {
				st := c.stage(2, rules.T2)
				c.removeFile(st.Evidence["stdout"])
				st.Evidence["stdout"] = "repetitions/1/T2/stdout"
			}},
		{name: "unreferenced_file", class: verify.ClassSequenceShape, field: "files", verdict: "pass",
			desc: "a listed file no evidence role refers to",
			edit: func(c *lieCtx) { c.files["repetitions/1/T1/notes"] = []byte("looked fine\n") }},
		{name: "t5_stage", class: verify.ClassSequenceShape, field: "repetitions[1].T5", verdict: "pass",
			desc: "repetition 1 records a T5 stage",
			edit: func(c *lieCtx) {
				r := &c.m.Repetitions[0]
				r.Stages = append(r.Stages, manifest.Stage{Stage: "T5", Status: "passed"})
			}},
		{name: "liveness_on_t2", class: verify.ClassSequenceShape, field: "repetitions[1].T2.liveness", verdict: "pass",
			desc: "repetition 1's T2 carries a liveness observation",
			edit: func(c *lieCtx) {
				c.stage(1, rules.T2).Liveness = &manifest.Liveness{WindowMS: 12000, AliveMS: 3000}
			}},

		// 4. Streams.
		{name: "merged_missing_line", class: verify.ClassStreamMismatch, field: "repetitions[1].T1.evidence.merged", verdict: "",
			desc: "repetition 1's T1 merged lacks the line naming the installed plugin",
			edit: func(c *lieCtx) {
				c.replaceIn(c.stage(1, rules.T1).Evidence["merged"], "+ hello-dsh-plugin 1.0.0\n", "")
			}},
		{name: "merged_extra_marker", class: verify.ClassStreamMismatch, field: "repetitions[1].T4.evidence.merged", verdict: "",
			desc: "repetition 1's T4 merged holds a second startup marker neither stream printed",
			edit: func(c *lieCtx) {
				p := c.stage(1, rules.T4).Evidence["merged"]
				c.files[p] = append(c.files[p], []byte("dsh web: http://127.0.0.1:3080\n")...)
			}},
		{name: "merged_reordered", class: verify.ClassStreamMismatch, field: "repetitions[1].T1.evidence.merged", verdict: "",
			desc: "repetition 1's T1 merged swaps two stdout lines",
			edit: func(c *lieCtx) {
				c.replaceIn(c.stage(1, rules.T1).Evidence["merged"], "dependencies:\n+ hello-dsh-plugin 1.0.0\n", "+ hello-dsh-plugin 1.0.0\ndependencies:\n")
			}},

		// 5. Time and process facts.
		{name: "stage_ends_before_start", class: verify.ClassTimeInconsistent, field: "repetitions[1].T2.ended_at", verdict: "pass",
			desc: "repetition 1's T2 ended before it started",
			edit: func(c *lieCtx) { c.stage(1, rules.T2).EndedAt = "2026-11-20T10:00:13Z" }},
		{name: "duration_mismatch", class: verify.ClassTimeInconsistent, field: "repetitions[1].T1.duration_ms", verdict: "pass",
			desc: "repetition 1's T1 duration_ms is 100 for a 3 s stage",
			edit: func(c *lieCtx) { c.stage(1, rules.T1).DurationMS = 100 }},
		{name: "overran_without_timeout", class: verify.ClassTimeInconsistent, field: "repetitions[1].T2.timed_out", verdict: "pass",
			desc: "repetition 1's T2 lasted 70 s of its 60 s limit and did not time out",
			edit: func(c *lieCtx) {
				st := c.stage(1, rules.T2)
				st.DurationMS = 70000
				st.StartedAt = "2026-11-20T09:59:04Z"
				c.m.StartedAt = "2026-11-20T09:59:00Z"
				c.stage(1, rules.T1).StartedAt, c.stage(1, rules.T1).EndedAt = "2026-11-20T09:59:01Z", "2026-11-20T09:59:04Z"
			}},
		{name: "alive_at_end_exit_zero", class: verify.ClassTimeInconsistent, field: "repetitions[1].T4.liveness.alive_at_end", verdict: "pass",
			desc: "repetition 1's T4 alive at the end of the window with exit status 0, which the observer's stop cannot give",
			edit: func(c *lieCtx) { c.stage(1, rules.T4).ExitCode = intp(0) }},
		{name: "alive_longer_than_stage", class: verify.ClassTimeInconsistent, field: "repetitions[1].T4.liveness.alive_ms", verdict: "boot_failed", base: "boot_failed",
			desc: "repetition 1's T4 alive 2.5 s in a 2 s stage",
			edit: func(c *lieCtx) { c.stage(1, rules.T4).Liveness.AliveMS = 2500 }},
		{name: "test_date_not_finish", class: verify.ClassTimeInconsistent, field: "test_date", verdict: "pass", honest: true,
			desc: "test_date is the day before the run finished",
			edit: func(c *lieCtx) { c.m.TestDate = "2026-11-19" }},
		{name: "stage_after_finish", class: verify.ClassTimeInconsistent, field: "repetitions[2].T4.ended_at", verdict: "pass",
			desc: "finished_at is before repetition 2's T4 ended",
			edit: func(c *lieCtx) { c.m.FinishedAt = "2026-11-20T10:00:40Z" }},

		// 6. Subject and predicate.
		{name: "predicate_other_subject", class: verify.ClassSubjectMismatch, field: "subject", verdict: "pass",
			desc: "the signed predicate names another package than the manifest",
			pred: func(p *attest.Predicate) { p.Subject.Name = "other-plugin" }},
		{name: "predicate_other_tool", class: verify.ClassSubjectMismatch, field: "tool", verdict: "pass",
			desc: "the signed predicate names another tool version",
			pred: func(p *attest.Predicate) { p.Tool.Version = "9.9.9" }},
		{name: "metadata_other_version", class: verify.ClassSubjectMismatch, field: "subject.version", verdict: "pass", honest: true,
			desc: "static/package.json says 1.0.1, the subject 1.0.0",
			edit: func(c *lieCtx) {
				c.replaceIn(c.m.Static.Evidence["metadata"], `"version": "1.0.0"`, `"version": "1.0.1"`)
			}},
		{name: "metadata_version_number", class: verify.ClassSubjectMismatch, field: "subject", verdict: "pass", honest: true,
			desc: "static/package.json names another package with the version a number, which a reading into strings would skip",
			edit: func(c *lieCtx) {
				c.replaceIn(c.m.Static.Evidence["metadata"], `"name": "hello-dsh-plugin"`, `"name": "other-plugin"`)
				c.replaceIn(c.m.Static.Evidence["metadata"], `"version": "1.0.0"`, `"version": 666`)
			}},
		{name: "metadata_trailing_data", class: verify.ClassSubjectMismatch, field: "subject", verdict: "pass", honest: true,
			desc: "static/package.json names another package and ends in a stray byte, so T0 is unresolvable beside a T1 that installed the package",
			edit: func(c *lieCtx) {
				p := c.m.Static.Evidence["metadata"]
				c.replaceIn(p, `"name": "hello-dsh-plugin"`, `"name": "other-plugin"`)
				c.files[p] = append(c.files[p], 'x')
			}},
		{name: "subject_version_tag", class: verify.ClassSubjectMismatch, field: "subject.version", also: []verify.Class{V}, verdict: "install_failed",
			desc: "the subject version is the tag latest",
			edit: func(c *lieCtx) { c.m.Subject.Version = "latest" }},
		{name: "registry_but_tarball_installed", class: verify.ClassSubjectMismatch, field: "repetitions[1].T1.evidence.profile_package_json", verdict: "pass", honest: true,
			desc: "the subject says the registry's hello-dsh-plugin@1.0.0 was installed (spec, argv, condition, deviation agree); the profile package.json shows file:/pkgs/hello-dsh-plugin-1.0.0.tgz",
			edit: func(c *lieCtx) { c.registrySubject() }},
		{name: "registry_dependency_other_version", class: verify.ClassSubjectMismatch, field: "repetitions[1].T1.evidence.profile_package_json", verdict: "pass", honest: true,
			desc: "a registry subject hello-dsh-plugin@1.0.0 whose profile package.json depends on ^2.0.0, a range 1.0.0 does not satisfy",
			edit: func(c *lieCtx) {
				c.registrySubject()
				for r := 1; r <= 2; r++ {
					c.replaceIn(c.stage(r, rules.T1).Evidence["profile_package_json"], `"file:/pkgs/hello-dsh-plugin-1.0.0.tgz"`, `"^2.0.0"`)
				}
			}},
		{name: "local_dependency_other_tarball", class: verify.ClassSubjectMismatch, field: "repetitions[2].T1.evidence.profile_package_json", verdict: "pass", honest: true,
			desc: "repetition 2's profile package.json depends on file:/pkgs/hello-dsh-plugin-0.9.0.tgz, not the subject's tarball",
			edit: func(c *lieCtx) {
				c.replaceIn(c.stage(2, rules.T1).Evidence["profile_package_json"], "hello-dsh-plugin-1.0.0.tgz", "hello-dsh-plugin-0.9.0.tgz")
			}},
		{name: "duplicate_clause_result", class: V, field: "static.report.clauses[16]", verdict: "pass",
			desc: "T0 clause 5.1.1 reported twice",
			edit: func(c *lieCtx) {
				c.m.Static.Report.Clauses = append(c.m.Static.Report.Clauses, c.m.Static.Report.Clauses[0])
			}},
		{name: "clause_observed_two_lines", class: verify.ClassInputInvalid, field: "/static/report/clauses/0/observed", verdict: "pass",
			desc: "T0 clause 5.1.1's observed value, an informative text, rewritten as two lines (a writer's text is one line of printable text)",
			edit: func(c *lieCtx) { c.m.Static.Report.Clauses[0].Observed = "reviewed by hand\nRESULT: verified" }},
		{name: "clause_message_bidi_override", class: verify.ClassInputInvalid, field: "/static/report/clauses/0/message", verdict: "pass",
			desc: "T0 clause 5.1.1's message, an informative text, holds a right-to-left override (U+202E) that shows \"deifirev\" as \"verified\" (a writer's text holds no format character)",
			edit: func(c *lieCtx) { c.m.Static.Report.Clauses[0].Message = "the declaration is \u202edeifirev\u202c" }},
		{name: "clause_status_changed", class: V, field: "static.report.clauses[10].status", verdict: "pass",
			desc: "T0 clause 5.3.1's status, a normative value, rewritten as human judgement required",
			edit: func(c *lieCtx) { c.m.Static.Report.Clauses[10].Status = "human judgement required" }},
		{name: "first_error_other_line", class: V, field: "repetitions[1].T1.first_error", verdict: "install_failed", base: "install_failed",
			desc: "T1's first_error, an extracted output line and so normative as a whole, replaced by another line",
			edit: func(c *lieCtx) { c.stage(1, rules.T1).FirstError = "npm notice: all good" }},
		{name: "static_report_certified", class: verify.ClassForbiddenWord, field: "static.report.warnings[0]", verdict: "pass",
			desc: "the T0 report's warnings, its reason and clause 5.1.1's warnings say the plugin is DSHIO certified",
			edit: func(c *lieCtx) {
				r := &c.m.Static.Report
				r.Warnings = append(r.Warnings, "DSHIO certified: passed (certification: passed)")
				r.Reason = "certified"
				r.Clauses[0].Warnings = append(r.Clauses[0].Warnings, "certified by the DSHIO working group")
			}},
		{name: "clause_material_certified", class: verify.ClassForbiddenWord, field: "static.report.clauses[13].material[0]", verdict: "pass",
			desc: "clause 5.5.1's guiding questions and material are replaced by a statement that the plugin is certified",
			edit: func(c *lieCtx) {
				cl := &c.m.Static.Report.Clauses[13]
				if cl.Clause != "5.5.1" {
					panic("clause 13 is " + cl.Clause + ", not 5.5.1")
				}
				cl.Questions = []string{"none: the plugin is certified"}
				cl.Material = []string{"certified"}
			}},
		{name: "unresolvable_read", class: verify.ClassSubjectMismatch, field: "static.evidence.metadata", verdict: "pass", honest: true,
			desc: "a dynamic bundle whose T0 is unresolvable because the metadata was left out",
			edit: func(c *lieCtx) {
				c.removeFile(c.m.Static.Evidence["metadata"])
				delete(c.m.Static.Evidence, "metadata")
			}},
		{name: "t3_name_from_patch", class: V, field: "repetitions[1].T3.status", verdict: "installs_but_not_registered",
			desc: "patch and dump name the entry other-name, not the package: T3 compares with the package name (DSHIO/T 20 8.4)",
			edit: func(c *lieCtx) {
				c.replaceIn(c.m.Static.Evidence["patch"], `name: "hello-dsh-plugin"`, `name: "other-name"`)
				for r := 1; r <= 2; r++ {
					st := c.stage(r, rules.T3)
					c.replaceIn(st.Evidence["stdout"], "name: hello-dsh-plugin", "name: other-name")
					c.replaceIn(st.Evidence["merged"], "name: hello-dsh-plugin", "name: other-name")
				}
			}},
		{name: "t3_disabled_by_merge_key", class: V, field: "repetitions[1].T3.status", verdict: "config_failed",
			desc: "the dump's hello-dsh entry carries a YAML merge key (<<: {disabled: true}) and T3 is still recorded passed: js-yaml with dsh's JSON schema reads a plain key \"<<\", a YAML 1.1 loader merges disabled: true in; the readings differ, so the dump is refused (config_failed)",
			edit: func(c *lieCtx) { c.dumpEntry("  <<: {disabled: true}\n") }},
		// The T3 dump read as dsh's loader reads it: js-yaml 4.3.1 with
		// dsh's JSON schema, and disabled by JavaScript's truthiness.
		{name: "t3_disabled_string_false", class: V, field: "repetitions[1].T3.status", verdict: "installs_but_not_registered",
			desc: "the dump's hello-dsh entry says disabled: 'false', a non-empty string and so truthy to JavaScript: dsh's loader disables the entry, while T3 is recorded passed",
			edit: func(c *lieCtx) { c.entryFields("  disabled: 'false'\n") }},
		{name: "t3_disabled_no", class: V, field: "repetitions[1].T3.status", verdict: "installs_but_not_registered",
			desc: "the dump's hello-dsh entry says disabled: no, false to a YAML 1.1 reader but the string \"no\" to js-yaml's JSON schema, truthy: dsh's loader disables the entry, while T3 is recorded passed",
			edit: func(c *lieCtx) { c.entryFields("  disabled: no\n") }},
		{name: "t3_disabled_expression", class: V, field: "repetitions[1].T3.status", verdict: "installs_but_not_registered",
			desc: "the dump's hello-dsh entry says disabled: !!js 'tru' + 'e', an expression dsh's loader evaluates at activation and dshaudit does not: whether the entry is in effect is undecided, while T3 is recorded passed",
			edit: func(c *lieCtx) { c.entryFields("  disabled: !!js \"'tru' + 'e'\"\n") }},
		{name: "t3_entry_twice", class: V, field: "repetitions[1].T3.status", verdict: "installs_but_not_registered", also: []verify.Class{verify.ClassSubjectMismatch},
			desc: "the dump holds the hello-dsh entry twice, the second disabled: true; which one dsh's loader keeps is not in the dump, and T3 is recorded passed",
			edit: func(c *lieCtx) { c.dumpEntry("- id: hello-dsh\n  name: hello-dsh-plugin\n  disabled: true\n") }},
		{name: "t3_other_entry_names_package_disabled", class: V, field: "repetitions[1].T3.status", verdict: "installs_but_not_registered", also: []verify.Class{verify.ClassSubjectMismatch},
			desc: "a second root entry (id hello-dsh-2) names the package and is disabled: 'yes'; the entries naming the plugin disagree, and T3 is recorded passed",
			edit: func(c *lieCtx) { c.dumpEntry("- id: hello-dsh-2\n  name: hello-dsh-plugin\n  disabled: 'yes'\n") }},
		{name: "t3_entry_in_another_section", class: verify.ClassSubjectMismatch, field: "repetitions[1].T3.evidence.stdout", verdict: "pass", spec: "What the verifier cross-checks",
			desc: "the dump holds the hello-dsh entry without dsh's \"# == hello-dsh-plugin\" section comment, so it stands in @deepseek-ai/dsh-web-app's section: the plugin's own patch never appended it, while T3 is recorded passed",
			edit: func(c *lieCtx) { c.streams(rules.T3, "stdout", "# == hello-dsh-plugin\n", "") }},
		{name: "t3_entry_field_not_in_patch", class: verify.ClassSubjectMismatch, field: "repetitions[1].T3.evidence.stdout", verdict: "pass", spec: "What the verifier cross-checks",
			desc: "the dump's hello-dsh entry carries config: {port: 8080}, which the recorded patch's insert entry lacks: dsh composed another patch than the one T0 judged",
			edit: func(c *lieCtx) { c.dumpEntry("  config:\n    port: 8080\n") }},
		{name: "t3_duplicate_key", class: V, field: "repetitions[1].T3.status", verdict: "config_failed",
			desc: "the dump's hello-dsh entry writes disabled twice (true, then false): a reader keeping the last sees it enabled, js-yaml (dsh's loader) throws on the duplicated key; T3 is recorded passed",
			edit: func(c *lieCtx) { c.dumpEntry("  disabled: true\n  disabled: false\n") }},

		// Conflicts, not one match: only the consumer's own line counts,
		// and every line naming the plugin must agree (SPEC.md "Consumers").
		{name: "t1_added_line_outside_summary", class: V, field: "repetitions[1].T1.status", verdict: "install_failed",
			desc: "pnpm's summary adds other-dsh-plugin; the line \"+ hello-dsh-plugin 1.0.0\" stands before it, outside the dependencies: block (as a plugin's install script could print it), and T1 is recorded passed",
			edit: func(c *lieCtx) {
				c.streams(rules.T1, "stdout", "dependencies:\n+ hello-dsh-plugin 1.0.0\n", "+ hello-dsh-plugin 1.0.0\n\ndependencies:\n+ other-dsh-plugin 1.0.0\n")
			}},
		{name: "t1_added_twice", class: V, field: "repetitions[1].T1.status", verdict: "install_failed",
			desc: "pnpm's summary adds hello-dsh-plugin at 1.0.0 and at 0.9.0: the added-dependency lines conflict, and T1 is recorded passed",
			edit: func(c *lieCtx) {
				c.streams(rules.T1, "stdout", "+ hello-dsh-plugin 1.0.0\n", "+ hello-dsh-plugin 1.0.0\n+ hello-dsh-plugin 0.9.0\n")
			}},
		{name: "t2_listed_twice", class: V, field: "repetitions[1].T2.status", verdict: "install_failed",
			desc: "the listing's dependencies block names hello-dsh-plugin at 1.0.0 and at 0.9.0: the lines conflict, and T2 is recorded passed",
			edit: func(c *lieCtx) {
				c.streams(rules.T2, "stdout", "hello-dsh-plugin 1.0.0", "hello-dsh-plugin 1.0.0\nhello-dsh-plugin 0.9.0")
			}},
		{name: "t4_marker_twice", class: V, field: "repetitions[1].T4.status", verdict: "boot_failed",
			desc: "T4's stdout holds the startup marker twice, as when a plugin prints dsh's line itself: at most one is dsh's, which one cannot be told, and T4 is recorded passed",
			edit: func(c *lieCtx) {
				c.streams(rules.T4, "stdout", "dsh web: http://127.0.0.1:3080\n", "dsh web: http://127.0.0.1:3080\ndsh web: http://127.0.0.1:3080\n")
			}},
		{name: "t4_marker_other_form", class: V, field: "repetitions[1].T4.status", verdict: "boot_failed",
			desc: "T4's only marker-like line is \"dsh web: http://0.0.0.0:3080 ready\", which dsh-web-app never prints (console.log of http://127.0.0.1:<port>), and T4 is recorded passed",
			edit: func(c *lieCtx) {
				c.streams(rules.T4, "stdout", "dsh web: http://127.0.0.1:3080\n", "dsh web: http://0.0.0.0:3080 ready\n")
			}},

		// 7. Fingerprint.
		{name: "fingerprint_t5_fields", class: verify.ClassFingerprintInvalid, field: "fingerprint", verdict: "pass", honest: true,
			desc: "the fingerprint carries the T5 model fields",
			edit: func(c *lieCtx) {
				c.m.Fingerprint += ";model=deepseek-v4.1-flash-0731;temp=0;maxtok=4096;tools=7"
			}},
		{name: "fingerprint_field_order", class: verify.ClassFingerprintInvalid, field: "fingerprint", verdict: "pass", honest: true,
			desc: "the fingerprint gives pnpm before node",
			edit: func(c *lieCtx) {
				c.m.Fingerprint = strings.Replace(c.m.Fingerprint, "node=24.11.1;pnpm=9.15.9", "pnpm=9.15.9;node=24.11.1", 1)
			}},
		{name: "pnpm_version_lie", class: verify.ClassFingerprintInvalid, field: "fingerprint", verdict: "pass", honest: true,
			desc: "fingerprint and environment file say pnpm 9.15.8; T1 prints using pnpm v9.15.9",
			edit: func(c *lieCtx) {
				c.fingerprint("pnpm", "9.15.8")
				c.files[c.m.Environment.Evidence["pnpm_version"]] = []byte("9.15.8\n")
			}},
		{name: "dsh_version_lie", class: verify.ClassFingerprintInvalid, field: "fingerprint", verdict: "boot_failed", base: "boot_failed", honest: true,
			desc: "claims dsh 0.2.2-rc.1 everywhere; T4's stack trace shows dsh@0.1.0-rc.8 installed",
			edit: func(c *lieCtx) {
				c.fingerprint("dsh", "0.2.2-rc.1")
				c.files[c.m.Environment.Evidence["dsh_version"]] = []byte("0.2.2-rc.1\n")
				c.fixed(assemble.CondDSHVersion).Value = "0.2.2-rc.1"
				c.dropDeviation(assemble.DeviationDSHVersion)
			}},
		{name: "environment_file_disagrees", class: verify.ClassFingerprintInvalid, field: "fingerprint", verdict: "pass",
			desc: "the node version output says v22.0.0, the fingerprint node=24.11.1",
			edit: func(c *lieCtx) { c.files[c.m.Environment.Evidence["node_version"]] = []byte("v22.0.0\n") }},
		{name: "node_version_lie", class: verify.ClassFingerprintInvalid, field: "fingerprint", verdict: "boot_failed", base: "boot_failed", honest: true,
			desc: "fingerprint and environment file say node 22.0.0; T4's uncaught exception ends with Node.js v24.11.1",
			edit: func(c *lieCtx) {
				c.fingerprint("node", "22.0.0")
				c.files[c.m.Environment.Evidence["node_version"]] = []byte("v22.0.0\n")
			}},
		{name: "node_version_lie_escaped", class: verify.ClassFingerprintInvalid, field: "fingerprint", verdict: "boot_failed", base: "boot_failed", honest: true,
			desc: "node_version_lie with an escape sequence (ESC [0m) before T4's Node.js v24.11.1, which cleaning removes: the line is Node's version line all the same",
			edit: func(c *lieCtx) {
				c.fingerprint("node", "22.0.0")
				c.files[c.m.Environment.Evidence["node_version"]] = []byte("v22.0.0\n")
				c.streams(rules.T4, "stderr", "\nNode.js v24.11.1\n", "\n\x1b[0mNode.js v24.11.1\n")
			}},
		{name: "environment_output_missing", class: verify.ClassFingerprintInvalid, field: "environment.evidence.dsh_version", verdict: "pass",
			desc: "no dsh --version output backs the fingerprint",
			edit: func(c *lieCtx) {
				c.removeFile(c.m.Environment.Evidence["dsh_version"])
				delete(c.m.Environment.Evidence, "dsh_version")
			}},

		// 8. Forbidden words.
		{name: "certified_in_deviation", class: verify.ClassForbiddenWord, field: "deviations[0]", verdict: "pass", honest: true,
			desc: "a deviation's why says the run is DSHIO certified",
			edit: func(c *lieCtx) { c.m.Deviations[0].Why = "newest dsh; the plugin is DSHIO certified anyway" }},
		{name: "certified_cyrillic_condition", class: verify.ClassForbiddenWord, field: "conditions.variable[0]", verdict: "pass", also: []verify.Class{verify.ClassInputInvalid},
			desc: "a variable condition spells сertified with a Cyrillic es",
			edit: func(c *lieCtx) { c.m.Conditions.Variable[0].Value = "run by an \u0441ertified lab" }},
		{name: "certified_fullwidth_tool", class: verify.ClassForbiddenWord, field: "tool.name", verdict: "pass", also: []verify.Class{verify.ClassInputInvalid},
			desc: "the tool name spells certified in full-width letters",
			edit: func(c *lieCtx) { c.m.Tool.Name = "ｃｅｒｔｉｆｉｅｄ-runner" }},
		{name: "certified_exact_name", class: verify.ClassForbiddenWord, field: "conditions.variable[2]", verdict: "pass", base: "certified_named_plugin", honest: true, also: []verify.Class{verify.ClassInputInvalid},
			desc: "the plugin renamed exactly certified, and a variable condition says DSHIO certified build: the name exempts the word only where a package name stands",
			edit: func(c *lieCtx) {
				c.renamePackage("certified-hello-dsh-plugin", "certified")
				c.m.Conditions.Variable = append(c.m.Conditions.Variable, manifest.Condition{Name: "note", Value: "DSHIO certified build"})
			}},
		{name: "certified_zero_width_condition", class: verify.ClassForbiddenWord, field: "conditions.variable[1]", verdict: "pass", also: []verify.Class{verify.ClassInputInvalid},
			desc: "a variable condition hides a zero-width space inside cer\u200btified",
			edit: func(c *lieCtx) { c.m.Conditions.Variable[1].Value = "podman, cer\u200btified setup" }},

		// 11. Missing or untrusted evidence.
		{name: "liveness_missing", class: verify.ClassEvidenceMissing, field: "repetitions[1].T4.liveness", verdict: "",
			desc: "repetition 1's T4 has no liveness observation: no verdict is derived",
			edit: func(c *lieCtx) { c.stage(1, rules.T4).Liveness = nil }},
		{name: "merged_role_missing", class: verify.ClassEvidenceMissing, field: "repetitions[1].T2.evidence.merged", verdict: "",
			desc: "repetition 2's T2 has no merged record",
			edit: func(c *lieCtx) {
				st := c.stage(1, rules.T2)
				c.removeFile(st.Evidence["merged"])
				delete(st.Evidence, "merged")
			}},
		{name: "entry_declaration_dropped", class: verify.ClassEvidenceMissing, field: "static.evidence.entry_declaration", verdict: "pass", honest: true,
			desc: "the patch entry says group: \"yes\" (EntryOptions allows boolean or null) and the entry declaration is left out, so clause 5.1.6 is not checkable and a declaration of conformity is issued",
			edit: func(c *lieCtx) {
				c.badEntryGroup()
				c.removeFile(c.m.Static.Evidence[manifest.RoleEntryDeclaration])
				delete(c.m.Static.Evidence, manifest.RoleEntryDeclaration)
			}},
		{name: "entry_declaration_unreadable", class: verify.ClassEvidenceMissing, field: "static.evidence.entry_declaration", verdict: "pass", honest: true,
			desc: "the patch entry says group: \"yes\" and the recorded entry declaration has no EntryOptions interface, so clause 5.1.6 is not checkable",
			edit: func(c *lieCtx) {
				c.badEntryGroup()
				c.files[c.m.Static.Evidence[manifest.RoleEntryDeclaration]] = []byte("export interface Options {\n    group?: any;\n}\n")
			}},
		{name: "profile_package_json_missing", class: verify.ClassEvidenceMissing, field: "repetitions[2].T1.evidence.profile_package_json", verdict: "",
			desc: "repetition 2's T1 has no profile package.json",
			edit: func(c *lieCtx) {
				st := c.stage(2, rules.T1)
				c.removeFile(st.Evidence["profile_package_json"])
				delete(st.Evidence, "profile_package_json")
			}},
	}
}
