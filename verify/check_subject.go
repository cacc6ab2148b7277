package verify

import (
	"encoding/json"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/internal/jsonwalk"
	"github.com/dshaudit/dshaudit/internal/lazyregexp"
	"github.com/dshaudit/dshaudit/internal/pkgmeta"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// npmName is a valid npm package name (lower case, optional scope).
var npmName = lazyregexp.New(`^(?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$`)

// checkSubject checks the subject and the signed predicate (SPEC.md "What
// the verifier cross-checks", class 6): one exact version, named alike by
// the metadata, the spec and the predicate. The re-derivation (vf.derived)
// says whether T0 could read the metadata and whether T1 installed it.
func (vf *verification) checkSubject() {
	bad := func(field, clause, format string, args ...any) {
		vf.rep.addf(ClassSubjectMismatch, field, clause, format, args...)
	}
	sub := vf.m.Subject
	if !npmName.MatchString(sub.Name) || len(sub.Name) > 214 {
		bad("subject.name", "DSHIO/T 10 7.2", "%q is not an npm package name", sub.Name)
	}
	if _, err := semver.StrictNewVersion(sub.Version); err != nil {
		bad("subject.version", "DSHIO/T 10 7.2", "%q is not one exact version (a range, a tag or no version names no single object)", sub.Version)
	}
	switch sub.Source {
	case "registry":
		if sub.Spec != sub.Name+"@"+sub.Version {
			bad("subject.spec", "DSHIO/T 21 5.1.8", "%q, a registry package is installed as %s@%s", sub.Spec, sub.Name, sub.Version)
		}
	case "local-tarball", "local-dir":
		tail := "-" + sub.Version + ".tgz"
		base := strings.Replace(strings.TrimPrefix(sub.Name, "@"), "/", "-", 1)
		if sub.Spec != "/pkgs/"+base+tail {
			bad("subject.spec", "DSHIO/T 21 5.1.8", "%q, a local package is installed from /pkgs/%s%s", sub.Spec, base, tail)
		}
	default:
		if vf.m.Dynamic {
			bad("subject.source", "DSHIO/T 21 5.1.8", "%q: T1 installs only a registry package or a local one, so the spec cannot be checked", sub.Source)
		}
	}
	vf.checkInstalledSpec()
	if p := vf.m.Static.Evidence[manifest.RoleMetadata]; p != "" {
		if b, ok := vf.trusted[p]; ok {
			vf.checkIntegrity(p, b)
			name, version, err := pkgmeta.Names(b)
			switch {
			case err == nil:
				if name != sub.Name {
					bad("subject.name", "DSHIO/T 10 7.2", "%q, the metadata %s names %q", sub.Name, p, name)
				}
				if version != sub.Version {
					bad("subject.version", "DSHIO/T 10 7.2", "%q, the metadata %s says %q", sub.Version, p, version)
				}
			case !vf.derived.Static.Unresolvable || installed(vf.derived):
				// T0 read the document (or T1 installed the package, which
				// needs it read), so it names a package: it must name this
				// one. Only a package no stage could read may be this broken.
				bad("subject", "DSHIO/T 10 7.2", "the metadata %s does not name the subject: %v", p, err)
			}
		}
	} else if vf.m.Dynamic {
		// T1 installed the package, so its metadata was had: an
		// unresolvable T0 beside a dynamic layer is read, not derived.
		bad("static.evidence.metadata", "DSHIO/T 20 5.5", "no metadata is retained although the dynamic layer installed the package: T0 cannot have been unresolvable")
	}
	if vf.sig != nil {
		p := vf.sig.Predicate
		if p.Subject.Name != sub.Name || p.Subject.Version != sub.Version {
			bad("subject", `SPEC.md "Signature"`, "the signed predicate names %s@%s, the manifest %s@%s", p.Subject.Name, p.Subject.Version, sub.Name, sub.Version)
		}
		if p.Tool.Name != vf.m.Tool.Name || p.Tool.Version != vf.m.Tool.Version {
			bad("tool", `SPEC.md "Signature"`, "the signed predicate names the tool %s %s, the manifest %s %s", p.Tool.Name, p.Tool.Version, vf.m.Tool.Name, vf.m.Tool.Version)
		}
	}
}

// installed reports whether T1 passed in any repetition of the
// re-derivation.
func installed(d assemble.Derived) bool {
	for _, r := range d.Repetitions {
		for _, st := range r.Stages {
			if st.Stage == rules.T1 && st.Status == rules.StagePassed {
				return true
			}
		}
	}
	return false
}

// checkInstalledSpec cross-checks what T1 installed with the subject
// (SPEC.md "What the verifier cross-checks", class 6): the value the
// profile package.json recorded after each T1 gives the subject's name
// is what an honest install of subject.spec writes — `file:` and the
// spec for a local package, a version or range the subject's version
// satisfies for a registry one. The T1 rule reads only that the name is
// there (SPEC.md "T1 install"); a registry subject whose profile shows a
// tarball installed tested another package than the one named.
func (vf *verification) checkInstalledSpec() {
	sub := vf.m.Subject
	local := sub.Source == "local-tarball" || sub.Source == "local-dir"
	if !local && sub.Source != "registry" {
		return // the source itself is a finding of checkSubject
	}
	for i, rp := range vf.m.Repetitions {
		for _, st := range rp.Stages {
			if st.Stage != string(rules.T1) || st.ExitCode == nil {
				continue
			}
			b, ok := vf.trusted[st.Evidence[manifest.RoleProfilePackageJSON]]
			if !ok || len(b) == 0 {
				continue // the T1 rule or the layout reports it
			}
			dep, err := rules.ReadProfileDependency(b, sub.Name)
			if err != nil || !dep.Found {
				continue // T1 fails: the derivation reports it
			}
			field := repField(i+1, st.Stage, "evidence", manifest.RoleProfilePackageJSON)
			bad := func(format string, args ...any) {
				vf.rep.addf(ClassSubjectMismatch, field, "DSHIO/T 20 6.4", format, args...)
			}
			switch {
			case dep.NotString != "":
				bad("dependencies gives %s %s, not a package specifier", sub.Name, dep.NotString)
			case local && dep.Value != "file:"+sub.Spec:
				bad("dependencies gives %s %q, but a %s subject installed from %q is written as %q", sub.Name, clipText(dep.Value), sub.Source, sub.Spec, "file:"+sub.Spec)
			case !local && !registrySpecFor(dep.Value, sub.Version):
				bad("dependencies gives %s %q, but a registry subject installed as %q is written as a version or range that %s satisfies", sub.Name, clipText(dep.Value), sub.Spec, sub.Version)
			}
		}
	}
}

// registrySpecFor reports whether v, a value pnpm wrote under
// dependencies, is a semver version or range that version satisfies:
// what `pnpm add name@version` writes ("1.0.0", or with the save prefix
// "^1.0.0"). A file:, link:, workspace:, git, URL or npm: alias value,
// or a tag, installed something else than the registry's name@version.
func registrySpecFor(v, version string) bool {
	if v == "" || len(v) > 256 || strings.ContainsAny(v, ":/") {
		return false
	}
	c, err := semver.NewConstraint(v)
	if err != nil {
		return false
	}
	ver, err := semver.StrictNewVersion(version)
	return err == nil && c.Check(ver)
}

// clipText shortens untrusted text for a message: its first 200 bytes,
// cut at a character boundary, and "…".
func clipText(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	return s[:runeCut(s, max)] + "…"
}

// checkIntegrity holds the subject's integrity to the registry's own
// (SPEC.md "What the verifier cross-checks", class 6): when the metadata
// carries a dist.integrity, subject.integrity is one of its hashes. The
// formats themselves are input rules (checkInputs); the sha512 and
// tarball_sha256 name the same tarball only for replay, which has it.
func (vf *verification) checkIntegrity(path string, meta []byte) {
	sub := vf.m.Subject
	if _, why := parseIntegrity(sub.Integrity); sub.Integrity == "" || why != "" {
		return
	}
	dist, ok := distIntegrity(meta)
	if !ok {
		return // no registry digest: a local package's own package.json
	}
	if hasHash(dist, sub.Integrity) {
		return
	}
	vf.rep.addf(ClassSubjectMismatch, "subject.integrity", "DSHIO/T 10 7.2", "%q, but the metadata %s gives dist.integrity %q: they name different tarballs", sub.Integrity, path, clipText(dist))
}

// distIntegrity is the metadata's dist.integrity read as npm reads the
// document (the last of repeated members), when it is a string.
func distIntegrity(meta []byte) (string, bool) {
	doc, rest, err := jsonwalk.First(meta)
	if err != nil || jsonwalk.Trailing(rest) || len(doc) == 0 || doc[0] != '{' {
		return "", false
	}
	var dist []byte
	if jsonwalk.Members(doc, func(k, v []byte) bool {
		if jsonwalk.KeyIs(k, "dist") {
			dist = v
		}
		return true
	}) != nil || len(dist) == 0 || dist[0] != '{' {
		return "", false
	}
	var integrity []byte
	if jsonwalk.Members(dist, func(k, v []byte) bool {
		if jsonwalk.KeyIs(k, "integrity") {
			integrity = v
		}
		return true
	}) != nil || len(integrity) == 0 || integrity[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(integrity, &s) != nil {
		return "", false
	}
	return s, true
}
