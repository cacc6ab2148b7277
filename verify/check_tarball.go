package verify

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/dshaudit/dshaudit/internal/pkgtar"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
	"github.com/dshaudit/dshaudit/rules/static"
	"github.com/dshaudit/dshaudit/vsa"
)

// fieldTarball names the tested tarball in findings.
const fieldTarball = "static.evidence.tarball"

// checkTarball derives the subject's digests from the tarball the bundle
// holds and cross-checks what T0 read against it (SPEC.md "The tested
// tarball", "What the verifier cross-checks", class 6): the subject's
// integrity and tarball_sha256 are its digests; a registry's
// dist.integrity in the metadata is its sha512; the README is the one
// the tarball gives as pacote extracts it; a local source's metadata and
// patch are the tarball's package.json and patch file. It sets
// rep.Tarball, the only digests a summary names the package by. Without
// a tarball (a bundle written before specification version 1.15, or a static-only run
// that had none) the subject's digests stay the writer's word
// (listUnverified).
func (vf *verification) checkTarball() {
	p := vf.m.Static.Evidence[manifest.RoleTarball]
	if p == "" {
		return
	}
	tgz, ok := vf.trusted[p]
	if !ok {
		return // missing or changed: checkFiles reports it
	}
	bad := func(field, clause, format string, args ...any) {
		vf.rep.addf(ClassSubjectMismatch, field, clause, format, args...)
	}
	t := vsa.TarballOf(tgz)
	vf.rep.Tarball = &t
	sub := vf.m.Subject
	// A malformed digest is an input finding (checkInputs), not a second one here.
	if _, why := parseIntegrity(sub.Integrity); sub.Integrity != "" && why == "" && sub.Integrity != t.Integrity() {
		bad("subject.integrity", "DSHIO/T 10 7.2", "%q, but the tarball %s the bundle holds has the integrity %s: they name different tarballs", sub.Integrity, p, t.Integrity())
	}
	if s := sub.TarballSHA256; isLowerHex(s, 64) && s != t.SHA256() {
		bad("subject.tarball_sha256", "DSHIO/T 10 7.2", "%q, but the tarball %s the bundle holds has the sha256 %s: they name different tarballs", sub.TarballSHA256, p, t.SHA256())
	}
	local := sub.Source == "local-tarball" || sub.Source == "local-dir"
	meta, haveMeta := vf.trusted[vf.m.Static.Evidence[manifest.RoleMetadata]]
	if haveMeta {
		if dist, ok := distIntegrity(meta); ok && !hasHash(dist, t.Integrity()) {
			bad("subject", "DSHIO/T 20 5.3", "the metadata's dist.integrity %q does not name the tarball %s (%s): T0 checked another tarball than the one held", clipText(dist), p, t.Integrity())
		}
	}
	patchPath := ""
	if haveMeta {
		patchPath, _ = static.PatchPath(meta)
	}
	idx, err := pkgtar.Read(tgz, pkgtar.Limits{}, func(rel string) bool {
		_, readme := pkgtar.ReadmeRank(rel)
		return rel == "package.json" || readme || (patchPath != "" && rel == patchPath)
	})
	if err != nil {
		// T0 reads the tarball so (pkgsource): an honest run stops
		// before it records one that cannot be read.
		bad(fieldTarball, `SPEC.md "Consumers"`, "the tarball %s cannot be read as pacote extracts it: %v", p, err)
		return
	}
	vf.checkInstalledFloor(idx, p, meta, haveMeta)
	readmePath, err := pkgtar.ChooseReadme(idx)
	readme, haveReadme := vf.trusted[vf.m.Static.Evidence[manifest.RoleREADME]]
	switch {
	case err != nil || readmePath == "":
		if haveReadme {
			why := "has no README at its root"
			if err != nil {
				why = "gives no one README: " + err.Error()
			}
			bad("static.evidence.readme", "DSHIO/T 20 5.3", "a README is recorded, but the tarball %s %s", p, why)
		}
	case !haveReadme:
		if vf.m.Static.Evidence[manifest.RoleREADME] == "" {
			bad("static.evidence.readme", "DSHIO/T 20 5.3", "no README is recorded, but the tarball %s has %s: T0 reads it", p, readmePath)
		}
	case !bytes.Equal(readme, idx.Read[readmePath]):
		bad("static.evidence.readme", "DSHIO/T 20 5.3", "the README recorded is not the tarball's %s (%s)", readmePath, p)
	}
	// A local source is read from its tarball alone: the metadata is its
	// package.json (pkgsource, DSHIO/T 20 5.3).
	if pj, ok := idx.Read["package.json"]; local && haveMeta && (!ok || !bytes.Equal(pj, meta)) {
		bad("static.evidence.metadata", "DSHIO/T 20 5.3", "a %s subject's metadata is its tarball's package.json, and %s is not the package.json of %s", sub.Source, vf.m.Static.Evidence[manifest.RoleMetadata], p)
	}
	patch, havePatch := vf.trusted[vf.m.Static.Evidence[manifest.RolePatch]]
	if !havePatch || patchPath == "" {
		return
	}
	inTar, ok := idx.Read[patchPath]
	same := ok && bytes.Equal(patch, inTar)
	switch {
	case same:
	case local || vf.patchFromTarball():
		// A local package is on no CDN, and a registry package's patch
		// read from the tarball says so in patch_source: T0 read the
		// tarball's file.
		bad("static.evidence.patch", "DSHIO/T 20 5.3", "the patch was read from the tarball (a %s subject), and the patch recorded is not the file %s of %s", sub.Source, patchPath, p)
	default:
		// A CDN's copy that differs from the published tarball's: what
		// the CDN served is the writer's word.
		vf.rep.unverified("static.evidence.patch", fmt.Sprintf("a CDN's copy of %s that is not the file of the tarball %s holds", patchPath, p))
	}
}

// checkInstalledFloor holds static.installed_size to the least size
// installing the held tarball leaves in node_modules (SPEC.md "The tested
// tarball", static.InstalledFloor), when repetition 1's T1 passed (it
// is the first T1, so the size is measured after it, with the package
// installed) and nothing the install runs can remove the package's
// files. -1 (unknown) is not compared.
func (vf *verification) checkInstalledFloor(idx *pkgtar.Index, p string, meta []byte, haveMeta bool) {
	size := vf.m.Static.InstalledSize
	if size < 0 || len(vf.derived.Repetitions) == 0 {
		return
	}
	passed := false
	for _, st := range vf.derived.Repetitions[0].Stages {
		passed = passed || st.Stage == rules.T1 && st.Status == rules.StagePassed
	}
	pj, ok := idx.Read["package.json"]
	if !passed || !ok || !haveMeta {
		return
	}
	floor, ok := static.InstalledFloor(idx.Sizes, pj, meta)
	if ok && size < floor {
		vf.rep.addf(ClassSubjectMismatch, "static.installed_size", "DSHIO/T 10 5.3.3",
			"%d bytes, but repetition 1's T1 installed the package of the tarball %s, whose regular files of distinct sizes alone take %d bytes in node_modules, and it declares no dependency and no install script that could remove them", size, p, floor)
	}
}

// patchFromTarball reports whether the variable condition patch_source
// says T0 read the patch from the tarball ("tarball (<why>)").
func (vf *verification) patchFromTarball() bool {
	for _, c := range vf.m.Conditions.Variable {
		if c.Name == varPatchSource && strings.HasPrefix(c.Value, "tarball (") {
			return true
		}
	}
	return false
}

// hasHash reports whether the integrity string list (space-separated
// SRI hashes, as npm writes dist.integrity) names sri.
func hasHash(list, sri string) bool {
	for _, h := range strings.Fields(list) {
		if h == sri {
			return true
		}
	}
	return false
}

// checkArtifact holds the tarball a user gives (Options.Artifact) to
// the one the bundle holds (SPEC.md "The tested tarball"): the same
// bytes by digest, or a finding. A bundle without a tarball cannot be
// bound to any artifact.
func (vf *verification) checkArtifact(a *vsa.Tarball) {
	if a == nil {
		return
	}
	switch t := vf.rep.Tarball; {
	case t == nil:
		vf.rep.addf(ClassSubjectMismatch, "artifact", `SPEC.md "The tested tarball"`, "the bundle holds no tested tarball, so no artifact can be shown to be the one tested (sha256 %s given)", a.SHA256())
	case !t.Equal(*a):
		vf.rep.addf(ClassSubjectMismatch, "artifact", `SPEC.md "The tested tarball"`, "the artifact given (sha256 %s, %d bytes) is not the tarball tested (sha256 %s, %d bytes)", a.SHA256(), a.Size(), t.SHA256(), t.Size())
	}
}
