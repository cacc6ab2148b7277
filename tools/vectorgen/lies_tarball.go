package main

import (
	"strings"

	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/verify"
)

// tarballLies are the signed lies about the package tested (issue 44):
// a subject, a summary's subject with it, naming another tarball than
// the one the bundle holds, and a held tarball that is not the one T0
// read. Each is told by a writer that re-derives honestly and signs.
func tarballLies() []lie {
	S := verify.ClassSubjectMismatch
	// otherTarball is the held tarball with one file changed or added:
	// the same name and version, another payload.
	otherTarball := func(c *lieCtx, file string, edit func(b []byte) []byte) {
		p := c.m.Static.Evidence[manifest.RoleTarball]
		files := unpackTarball(c.files[p])
		files[file] = edit(files[file])
		c.files[p] = packTarball(files)
		nameTarball(&c.m.Subject, c.files[p])
	}
	otherDigests := func(c *lieCtx) {
		b := []byte("another tarball of hello-dsh-plugin 1.0.0")
		nameTarball(&c.m.Subject, b)
	}
	withDist := func(c *lieCtx, integrity string) {
		p := c.m.Static.Evidence[manifest.RoleMetadata]
		b := strings.TrimRight(string(c.files[p]), "\n\r\t ")
		c.files[p] = []byte(strings.TrimSuffix(b, "}") + `,"dist":{"integrity":"` + integrity + `"}}` + "\n")
	}
	return []lie{
		{name: "installed_size_below_tarball", class: S, field: "static.installed_size", verdict: "pass", honest: true, spec: "The tested tarball",
			desc: "static.installed_size is 10 bytes, its 5.3.3 re-derived conforming from it, but T1 passed installing the held tarball, whose three files of distinct sizes take 356 bytes and which declares no dependency or install script that could remove them",
			edit: func(c *lieCtx) { c.m.Static.InstalledSize = 10 }},
		{name: "subject_names_other_tarball_local", class: S, field: "subject.tarball_sha256", verdict: "pass", honest: true, keepTarball: true,
			desc: "a local subject's integrity and tarball_sha256 name another tarball than the one held: a summary would vouch for it",
			edit: otherDigests},
		{name: "subject_names_other_tarball_registry", class: S, field: "subject.tarball_sha256", verdict: "pass", honest: true, keepTarball: true,
			desc: "a registry subject whose metadata has no dist, its digests naming another tarball than the one held",
			edit: func(c *lieCtx) { c.registrySubject(); otherDigests(c) }},
		{name: "subject_names_other_tarball_registry_dist", class: S, field: "subject", verdict: "pass", honest: true, keepTarball: true,
			desc: "a registry subject whose metadata's dist.integrity and digests name another tarball than the one held",
			edit: func(c *lieCtx) {
				c.registrySubject()
				otherDigests(c)
				withDist(c, c.m.Subject.Integrity)
			}},
		{name: "tarball_other_package_json", class: S, field: "static.evidence.metadata", verdict: "pass", honest: true, keepTarball: true,
			desc: "the held tarball's package.json is another than the metadata T0 read from it (same name and version, another description)",
			edit: func(c *lieCtx) {
				otherTarball(c, "package.json", func(b []byte) []byte {
					return []byte(strings.Replace(string(b), `"version": "1.0.0",`, `"version": "1.0.0", "description": "another payload",`, 1))
				})
			}},
		{name: "tarball_other_patch", class: S, field: "static.evidence.patch", verdict: "pass", honest: true, keepTarball: true,
			desc: "the held tarball's patch file is another than the patch T0 recorded",
			edit: func(c *lieCtx) {
				otherTarball(c, "cordis.patch.yml", func(b []byte) []byte { return append(b, "# another payload\n"...) })
			}},
		{name: "tarball_other_patch_registry", class: S, field: "static.evidence.patch", verdict: "pass", honest: true, keepTarball: true,
			desc: "a registry subject whose patch_source says T0 read the patch from the tarball, and the held tarball's patch file is another",
			edit: func(c *lieCtx) {
				c.registrySubject()
				c.m.Conditions.Variable = append(c.m.Conditions.Variable, manifest.Condition{Name: "patch_source", Value: "tarball (no CDN configured)"})
				otherTarball(c, "cordis.patch.yml", func(b []byte) []byte { return append(b, "# another payload\n"...) })
			}},
		{name: "tarball_other_readme", class: S, field: "static.evidence.readme", verdict: "pass", honest: true, keepTarball: true,
			desc: "the held tarball has a README that T0 did not record",
			edit: func(c *lieCtx) {
				otherTarball(c, "README.md", func([]byte) []byte { return []byte("# hello-dsh-plugin\n\nanother payload\n") })
			}},
		{name: "tarball_not_gzip", class: S, field: "static.evidence.tarball", verdict: "pass", honest: true, keepTarball: true,
			desc: "the held tarball is not a gzip tar, its digests in the subject",
			edit: func(c *lieCtx) {
				p := c.m.Static.Evidence[manifest.RoleTarball]
				c.files[p] = []byte("not a tarball\n")
				nameTarball(&c.m.Subject, c.files[p])
			}},
	}
}
