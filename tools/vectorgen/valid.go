package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

type gen struct {
	ctx           context.Context
	evidence, out string
	signer, other *attest.Signer
	vectors       []Vector
	// pass is the content of the valid pass bundle, the base of the
	// broken vectors.
	pass *contents
	// bases are the valid vectors' contents by name, the bases of the
	// lying vectors.
	bases map[string]*contents
	// entryDeclaration is dsh's EntryOptions declaration, recorded in
	// every bundle as a run records it (testdata/dsh-evidence/SOURCE.md).
	entryDeclaration []byte
	// rename, when set, renames the plugin in every file build reads.
	rename *strings.Replacer
	// patch, when set, is the patch file build records instead of the
	// capture's (the verifier benchmark's hostile patch).
	patch []byte
	// metadata, when set, rewrites the package.json build records (the
	// verifier benchmark's hostile metadata).
	metadata func(pkg []byte) []byte
	// legacy, when set, leaves the tested tarball out of the bundle, as
	// a writer before specification version 1.15 did, its digests kept in the subject.
	legacy bool
}

// contents is a bundle before it is archived.
type contents struct {
	m     *manifest.Manifest
	raw   []byte // canonical manifest
	sig   []byte
	files map[string][]byte
}

// The capture kept no image digest (see testdata/dsh-evidence/README.md);
// the vectors name the image by this stated stand-in digest.
var (
	imageName   = "localhost/dsh-sandbox:0.1.0-rc.8"
	imageDigest = "sha256:" + hexSHA256([]byte("testdata/dsh-evidence: captured without digest pinning"))
	start       = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
)

func hexSHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// validCases: name → the captures of its repetitions.
var validCases = []struct {
	name, verdict string
	reps          []capture
	description   string
}{
	{"pass", "pass", []capture{{"hello", "hello", true}, {"hello", "hello", true}}, "hello: alive at 12 s with the marker"},
	{"install_failed", "install_failed", []capture{{"noflag", "hello", false}, {"noflag", "hello", false}}, "noflag: T1 without -w, ERR_PNPM_ADDING_TO_ROOT"},
	{"config_failed", "config_failed", []capture{{"badyaml", "badyaml", true}, {"badyaml", "badyaml", true}}, "badyaml: the T3 command fails"},
	{"installs_but_not_registered", "installs_but_not_registered", []capture{{"noinsert", "noinsert", true}, {"noinsert", "noinsert", true}}, "noinsert: no entry of the plugin in the dump"},
	{"boot_failed", "boot_failed", []capture{{"throws", "throws", true}, {"throws", "throws", true}}, "throws: apply() throws, exits within 12 s"},
	{"boot_failed_hang", "boot_failed", []capture{{"hang", "hang", true}, {"hang", "hang", true}}, "hang: marker printed, then 1 entry did not activate"},
	{"boot_failed_exits", "boot_failed", []capture{{"exits", "exits", true}, {"exits", "exits", true}}, "exits: marker printed, process.exit(3) after 5 s"},
}

func (g *gen) valid() error {
	for _, vc := range validCases {
		c, err := g.build(vc.reps, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", vc.name, err)
		}
		if got := c.m.Claimed.Verdict; got != vc.verdict {
			return fmt.Errorf("%s: derived %q, the capture's README says %q", vc.name, got, vc.verdict)
		}
		if vc.name == "pass" {
			g.pass = c
		}
		if g.bases == nil {
			g.bases = map[string]*contents{}
		}
		g.bases[vc.name] = c
		if err := g.emit(vc.name, "valid: "+vc.description, c, "verified", nil, vc.verdict); err != nil {
			return err
		}
	}
	// unstable: repetition 1 is hello, repetition 2 is hello whose T4
	// evidence is the exits capture's (same plugin shape, exits at 5 s).
	c, err := g.build([]capture{{"hello", "hello", true}, {"hello", "hello", true}}, func(rep int, runs []assemble.StageRun) []assemble.StageRun {
		if rep != 1 {
			return runs
		}
		ex, err := capture{"exits", "exits", true}.stages(g.evidence, rules.Subject{Name: "exits-dsh-plugin", Version: "1.0.0"}, []rules.Entry{{ID: "exits-dsh", Name: "exits-dsh-plugin"}}, runs[3].StartedAt)
		if err != nil || len(ex) != 4 {
			panic(fmt.Sprintf("exits capture: %v", err))
		}
		runs[3] = ex[3]
		return runs
	})
	if err != nil {
		return fmt.Errorf("unstable: %w", err)
	}
	if c.m.Claimed.Verdict != string(rules.Unstable) {
		return fmt.Errorf("unstable: derived %q", c.m.Claimed.Verdict)
	}
	if err := g.emit("unstable", "valid: repetition 1 passes; repetition 2's T4 is the exits capture (boot_failed)", c, "verified", nil, "unstable"); err != nil {
		return err
	}
	// A plugin whose name holds "certified" verifies: the package name is
	// exempt from the forbidden-word check (SPEC.md "Forbidden words").
	g.rename = strings.NewReplacer("hello-dsh-plugin", "certified-hello-dsh-plugin")
	c, err = g.build([]capture{{"hello", "hello", true}, {"hello", "hello", true}}, nil)
	g.rename = nil
	if err != nil {
		return fmt.Errorf("certified_named_plugin: %w", err)
	}
	g.bases["certified_named_plugin"] = c
	if err := g.emit("certified_named_plugin", "valid: the hello capture with the plugin renamed certified-hello-dsh-plugin everywhere", c, "verified", nil, "pass"); err != nil {
		return err
	}
	// A bundle written before specification version 1.15 holds no tarball: it verifies,
	// its subject digests shown as the writer's word.
	g.legacy = true
	c, err = g.build([]capture{{"hello", "hello", true}, {"hello", "hello", true}}, nil)
	g.legacy = false
	if err != nil {
		return fmt.Errorf("legacy_no_tarball: %w", err)
	}
	if err := g.emit("legacy_no_tarball", "valid: the hello capture as a writer before specification version 1.15 wrote it: no tested tarball held, its digests in the subject are the writer's word", c, "verified", nil, "pass"); err != nil {
		return err
	}
	// static only: T0 without the dynamic layer.
	c, err = g.buildStaticOnly(capture{"hello", "hello", true})
	if err != nil {
		return fmt.Errorf("static_only: %w", err)
	}
	g.bases["static_only"] = c
	return g.emit("static_only", "valid: T0 only (dshaudit static scope), no T1–T4", c, "verified", nil, "")
}

// build assembles and signs a bundle from captures, one per repetition.
func (g *gen) build(reps []capture, edit func(rep int, runs []assemble.StageRun) []assemble.StageRun) (*contents, error) {
	pkg, patch, sub, err := reps[0].pluginFiles(g.evidence)
	if err != nil {
		return nil, err
	}
	entries, _ := rules.InsertEntries(patch, rules.Limits{})
	captured := sub
	if g.rename != nil {
		pkg, patch = []byte(g.rename.Replace(string(pkg))), []byte(g.rename.Replace(string(patch)))
		sub.Name = g.rename.Replace(sub.Name)
	}
	if g.patch != nil {
		patch = g.patch
	}
	if g.metadata != nil {
		pkg = g.metadata(pkg)
	}
	in := g.input(reps[0], pkg, patch, sub)
	if err := g.holdTarball(&in, reps[0], pkg, patch); err != nil {
		return nil, err
	}
	in.Dynamic = true
	t := start.Add(10 * time.Second)
	for i, c := range reps {
		runs, err := c.stages(g.evidence, captured, entries, t)
		if err != nil {
			return nil, err
		}
		if g.rename != nil {
			for j := range runs {
				renameRun(g.rename, &runs[j])
			}
		}
		if edit != nil {
			runs = edit(i, runs)
		}
		in.Repetitions = append(in.Repetitions, runs)
		t = runs[len(runs)-1].EndedAt.Add(5 * time.Second)
	}
	in.FinishedAt = t
	in.Settings.Repeat = len(reps)
	for _, c := range reps {
		if c.withW {
			in.Deviations = append(in.Deviations, manifest.Deviation{
				What: assemble.DeviationCommand(rules.T1), Standard: strings.Join(assemble.StandardArgv(rules.T1, in.Subject.Spec), " "),
				ChangedTo: strings.Join(c.argv(rules.T1, sub), " "), Clause: "DSHIO/T 21 5.1.8",
				Why: "dsh 0.1.0-rc.8 always fails without -w (ERR_PNPM_ADDING_TO_ROOT)",
			})
			break
		}
	}
	return g.finish(in, g.signer)
}

func (g *gen) buildStaticOnly(c capture) (*contents, error) {
	pkg, patch, sub, err := c.pluginFiles(g.evidence)
	if err != nil {
		return nil, err
	}
	in := g.input(c, pkg, patch, sub)
	if err := g.holdTarball(&in, c, pkg, patch); err != nil {
		return nil, err
	}
	in.Fingerprint, in.Image, in.Versions = "", manifest.Image{}, nil
	in.Conditions.Fixed = nil
	in.Deviations = nil
	in.Settings = manifest.Settings{} // no sandbox: no window, no stage limits, no repetition
	in.FinishedAt = start.Add(2 * time.Second)
	return g.finish(in, g.signer)
}

func (g *gen) input(c capture, pkg, patch []byte, sub rules.Subject) assemble.Input {
	return assemble.Input{
		Tool:        manifest.Tool{Name: "dshaudit", Version: "vectorgen"},
		Subject:     manifest.Subject{Name: sub.Name, Version: sub.Version, Spec: c.spec(sub), Source: "local-tarball"},
		Baseline:    "0.2.2-rc.1",
		Fingerprint: fmt.Sprintf("dsh=0.1.0-rc.8;img=%s@%s;node=24.11.1;pnpm=9.15.9;mem=768m;cpu=1", imageName, imageDigest),
		Image:       manifest.Image{Name: imageName, Digest: imageDigest},
		Conditions: manifest.Conditions{
			Fixed: assemble.FixedConditions(c.facts(sub)),
			Variable: []manifest.Condition{
				// The old path of this program, kept so that the signed
				// manifests of the vectors keep their bytes.
				{Name: "source", Value: "testdata/dsh-evidence capture, converted by internal/vectorgen"},
				{Name: "container engine", Value: "podman 4.3.1 --runtime runc"},
			},
		},
		Deviations: []manifest.Deviation{
			{What: assemble.DeviationDSHVersion, Standard: "0.2.2-rc.1", ChangedTo: "0.1.0-rc.8", Clause: "DSHIO/T 21 5.1.1",
				Why: "0.2.2-rc.1 is not published in the reachable registry; 0.1.0-rc.8 is the newest that installs and boots"},
			{What: assemble.DeviationCommand(rules.T4), Standard: "dsh --profile web", ChangedTo: "dsh --profile web --no-open", Clause: "DSHIO/T 21 5.1.8",
				Why: "without --no-open dsh tries to open a browser"},
		},
		Settings:  manifest.Settings{ObservationWindowMS: assemble.Edition2026.WindowMS, TimeoutsMS: editionTimeouts()},
		StartedAt: start,
		Static:    assemble.StaticInput{Metadata: pkg, Patch: patch, EntryDeclaration: g.entryDeclaration, InstalledSize: -1},
		Versions: map[string][]byte{
			manifest.RoleDSHVersion: []byte("0.1.0-rc.8\n"), manifest.RoleNodeVersion: []byte("v24.11.1\n"), manifest.RolePNPMVersion: []byte("9.15.9\n"),
		},
	}
}

// holdTarball packs the capture's plugin with the package.json and patch
// recorded, as the tarball T0 read and T1 installed, and names it by its
// digests in the subject, as the runner does; with g.legacy the bundle
// does not hold it.
func (g *gen) holdTarball(in *assemble.Input, c capture, pkg, patch []byte) error {
	tgz, err := pluginTarball(filepath.Join(g.evidence, "plugins", c.plugin), pkg, patch, g.rename)
	if err != nil {
		return err
	}
	nameTarball(&in.Subject, tgz)
	if !g.legacy {
		in.Static.Tarball = tgz
	}
	return nil
}

// renameRun applies r to every byte and argument of a stage run.
func renameRun(r *strings.Replacer, run *assemble.StageRun) {
	for _, b := range []*[]byte{&run.Stdout, &run.Stderr, &run.Merged, &run.ProfilePackageJSON} {
		if *b != nil {
			*b = []byte(r.Replace(string(*b)))
		}
	}
	for i, a := range run.Argv {
		run.Argv[i] = r.Replace(a)
	}
}

// editionTimeouts are the edition's stage time limits, as settings.
func editionTimeouts() map[string]int64 {
	m := map[string]int64{}
	for s, v := range assemble.Edition2026.TimeoutsMS {
		m[string(s)] = v
	}
	return m
}

// facts are the fixed conditions of a vector: the edition's values, the
// capture's commands.
func (c capture) facts(sub rules.Subject) assemble.FixedFacts {
	ed := assemble.Edition2026
	f := assemble.FixedFacts{
		DSH: "0.1.0-rc.8", Baseline: ed.Baseline, ImageRef: imageName + "@" + imageDigest,
		Memory: ed.Memory, CPU: ed.CPU, Pids: ed.Pids, Ulimits: ed.Ulimits,
		Window:    time.Duration(ed.WindowMS) * time.Millisecond,
		Profile:   "web; DSH_HOME=/dsh-home, fresh volume per case",
		Isolation: "a fresh container per command",
		Repeat:    ed.Repeat,
		Timeouts:  map[rules.Stage]time.Duration{},
		Argv:      map[rules.Stage][]string{},
	}
	for _, s := range rules.DynamicStages {
		f.Timeouts[s] = time.Duration(ed.TimeoutsMS[s]) * time.Millisecond
		f.Argv[s] = c.argv(s, sub)
	}
	return f
}

// finish builds the manifest, encodes it canonically and signs it.
func (g *gen) finish(in assemble.Input, signer *attest.Signer) (*contents, error) {
	m, files, err := assemble.Build(in)
	if err != nil {
		return nil, err
	}
	return g.sign(m, files, signer)
}

func (g *gen) sign(m *manifest.Manifest, files map[string][]byte, signer *attest.Signer) (*contents, error) {
	raw, err := manifest.Encode(m)
	if err != nil {
		return nil, err
	}
	pred := attest.Predicate{
		Tool:    attest.Tool{Name: m.Tool.Name, Version: m.Tool.Version},
		Subject: attest.Package{Name: m.Subject.Name, Version: m.Subject.Version},
		Verdict: assemble.PredicateVerdict(m),
	}
	sig, err := attest.Sign(g.ctx, raw, pred, signer)
	if err != nil {
		return nil, err
	}
	return &contents{m: m, raw: raw, sig: sig, files: files}, nil
}

// emit writes a valid bundle with the package's own writer.
func (g *gen) emit(name, desc string, c *contents, status string, classes []string, verdict string) error {
	var buf bytes.Buffer
	if err := bundle.Write(&buf, bundle.Contents{Manifest: c.raw, Signature: c.sig, Files: c.files}); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return g.emitRaw(name, desc, buf.Bytes(), status, classes, verdict)
}

// emitLie writes a lying vector with the finding it must give.
func (g *gen) emitLie(name, desc string, c *contents, status string, classes []string, verdict, field string) error {
	if err := g.emit(name, desc, c, status, classes, verdict); err != nil {
		return err
	}
	v := &g.vectors[len(g.vectors)-1]
	v.Class, v.Field = classes[0], field
	return nil
}

func (g *gen) emitRaw(name, desc string, archive []byte, status string, classes []string, verdict string) error {
	file := name + ".dshaudit.tar.zst"
	if err := os.WriteFile(filepath.Join(g.out, file), archive, 0o644); err != nil {
		return err
	}
	if classes == nil {
		classes = []string{}
	}
	g.vectors = append(g.vectors, Vector{Name: name, File: file, Description: desc, Status: status, Classes: classes, Verdict: verdict})
	return nil
}

// entryDeclarationFile is the real EntryOptions declaration beside the
// captures (testdata/dsh-evidence/SOURCE.md).
const entryDeclarationFile = "cordis-plugin-loader-1.0.2-entry.d.ts"

// newGen is a generator reading the captures in evidenceDir.
func newGen(ctx context.Context, evidenceDir, out string, signer, other *attest.Signer) (*gen, error) {
	decl, err := os.ReadFile(filepath.Join(evidenceDir, entryDeclarationFile))
	if err != nil {
		return nil, err
	}
	return &gen{ctx: ctx, evidence: evidenceDir, out: out, signer: signer, other: other, entryDeclaration: decl}, nil
}
