package main

import (
	"fmt"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// truth is a true variant: a valid bundle in legal but unusual formatting
// that the real consumer reads the same way as the plain one, derived
// honestly and signed. It must verify (SPEC.md "Consumers").
type truth struct {
	name, desc, verdict string
	edit                func(c *lieCtx)
	// spec, when set, is the heading of the SPEC.md section whose
	// decision the variant pins.
	spec string
}

func truths() []truth {
	return append([]truth{
		{name: "true_standard_conditions", verdict: "pass",
			desc: "every condition the standard's (the baseline dsh, the verbatim commands, the reference writer's profile and isolation) and no deviation: usable for certification",
			edit: func(c *lieCtx) { c.standardRun() }},
		{name: "true_isolation_deviated", verdict: "pass",
			desc: "the standard run, but its isolation condition says --privileged with seccomp off and the isolation deviation records it: verifies, not usable for certification",
			edit: func(c *lieCtx) {
				c.standardRun()
				v := "a fresh container per command, --privileged, seccomp off"
				c.fixed(assemble.CondIsolation).Value = v
				c.m.Deviations = append(c.m.Deviations, manifest.Deviation{What: assemble.DeviationIsolation, Standard: assemble.Edition2026.Isolation[0], ChangedTo: v,
					Why: "the plugin's install script needs a device node", Clause: "DSHIO/T 21 5.1.5"})
			}},
		{name: "true_installed_size_measured", verdict: "pass", spec: "The tested tarball",
			desc: "static.installed_size is 20,480 bytes, the package's files as a file system stores them beside pnpm's own files: at least the 356 bytes of the held tarball's files",
			edit: func(c *lieCtx) { c.m.Static.InstalledSize = 20480 }},
		{name: "true_installed_size_below_tarball_after_postinstall", verdict: "pass", spec: "The tested tarball",
			desc: "the package declares a postinstall script, which may delete its own files, and static.installed_size is 100 bytes, below the 356 bytes of the tarball's files: not compared",
			edit: func(c *lieCtx) {
				c.replaceIn(c.m.Static.Evidence[manifest.RoleMetadata], "\"main\": \"lib/index.js\",\n", "\"main\": \"lib/index.js\",\n  \"scripts\": {\"postinstall\": \"node lib/index.js\"},\n")
				c.m.Static.InstalledSize = 100
			}},
		{name: "true_t3_disabled_false", verdict: "pass",
			desc: "the dump's hello-dsh entry says disabled: false, falsy to JavaScript: dsh's loader mounts it",
			edit: func(c *lieCtx) { c.entryFields("  disabled: false\n") }},
		{name: "true_t3_disabled_zero", verdict: "pass",
			desc: "the dump's hello-dsh entry says disabled: 0, falsy to JavaScript, beside a config of an empty string and a null",
			edit: func(c *lieCtx) { c.entryFields("  disabled: 0\n  config:\n    note: ''\n    off: null\n") }},
		{name: "true_t3_disabled_False_capitalised", verdict: "pass",
			desc: "the dump's hello-dsh entry says disabled: False, the boolean false to js-yaml's JSON schema",
			edit: func(c *lieCtx) { c.entryFields("  disabled: False\n") }},
		{name: "true_t3_quoted_keys_and_comment", verdict: "pass",
			desc: "the dump's hello-dsh entry has a quoted key and a comment: the same mapping to js-yaml",
			edit: func(c *lieCtx) { c.entryFields("  \"config\": {} # no settings\n") }},
		{name: "true_t3_entry_set_by_own_override", verdict: "pass", spec: "What the verifier cross-checks",
			desc: "the patch inserts hello-dsh and then, in a later item, sets its config: {greeting: hi}; the dump's entry carries that config in the plugin's own section, the row dsh's patch algorithm composes",
			edit: func(c *lieCtx) {
				c.dumpEntry("  config:\n    greeting: hi\n")
				c.replaceIn(c.m.Static.Evidence[manifest.RolePatch], "\n      name: \"hello-dsh-plugin\"\n", "\n      name: \"hello-dsh-plugin\"\n- id: hello-dsh\n  config:\n    greeting: hi\n")
			}},
		{name: "true_t1_summary_with_other_packages", verdict: "pass",
			desc: "pnpm's summary adds another package beside the plugin and removes a third: the plugin's one line is pnpm's added-dependency line",
			edit: func(c *lieCtx) {
				c.streams(rules.T1, "stdout", "+ hello-dsh-plugin 1.0.0\n", "+ a-dsh-helper 2.0.0\n+ hello-dsh-plugin 1.0.0 (1.0.1 is available)\n- b-dsh-helper 1.0.0\n")
			}},
		{name: "true_t2_two_projects", verdict: "pass",
			desc: "the listing shows a second project whose dependencies block lists the plugin at the same version",
			edit: func(c *lieCtx) {
				c.streams(rules.T2, "stdout", "hello-dsh-plugin 1.0.0", "hello-dsh-plugin 1.0.0\n\nother /o\n\ndependencies:\nhello-dsh-plugin 1.0.0")
			}},
		{name: "true_t4_marker_with_browser_line", verdict: "pass",
			desc: "T4's stdout has dsh's marker and dsh-web-app's browser line (\"dsh web: opening the default browser; …\"), which is no second marker",
			edit: func(c *lieCtx) {
				c.streams(rules.T4, "stdout", "dsh web: http://127.0.0.1:3080\n", "dsh web: http://127.0.0.1:3080\ndsh web: opening the default browser; pass --no-open to disable\n")
			}},
	}, append(decisionTruths(), modelTruths()...)...)
}

// truthful emits the true variants of the pass vector.
func (g *gen) truthful() error {
	for _, tr := range truths() {
		c, err := lieBase(g.pass)
		if err != nil {
			return err
		}
		tr.edit(c)
		c.repack()
		reclaim(c.m, c.files)
		c.m.Files = bundle.FileList(c.files)
		raw, err := manifest.Encode(c.m)
		if err != nil {
			return fmt.Errorf("%s: %w", tr.name, err)
		}
		pred := attest.Predicate{
			Tool:    attest.Tool{Name: c.m.Tool.Name, Version: c.m.Tool.Version},
			Subject: attest.Package{Name: c.m.Subject.Name, Version: c.m.Subject.Version},
			Verdict: assemble.PredicateVerdict(c.m),
		}
		sig, err := attest.Sign(g.ctx, raw, pred, g.signer)
		if err != nil {
			return fmt.Errorf("%s: %w", tr.name, err)
		}
		if got := c.m.Claimed.Verdict; got != tr.verdict {
			return fmt.Errorf("%s: derived %q, want %q", tr.name, got, tr.verdict)
		}
		if err := g.emit(tr.name, "valid: "+tr.desc, &contents{m: c.m, raw: raw, sig: sig, files: c.files}, "verified", nil, tr.verdict); err != nil {
			return err
		}
		g.vectors[len(g.vectors)-1].Spec = tr.spec
	}
	return nil
}
