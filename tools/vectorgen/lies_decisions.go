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
		{name: "true_t4_marker_lan_ipv6", verdict: "pass", spec: "T4 boot",
			desc: "T4's marker names a LAN address whose host is an IPv6 literal, \"dsh web: http://127.0.0.1:3080 (LAN: http://[fe80::1]:3080)\": the host is any run of characters other than space and parentheses",
			edit: func(c *lieCtx) {
				c.streams(rules.T4, "stdout", "dsh web: http://127.0.0.1:3080\n", "dsh web: http://127.0.0.1:3080 (LAN: http://[fe80::1]:3080)\n")
			}},
	}
}

// lieSpecs are the sections earlier lies pin, for the kit's index.
var lieSpecs = map[string]string{
	"environment_output_missing":    "Fingerprint cross-checks",
	"dump_entry_not_in_patch":       "What the verifier cross-checks",
	"t1_added_line_outside_summary": "T1 install",
	"t4_marker_other_form":          "T4 boot",
}
