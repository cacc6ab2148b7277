package main

import (
	"fmt"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/manifest"
)

// truth is a true variant: a valid bundle in legal but unusual formatting
// that the real consumer reads the same way as the plain one, derived
// honestly and signed. It must verify (SPEC.md "Consumers").
type truth struct {
	name, desc, verdict string
	edit                func(c *lieCtx)
}

func truths() []truth {
	return []truth{
		{name: "true_t3_disabled_false", verdict: "pass",
			desc: "the dump's hello-dsh entry says disabled: false, falsy to JavaScript: dsh's loader mounts it",
			edit: func(c *lieCtx) { c.dumpEntry("  disabled: false\n") }},
		{name: "true_t3_disabled_zero", verdict: "pass",
			desc: "the dump's hello-dsh entry says disabled: 0, falsy to JavaScript, beside a config of an empty string and a null",
			edit: func(c *lieCtx) { c.dumpEntry("  disabled: 0\n  config:\n    note: ''\n    off: null\n") }},
		{name: "true_t3_disabled_False_capitalised", verdict: "pass",
			desc: "the dump's hello-dsh entry says disabled: False, the boolean false to js-yaml's JSON schema",
			edit: func(c *lieCtx) { c.dumpEntry("  disabled: False\n") }},
		{name: "true_t3_quoted_keys_and_comment", verdict: "pass",
			desc: "the dump's hello-dsh entry has a quoted key and a comment: the same mapping to js-yaml",
			edit: func(c *lieCtx) { c.dumpEntry("  \"config\": {} # no settings\n") }},
	}
}

// truthful emits the true variants of the pass vector.
func (g *gen) truthful() error {
	for _, tr := range truths() {
		c, err := lieBase(g.pass)
		if err != nil {
			return err
		}
		tr.edit(c)
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
	}
	return nil
}
