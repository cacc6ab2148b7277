package main

import (
	"context"

	"bytes"
	"fmt"
	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/manifest"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/internal/pkgtar"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/rules/static"
)

// benchCase is one bundle of the verifier benchmark (scripts/bench-verify.sh,
// issue 11): the pass bundle with the evidence of one stage grown to size
// bytes. These bundles are written on demand, never committed.
type benchCase struct {
	name  string
	stage rules.Stage
	size  int
	// hostileDump also replaces each T3 dump with the YAML that costs the
	// most memory per byte to parse, just within rules.DefaultMaxDumpSize:
	// a flow list of one-character scalars (SPEC.md "T3 dump size limit").
	hostileDump bool
	// hostilePatch also replaces the plugin's patch file with the same
	// kind of YAML, just within static.MaxPatchBytes: what T0 parses.
	hostilePatch bool
	// hostileMetadata also grows the plugin's package.json to
	// pkgtar.DefaultLimits.MaxFileBytes with a member that is a list of
	// one-digit numbers: T0 leaves it unparsed (above
	// static.MaxPackageJSONBytes), the verifier still reads its name and
	// version, as T1 installed the package (SPEC.md "What the verifier
	// cross-checks", class 6).
	hostileMetadata bool
	// hostileManifest also grows the manifest to just within
	// manifest.MaxSize with empty warnings on one clause, the
	// costliest JSON per byte the manifest's fields admit, and signs it:
	// the verifier decodes it before any re-derivation.
	hostileManifest bool
	// hostileProfile also grows each T1's profile package.json to
	// bundle.DefaultMaxEntrySize as hostileMetadata grows package.json:
	// the T1 rule reads its dependencies, and so does the verifier.
	hostileProfile bool
	// hostileDeclaration also replaces the EntryOptions declaration with
	// one of rules.MaxPatchSize (the default static input bound) of
	// one-character members, which clause 5.1.6 and the verifier's class
	// 9 check read.
	hostileDeclaration bool
	// hostileLine replaces each T4 stdout with one line of size/2 bytes
	// of escape bytes, the costliest text per byte for the line rules to
	// clean (SPEC.md "Output lines"), merged likewise.
	hostileLine bool
}

var benchCases = []benchCase{
	{name: "t1log-1MiB", stage: rules.T1, size: 1 << 20},
	{name: "t1log-60MiB", stage: rules.T1, size: 60 << 20}, // near the default MaxTotal (64 MiB)
	{name: "t3dump-1MiB", stage: rules.T3, size: 1 << 20},
	{name: "t3dump-60MiB", stage: rules.T3, size: 60 << 20},
	// The most memory a default verifier should need: near MaxTotal of
	// evidence, and the costliest dump the T3 rule still parses.
	{name: "worst-60MiB", stage: rules.T1, size: 60 << 20, hostileDump: true},
	// worst-60MiB with the costliest patch file T0 still parses as well.
	{name: "worstpatch-60MiB", stage: rules.T1, size: 60 << 20, hostileDump: true, hostilePatch: true},
	// worst-60MiB with 8 of its 60 MiB a package.json at the limit of a
	// file read from the recorded tarball (pkgtar.DefaultLimits; a larger
	// one makes the tarball unreadable as pacote extracts it), the T1
	// log 52 MiB.
	{name: "worstmeta-60MiB", stage: rules.T1, size: 52 << 20, hostileDump: true, hostileMetadata: true},
	// worst-60MiB with 32 of its 60 MiB the two profile package.json
	// files, the T1 log 28 MiB.
	{name: "worstprofile-60MiB", stage: rules.T1, size: 28 << 20, hostileDump: true, hostileProfile: true},
	// worst-60MiB with the costliest entry declaration the verifier still
	// parses (rules.MaxPatchSize): a larger one is left unread, and a
	// dynamic bundle without a readable declaration does not verify.
	{name: "worstdecl-60MiB", stage: rules.T1, size: 60 << 20, hostileDump: true, hostileDeclaration: true},
	// Each T4 output one line of 15 MiB of escape bytes: 60 MiB in all
	// with merged.
	{name: "worstline-60MiB", stage: rules.T4, size: 30 << 20, hostileLine: true},
	// worst-60MiB with 8 of its 60 MiB the manifest, the T1 log 52 MiB.
	{name: "worstmanifest-60MiB", stage: rules.T1, size: 52 << 20, hostileDump: true, hostileManifest: true},
}

// writeBench writes pass.dshaudit.tar.zst (the runner's two-repetition
// pass bundle, as in the vectors) and one bundle per benchCase into dir.
// A grown bundle is the pass bundle whose stage evidence (stdout, stderr
// and merged of both repetitions) totals about size bytes:
//   - T1: each stdout is the real T1 stdout followed by pnpm progress lines
//     with pseudo-random counts (seeded, so the bytes are reproducible).
//   - T3: each stdout is the real dump repeated whole, each copy's root
//     ids renamed (renameRootItems): one YAML list, the largest dump of
//     whole copies that keeps the stage within size. A
//     dump above rules.DefaultMaxDumpSize derives config_failed, so T4 is
//     not executed in that bundle.
func (g *gen) writeBench(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	pass, err := g.build([]capture{{"hello", "hello", true}, {"hello", "hello", true}}, nil)
	if err != nil {
		return err
	}
	if err := writeBundle(filepath.Join(dir, "pass"+bundleSuffix), pass); err != nil {
		return err
	}
	for _, bc := range benchCases {
		if bc.hostilePatch {
			g.patch = hostileDump(static.MaxPatchBytes)
		}
		if bc.hostileMetadata {
			g.metadata = func(pkg []byte) []byte { return hostileMetadata(pkg, int(pkgtar.DefaultLimits.MaxFileBytes)) }
		}
		c, err := g.build([]capture{{"hello", "hello", true}, {"hello", "hello", true}}, func(_ int, runs []assemble.StageRun) []assemble.StageRun {
			for i := range runs {
				if bc.hostileDump && runs[i].Stage == rules.T3 {
					runs[i].Stdout = hostileDump(rules.DefaultMaxDumpSize)
					runs[i].Merged = append(append([]byte{}, runs[i].Stdout...), runs[i].Stderr...)
					return runs[:i+1] // no entry is mounted: T4 is not executed
				}
				if bc.hostileLine && runs[i].Stage == rules.T4 {
					runs[i].Stdout = bytes.Repeat([]byte("\x1b["), bc.size/4)
					runs[i].Merged = append(append([]byte{}, runs[i].Stdout...), runs[i].Stderr...)
					continue
				}
				if bc.hostileProfile && runs[i].Stage == rules.T1 {
					runs[i].ProfilePackageJSON = hostileMetadata(runs[i].ProfilePackageJSON, bundle.DefaultMaxEntrySize)
				}
				if runs[i].Stage == bc.stage {
					grow(&runs[i], bc.size/2)
					if bc.stage == rules.T3 && len(runs[i].Stdout) > rules.DefaultMaxDumpSize {
						return runs[:i+1] // config_failed: T4 is not executed
					}
				}
			}
			return runs
		})
		g.patch, g.metadata = nil, nil
		if err != nil {
			return fmt.Errorf("%s: %w", bc.name, err)
		}
		if got := c.m.Claimed.Verdict; got == "" {
			return fmt.Errorf("%s: no verdict derived", bc.name)
		}
		if bc.hostileDeclaration {
			if c, err = g.replaceDeclaration(c, hostileDeclaration(rules.MaxPatchSize)); err != nil {
				return fmt.Errorf("%s: %w", bc.name, err)
			}
		}
		if bc.hostileManifest {
			if c, err = g.growManifest(c); err != nil {
				return fmt.Errorf("%s: %w", bc.name, err)
			}
		}
		if err := writeBundle(filepath.Join(dir, bc.name+bundleSuffix), c); err != nil {
			return err
		}
	}
	return nil
}

const bundleSuffix = ".dshaudit.tar.zst"

// hostileDump is a YAML flow list of "0" scalars of exactly limit bytes.
func hostileDump(limit int) []byte {
	b := make([]byte, 0, limit)
	b = append(b, '[')
	for len(b)+3 < limit {
		b = append(b, '0', ',')
	}
	return append(b, "0]\n"...)
}

// growManifest returns c with its manifest grown to just within
// manifest.MaxSize by empty warnings on the first clause of the
// static report, signed again.
func (g *gen) growManifest(c *contents) (*contents, error) {
	m := *c.m
	m.Static.Report.Clauses = slices.Clone(m.Static.Report.Clauses)
	if len(m.Static.Report.Clauses) == 0 {
		return nil, fmt.Errorf("no clause to grow")
	}
	cl := &m.Static.Report.Clauses[0]
	base := len(c.raw)
	cl.Warnings = append(slices.Clone(cl.Warnings), make([]string, 1000)...)
	raw, err := manifest.Encode(&m)
	if err != nil {
		return nil, err
	}
	per := (len(raw) - base) / 1000
	cl.Warnings = append(cl.Warnings, make([]string, (manifest.MaxSize-len(raw)-4096)/per)...)
	return g.sign(&m, c.files, g.signer)
}

// replaceDeclaration returns c with its recorded entry declaration
// replaced by decl, the claims derived again from the files as a writer
// would derive them, and signed again: assemble.Build refuses to record a
// declaration clause 5.1.6 cannot read, so a bundle holding one is
// hand-made.
func (g *gen) replaceDeclaration(c *contents, decl []byte) (*contents, error) {
	lc, err := lieBase(c)
	if err != nil {
		return nil, err
	}
	p := lc.m.Static.Evidence[manifest.RoleEntryDeclaration]
	if p == "" {
		return nil, fmt.Errorf("no entry declaration recorded")
	}
	lc.files[p] = decl
	reclaim(lc.m, lc.files)
	lc.m.Files = bundle.FileList(lc.files)
	return g.sign(lc.m, lc.files, g.signer)
}

// hostileDeclaration is an EntryOptions declaration of exactly limit
// bytes whose body is one-character members.
func hostileDeclaration(limit int) []byte {
	head, tail := "export interface EntryOptions {\n", "\n}\n"
	b := make([]byte, 0, limit)
	b = append(b, head...)
	for len(b)+4+len(tail) <= limit {
		b = append(b, "a:b;"...)
	}
	for len(b)+len(tail) < limit {
		b = append(b, ' ')
	}
	return append(b, tail...)
}

// hostileMetadata is pkg, a JSON object, with a first member "x" that is
// a list of 1s making the document exactly limit bytes.
func hostileMetadata(pkg []byte, limit int) []byte {
	head := []byte(`{"x":[`)
	tail := append([]byte("1],"), bytes.TrimLeft(pkg, " \t\r\n{")...)
	b := make([]byte, 0, limit)
	b = append(b, head...)
	for len(b)+2+len(tail) <= limit {
		b = append(b, '1', ',')
	}
	return append(b, tail...)
}

func grow(r *assemble.StageRun, size int) {
	var out bytes.Buffer
	out.Write(r.Stdout)
	switch r.Stage {
	case rules.T1:
		rng := rand.New(rand.NewPCG(1, 2))
		for n := 0; 2*(out.Len()+200)+len(r.Stderr) < size; n++ {
			resolved := n + rng.IntN(50)
			// reused 0: each repetition's profile is fresh, and a store
			// that held packages is a condition mismatch (SPEC.md "The run
			// model"), which stopped the bench bundles verifying.
			fmt.Fprintf(&out, "Progress: resolved %d, reused 0, downloaded %d, added %d\n", resolved, rng.IntN(40), rng.IntN(40))
			if rng.IntN(8) == 0 {
				fmt.Fprintf(&out, "node_modules/.pnpm/pkg-%x@%d.%d.%d/node_modules/pkg-%x: Running postinstall script, done in %dms\n",
					rng.Uint32(), rng.IntN(20), rng.IntN(40), rng.IntN(99), rng.Uint32(), rng.IntN(5000))
			}
		}
	default:
		// Each copy after the first has its root ids and names renamed
		// ("c1-timer", ...): a root id twice in the dump is a conflict (SPEC.md "T3
		// mount"), so whole copies would make T3 installs_but_not_registered
		// and the runner would refuse a T4 after it.
		dump := r.Stdout
		for n := 1; ; n++ {
			cp := renameRootItems(dump, n)
			if 2*(out.Len()+len(cp))+len(r.Stderr) > size {
				break
			}
			out.Write(cp)
		}
	}
	r.Stdout = out.Bytes()
	r.Merged = append(append([]byte{}, r.Stdout...), r.Stderr...)
}

// renameRootItems returns dump, a T3 dump, with the id and the name of each
// root list item prefixed by "c<n>-" (a quoted name becomes a plain
// scalar that names no package): a copy of the plugin's entry under its
// own name would be an entry the recorded patch does not insert (SPEC.md
// "What the verifier cross-checks").
func renameRootItems(dump []byte, n int) []byte {
	prefix := fmt.Appendf(nil, "- id: c%d-", n)
	out := bytes.ReplaceAll(dump, []byte("\n- id: "), append([]byte("\n"), prefix...))
	if bytes.HasPrefix(out, []byte("- id: ")) {
		out = append(prefix, out[len("- id: "):]...)
	}
	return bytes.ReplaceAll(out, []byte("\n  name: "), fmt.Appendf(nil, "\n  name: c%d-", n))
}

// writeBundle archives c with the package's own writer.
func writeBundle(path string, c *contents) error {
	var buf bytes.Buffer
	if err := bundle.Write(&buf, bundle.Contents{Manifest: c.raw, Signature: c.sig, Files: c.files}); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// runBench writes the benchmark bundles into dir, signed with the vectors'
// key from out/keys (which must exist: it is committed).
func runBench(ctx context.Context, evidenceDir, out, dir string) error {
	signer, err := attest.LoadSigner(filepath.Join(out, "keys", "signer.key"))
	if err != nil {
		return err
	}
	g, err := newGen(ctx, evidenceDir, out, signer, nil)
	if err != nil {
		return err
	}
	return g.writeBench(dir)
}
