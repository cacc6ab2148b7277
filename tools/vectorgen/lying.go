package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/verify"
)

// lie is one lying vector: a bundle validly signed by the writer's own
// key whose manifest states something its evidence, its other recorded
// facts or the cited editions contradict (SPEC.md "Test vectors").
type lie struct {
	name, desc string
	// class and field are the finding the verifier must report.
	class verify.Class
	field string
	// also are further classes the same lie necessarily causes.
	also []verify.Class
	// verdict is the re-derived overall verdict ("" when the lie leaves
	// none derivable).
	verdict string
	// base is the valid vector the lie starts from ("" = pass).
	base string
	edit func(c *lieCtx)
	// honest re-derives every claimed field after edit, as a writer that
	// derives honestly from the facts it invented would.
	honest bool
	// pred, when set, changes the signed predicate.
	pred func(p *attest.Predicate)
	// keepTarball leaves the held tarball as the edit left it; otherwise
	// it is repacked to agree with the recorded metadata and patch
	// (lieCtx.repack), so that each lie says one thing.
	keepTarball bool
	// spec, when set, is the heading of the SPEC.md section whose
	// decision the lie pins.
	spec string
}

// lieCtx is the bundle being edited.
type lieCtx struct {
	m     *manifest.Manifest
	files map[string][]byte
}

func (c *lieCtx) stage(rep int, st rules.Stage) *manifest.Stage {
	for i := range c.m.Repetitions[rep-1].Stages {
		if c.m.Repetitions[rep-1].Stages[i].Stage == string(st) {
			return &c.m.Repetitions[rep-1].Stages[i]
		}
	}
	panic(fmt.Sprintf("no %s in repetition %d", st, rep))
}

func (c *lieCtx) fixed(name string) *manifest.Condition {
	for i := range c.m.Conditions.Fixed {
		if c.m.Conditions.Fixed[i].Name == name {
			return &c.m.Conditions.Fixed[i]
		}
	}
	panic("no fixed condition " + name)
}

func (c *lieCtx) deviation(what string) int {
	for i, d := range c.m.Deviations {
		if d.What == what {
			return i
		}
	}
	panic("no deviation " + what)
}

func (c *lieCtx) dropDeviation(what string) {
	i := c.deviation(what)
	c.m.Deviations = slices.Delete(c.m.Deviations, i, i+1)
}

// dumpEntry appends text after the hello-dsh entry's name line in both
// repetitions' T3 dump (stdout and the merged stream), so it becomes part
// of that entry (or follows it as another root entry).
func (c *lieCtx) dumpEntry(text string) {
	for r := 1; r <= 2; r++ {
		st := c.stage(r, rules.T3)
		c.replaceIn(st.Evidence["stdout"], "  name: hello-dsh-plugin\n", "  name: hello-dsh-plugin\n"+text)
		c.replaceIn(st.Evidence["merged"], "  name: hello-dsh-plugin\n", "  name: hello-dsh-plugin\n"+text)
	}
}

// entryFields appends the fields text (lines indented two spaces, as
// dumpEntry takes them) to the hello-dsh entry of both the dump and the
// recorded patch, as an honest run whose patch inserts those fields shows
// them: the dump's entry is the patch's row (SPEC.md "What the verifier
// cross-checks", class 6).
func (c *lieCtx) entryFields(text string) {
	c.dumpEntry(text)
	lines := strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n")
	for i := range lines {
		lines[i] = "    " + lines[i]
	}
	c.replaceIn(c.m.Static.Evidence[manifest.RolePatch], "\n      name: \"hello-dsh-plugin\"\n", "\n      name: \"hello-dsh-plugin\"\n"+strings.Join(lines, "")+"\n")
}

// streams replaces old with new in stage st's stream role ("stdout" or
// "stderr") and in its merged stream, in both repetitions, so that the
// streams stay consistent with each other.
func (c *lieCtx) streams(st rules.Stage, role, old, new string) {
	for r := 1; r <= 2; r++ {
		s := c.stage(r, st)
		c.replaceIn(s.Evidence[role], old, new)
		c.replaceIn(s.Evidence["merged"], old, new)
	}
}

// replaceIn replaces old with new in the file at path.
func (c *lieCtx) replaceIn(path, old, new string) {
	b := c.files[path]
	if !bytes.Contains(b, []byte(old)) {
		panic(fmt.Sprintf("%s does not contain %q", path, old))
	}
	c.files[path] = bytes.ReplaceAll(b, []byte(old), []byte(new))
}

func (c *lieCtx) fingerprint(key, value string) {
	parts := strings.Split(c.m.Fingerprint, ";")
	for i, p := range parts {
		if strings.HasPrefix(p, key+"=") {
			parts[i] = key + "=" + value
		}
	}
	c.m.Fingerprint = strings.Join(parts, ";")
}

// registrySubject restates the local subject as the registry's
// name@version everywhere the spec appears (subject, T1 argv, the T1
// command condition and deviation), leaving the evidence as it is.
func (c *lieCtx) registrySubject() {
	old := c.m.Subject.Spec
	spec := c.m.Subject.Name + "@" + c.m.Subject.Version
	c.m.Subject.Source, c.m.Subject.Spec = "registry", spec
	for r := range c.m.Repetitions {
		st := c.stage(r+1, rules.T1)
		for i, a := range st.Argv {
			if a == old {
				st.Argv[i] = spec
			}
		}
	}
	f := c.fixed(assemble.CondCommand(rules.T1))
	f.Value = strings.ReplaceAll(f.Value, old, spec)
	for i := range c.m.Deviations {
		d := &c.m.Deviations[i]
		d.Standard = strings.ReplaceAll(d.Standard, old, spec)
		d.ChangedTo = strings.ReplaceAll(d.ChangedTo, old, spec)
	}
}

// registryInstall makes the subject the registry's, with each profile
// package.json depending on its version as pnpm writes it.
func (c *lieCtx) registryInstall() {
	c.registrySubject()
	for r := 1; r <= 2; r++ {
		c.replaceIn(c.stage(r, rules.T1).Evidence["profile_package_json"], `"file:/pkgs/hello-dsh-plugin-1.0.0.tgz"`, `"1.0.0"`)
	}
}

// traceT4 adds a stack frame into the plugin's directory of pnpm's
// virtual store named dir ("hello-dsh-plugin@1.0.0") after T4's marker,
// as a warning's trace prints it.
func (c *lieCtx) traceT4(dir string) {
	c.streams(rules.T4, "stdout", "dsh web: http://127.0.0.1:3080\n", "dsh web: http://127.0.0.1:3080\n    at apply (file:///dsh-home/profiles/web/node_modules/.pnpm/"+dir+"/node_modules/hello-dsh-plugin/lib/index.js:2:3)\n")
}

func (c *lieCtx) removeFile(path string) { delete(c.files, path) }

// standardRun makes the bundle a run under the standard's conditions
// throughout, usable for certification once derived honestly: the
// baseline dsh in the fingerprint, its version output and its condition,
// every stage's verbatim command, the reference writer's profile and
// isolation, and no deviation.
func (c *lieCtx) standardRun() {
	base := c.m.Baseline
	c.fingerprint("dsh", base)
	c.files[c.m.Environment.Evidence[manifest.RoleDSHVersion]] = []byte(base + "\n")
	c.fixed(assemble.CondDSHVersion).Value = base
	for _, s := range rules.DynamicStages {
		std := assemble.StandardArgv(s, c.m.Subject.Spec)
		c.fixed(assemble.CondCommand(s)).Value = strings.Join(std, " ")
		for r := range c.m.Repetitions {
			c.stage(r+1, s).Argv = slices.Clone(std)
		}
	}
	c.fixed(assemble.CondProfile).Value = assemble.Edition2026.Profile[0]
	c.fixed(assemble.CondIsolation).Value = assemble.Edition2026.Isolation[0]
	c.m.Deviations = []manifest.Deviation{}
}

// renamePackage replaces old with new in every file and every manifest
// string (through the canonical encoding), as a writer renaming the
// package everywhere would.
func (c *lieCtx) renamePackage(old, new string) {
	for p, b := range c.files {
		c.files[p] = bytes.ReplaceAll(b, []byte(old), []byte(new))
	}
	raw, err := manifest.Encode(c.m)
	if err != nil {
		panic(err)
	}
	m, err := manifest.Decode(bytes.ReplaceAll(raw, []byte(old), []byte(new)))
	if err != nil {
		panic(err)
	}
	*c.m = *m
}

// badEntryGroup gives the patch's entry group: "yes", which the
// EntryOptions declaration (group?: boolean | null) makes clause 5.1.6
// non-conforming.
func (c *lieCtx) badEntryGroup() {
	c.entryFields("  group: 'yes'\n")
}

// lieBase deep-copies a valid vector's contents.
func lieBase(c *contents) (*lieCtx, error) {
	m, err := manifest.Decode(c.raw)
	if err != nil {
		return nil, err
	}
	files := make(map[string][]byte, len(c.files))
	for k, v := range c.files {
		files[k] = append([]byte(nil), v...)
	}
	return &lieCtx{m: m, files: files}, nil
}

// reclaim fills every claimed field from the derivation, as
// assemble.Build does: the writer derived honestly from what it recorded.
func reclaim(m *manifest.Manifest, files map[string][]byte) {
	d, _ := assemble.Derive(m, files, rules.DefaultLimits())
	assemble.Claim(m, d)
}

func (g *gen) lying() error {
	for _, l := range append(append(append(append(append(lies(), consumerLies()...), rebuildLies()...), tarballLies()...), decisionLies()...), modelLies()...) {
		base := g.pass
		if l.base != "" {
			base = g.bases[l.base]
		}
		if base == nil {
			return fmt.Errorf("%s: no base %q", l.name, l.base)
		}
		c, err := lieBase(base)
		if err != nil {
			return err
		}
		if l.edit != nil {
			l.edit(c)
		}
		if !l.keepTarball {
			c.repack()
		}
		if l.honest {
			reclaim(c.m, c.files)
		}
		signed, err := g.resign(c, l.pred)
		if err != nil {
			return fmt.Errorf("%s: %w", l.name, err)
		}
		all := append([]verify.Class{l.class}, l.also...)
		var classes []string
		for _, a := range all {
			classes = append(classes, string(a))
		}
		status := string(verify.StatusFor(all))
		if err := g.emitLie("lie_"+l.name, "lying: "+l.desc, signed, status, classes, l.verdict, l.field); err != nil {
			return err
		}
		if l.spec == "" {
			l.spec = lieSpecs[l.name]
		}
		g.vectors[len(g.vectors)-1].Spec = l.spec
	}
	return nil
}

// resign lists c's files, encodes its manifest and signs it with the
// writer's key, as an honest writer would sign what it wrote; pred, when
// set, changes the signed predicate.
func (g *gen) resign(c *lieCtx, pred func(p *attest.Predicate)) (*contents, error) {
	c.m.Files = bundle.FileList(c.files)
	raw, err := manifest.Encode(c.m)
	if err != nil {
		return nil, err
	}
	p := attest.Predicate{
		Tool:    attest.Tool{Name: c.m.Tool.Name, Version: c.m.Tool.Version},
		Subject: attest.Package{Name: c.m.Subject.Name, Version: c.m.Subject.Version},
		Verdict: assemble.PredicateVerdict(c.m),
	}
	if pred != nil {
		pred(&p)
	}
	sig, err := attest.Sign(g.ctx, raw, p, g.signer)
	if err != nil {
		return nil, err
	}
	return &contents{m: c.m, raw: raw, sig: sig, files: c.files}, nil
}
