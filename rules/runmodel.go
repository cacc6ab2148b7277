package rules

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/dshaudit/dshaudit/internal/jsonwalk"
)

// StageModel is what one stage's output says about the run, read with
// the catalogue (ReadStageModel): each fact with the cleaned line that
// states it. SPEC.md "The run model".
type StageModel struct {
	// Profiles are dsh's "initialized profile" lines: the name and the
	// directory of each profile dsh set up because it did not exist.
	Profiles []ProfileInit
	// Progress counts pnpm's store counter lines, and Reuse is the first
	// that says a package was reused from the store (nil when none): a
	// log of a million counter lines is not kept.
	Progress int
	Reuse    *Progress
	// Done are pnpm's summaries: the elapsed time and the pnpm named.
	Done []Done
	// Versions are the node and pnpm versions the output prints.
	Versions []VersionPrint
	// Projects are pnpm list's private project labels.
	Projects []Project
	// PNPMErrors are the lines where pnpm gives up, with the code.
	PNPMErrors []Printed
	// PNPMFailed are dsh's lines saying pnpm exited non-zero, with the
	// profile directory they name: dsh plugin prints one only then, and
	// exits with pnpm's status (SourceDSHPlugin).
	PNPMFailed []Printed
	// StorePaths are the paths into pnpm's virtual store the output
	// shows (stack traces included).
	StorePaths []StorePath
}

// Printed is one value a line states, with the line.
type Printed struct {
	Value, Line string
}

// ProfileInit is one "dsh: initialized profile NAME at DIR" line.
type ProfileInit struct {
	Name, Dir, Line string
}

// Progress is one of pnpm's "Progress: resolved …" lines, its counters
// as printed (decimal digits, of any length).
type Progress struct {
	Resolved, Reused, Downloaded string
	Line                         string
}

// Done is pnpm's "Done in T using pnpm vX" summary.
type Done struct {
	Elapsed, Version, Line string
}

// VersionPrint is a version of node or pnpm an output line names as the
// one running.
type VersionPrint struct {
	Form                   FormName
	Program, Version, Line string
}

// Project is pnpm list's label of a project: "NAME[@VERSION] DIR (PRIVATE)".
type Project struct {
	Name, Version, Dir, Line string
}

// ReadStageModel reads a stage's output once with the catalogue
// (ReadForms) into its model.
func ReadStageModel(out []byte) StageModel {
	var m StageModel
	ReadForms(out, func(r Reading) bool {
		if r.Form == FormProgress || r.Form == FormProgressNoAdded {
			// The common line: counted, copied only when it says a reuse.
			m.Progress++
			if m.Reuse == nil && len(bytes.TrimLeft(r.Sub[2], "0")) > 0 {
				m.Reuse = &Progress{Resolved: string(r.Sub[1]), Reused: string(r.Sub[2]), Downloaded: string(r.Sub[3]), Line: string(r.Line)}
			}
			return true
		}
		l := string(r.Line)
		sub := func(i int) string { return string(r.Sub[i]) }
		switch r.Form {
		case FormProfileInitialized:
			m.Profiles = append(m.Profiles, ProfileInit{Name: sub(1), Dir: sub(2), Line: l})
		case FormDone:
			m.Done = append(m.Done, Done{Elapsed: sub(1), Version: sub(2), Line: l})
			m.Versions = append(m.Versions, VersionPrint{Form: r.Form, Program: "pnpm", Version: sub(2), Line: l})
		case FormUpdateAvailable:
			m.Versions = append(m.Versions, VersionPrint{Form: r.Form, Program: "pnpm", Version: sub(1), Line: l})
		case FormUnsupportedEngine, FormUnsupportedEngineError:
			m.Versions = append(m.Versions, engineVersions(r.Form, sub(len(r.Sub)-1), l)...)
		case FormPNPMError:
			m.PNPMErrors = append(m.PNPMErrors, Printed{Value: sub(1), Line: l})
		case FormPNPMFailedIn:
			m.PNPMFailed = append(m.PNPMFailed, Printed{Value: sub(1), Line: l})
		case FormListProject:
			m.Projects = append(m.Projects, Project{Name: sub(1), Version: sub(2), Dir: sub(3), Line: l})
		case FormStoreDir:
			m.StorePaths = append(m.StorePaths, StorePaths(l)...)
		}
		return true
	})
	return m
}

// engineVersions reads the "current" object of pnpm's unsupported-engine
// message, {"node":"v24.11.1","pnpm":"9.15.9"}: node's version without
// its "v". An object that does not read gives nothing.
func engineVersions(form FormName, current, line string) []VersionPrint {
	var cur map[string]string
	if json.Unmarshal([]byte(current), &cur) != nil {
		return nil
	}
	var vs []VersionPrint
	if v, ok := cur["node"]; ok {
		vs = append(vs, VersionPrint{Form: form, Program: "node", Version: strings.TrimPrefix(v, "v"), Line: line})
	}
	if v, ok := cur["pnpm"]; ok {
		vs = append(vs, VersionPrint{Form: form, Program: "pnpm", Version: v, Line: line})
	}
	return vs
}

// ProfileManifest is what a profile's package.json says of the profile,
// read as JSON.parse reads it (the last of repeated members): its name
// and whether its dsh.profile.bundles lists a package.
type ProfileManifest struct {
	// Name is the "name" member's string value ("" when absent or not a
	// string).
	Name string
	// Bundles is whether dsh.profile.bundles is an array, and Listed
	// whether it holds the package asked for as a string element.
	Bundles, Listed bool
	// BundleNames are the array's string elements, in order.
	BundleNames []string
	// Version is the "version" member's string value, and HasVersion
	// whether the document has the member at all: pnpm list labels the
	// project NAME@VERSION from it, NAME alone without it
	// (FormListProject).
	Version    string
	HasVersion bool
	// Dependencies is the "dependencies" object as it stands in the
	// document, nil when it is absent, not an object or read two ways
	// (a conflict the T1 rule reports). OtherDependencies is whether an
	// optionalDependencies or devDependencies object has a member: pnpm
	// lists a name there under another header, even one that
	// dependencies also holds.
	Dependencies      []byte
	OtherDependencies bool
	// Private is whether the "private" member is truthy to JavaScript
	// (or read two ways): pnpm list adds " (PRIVATE)" to the project's
	// label only then.
	Private bool
}

// ReadProfileManifest reads doc, a profile package.json, for its name,
// the packages dsh.profile.bundles lists and whether pkg is one of them. It refuses what
// ReadProfileDependency refuses (a document that is not one JSON value,
// a conflict between readers) with that function's errors.
func ReadProfileManifest(doc []byte, pkg string) (ProfileManifest, error) {
	var pm ProfileManifest
	v, err := oneJSONValue(doc)
	if err != nil {
		return pm, err
	}
	if v[0] != '{' {
		return pm, kindError("the document", v)
	}
	// The top level is walked once for every member read (a profile
	// package.json may be as large as an entry).
	var vals [len(profileMembers)][]byte
	var errs [len(profileMembers)]error
	if err := jsonwalk.LastEach(v, profileMembers[:], profileMembers[:], vals[:], errs[:]); err != nil {
		return pm, err
	}
	if raw, err := vals[0], errs[0]; err != nil {
		return pm, err
	} else if raw != nil && raw[0] == '"' {
		if pm.Name, err = jsonwalk.String(raw, "name"); err != nil {
			return pm, err
		}
	}
	if raw, err := vals[1], errs[1]; err != nil || raw != nil {
		pm.HasVersion = true // one read two ways is there, its value "", not compared
		if err == nil && raw[0] == '"' {
			pm.Version, _ = jsonwalk.String(raw, "version") // one that does not read is "", not compared
		}
	}
	if raw := vals[2]; errs[2] == nil && raw != nil && raw[0] == '{' {
		pm.Dependencies = raw
	}
	for i := 3; i <= 4; i++ {
		raw := vals[i]
		pm.OtherDependencies = pm.OtherDependencies || errs[i] != nil || raw != nil && raw[0] == '{' && len(bytes.TrimSpace(raw[1:len(raw)-1])) > 0
	}
	// private: truthy to JavaScript (pnpm list labels the project
	// "(PRIVATE)" then); one read two ways counts as truthy, not compared.
	if raw := vals[6]; errs[6] != nil || raw != nil && jsonTruthy(raw) {
		pm.Private = true
	}
	if errs[5] != nil || vals[5] == nil {
		return pm, errs[5]
	}
	obj := vals[5]
	if obj[0] != '{' {
		return pm, nil
	}
	for _, step := range []string{"profile", "bundles"} {
		raw, err := jsonwalk.Last(obj, step, step)
		if err != nil || raw == nil {
			return pm, err
		}
		obj = raw
		if step != "bundles" && obj[0] != '{' {
			return pm, nil
		}
	}
	if obj[0] != '[' {
		return pm, nil
	}
	pm.Bundles = true
	var serr error
	if err := jsonwalk.Elements(obj, func(e []byte) bool {
		if e[0] != '"' {
			return true
		}
		var s string
		if s, serr = jsonwalk.String(e, "dsh.profile.bundles"); serr != nil {
			return false
		}
		pm.Listed = pm.Listed || s == pkg
		pm.BundleNames = append(pm.BundleNames, s)
		return true
	}); err != nil {
		return pm, err
	}
	return pm, serr
}

// UninstalledBundle returns the first bundle pm's dsh.profile.bundles
// lists that is neither in-box (InBoxBundles) nor a key of its
// dependencies, "" when there is none or no dependencies object to
// compare with. One pass over the dependencies object. SPEC.md "The run
// model", relation 5.
func UninstalledBundle(pm ProfileManifest) string {
	if pm.Dependencies == nil {
		return ""
	}
	var outside []string
	for _, b := range pm.BundleNames {
		if !slices.Contains(InBoxBundles, b) {
			outside = append(outside, b)
		}
	}
	if len(outside) == 0 {
		return ""
	}
	extra, _, ok := ProfileListing(ProfileManifest{Dependencies: pm.Dependencies, OtherDependencies: true}, outside)
	if !ok {
		return ""
	}
	return extra
}

// jsonTruthy reports whether the raw JSON value is truthy to
// JavaScript: false, null, 0 (in any spelling) and "" are not.
func jsonTruthy(raw []byte) bool {
	switch raw[0] {
	case 'f', 'n':
		return false
	case '"':
		return len(raw) > 2
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		var f float64
		return json.Unmarshal(raw, &f) != nil || f != 0
	}
	return true // true, objects and arrays
}

// profileMembers are the top-level members ReadProfileManifest reads, in
// the order it reads them.
var profileMembers = [...]string{"name", "version", "dependencies", "optionalDependencies", "devDependencies", "dsh", "private"}

// ProfileListing compares the names pnpm list lists in the dependencies
// blocks of a profile's project (listed) with the keys of the profile
// package.json's dependencies (pm.Dependencies): pnpm list lists a
// project's dependencies from the lockfile pnpm wrote with that
// package.json, so each listed name is a key and, when no other
// dependency field has a member (pm.OtherDependencies), each key is
// listed. extra is the first listed name that is no key, missing the
// first key that is not listed ("" when there is none). ok is false when
// there is nothing to compare with (no dependencies object, or a key
// that does not decode). One pass over the object, each key looked up
// in a set of the listed names. SPEC.md "The run model".
func ProfileListing(pm ProfileManifest, listed []string) (extra, missing string, ok bool) {
	if pm.Dependencies == nil {
		return "", "", false
	}
	seen := make(map[string]bool, len(listed))
	for _, n := range listed {
		seen[n] = false
	}
	bad := false
	err := jsonwalk.Members(pm.Dependencies, func(key, _ []byte) bool {
		body := key[1 : len(key)-1]
		var k string
		if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
			if _, in := seen[string(body)]; in { // no allocation
				seen[string(body)] = true
				return true
			}
			if missing == "" && !pm.OtherDependencies {
				missing = string(body)
			}
			return true
		}
		if json.Unmarshal(key, &k) != nil {
			bad = true
			return false
		} else if _, in := seen[k]; in {
			seen[k] = true
			return true
		}
		if missing == "" && !pm.OtherDependencies {
			missing = k
		}
		return true
	})
	if err != nil || bad {
		return "", "", false
	}
	for _, n := range listed {
		if !seen[n] {
			return n, missing, true
		}
	}
	return "", missing, true
}

// ProfileOtherDependency returns the first key of pm's dependencies that
// is not pkg, decoded as JSON.parse decodes it, and ok false when there
// is nothing to read (no dependencies object, or a key that does not
// decode). A fresh profile's package.json, which dsh writes with no
// dependency, gains exactly one from T1's one `pnpm add`: the
// package's. One pass over the object. SPEC.md "The run model".
func ProfileOtherDependency(pm ProfileManifest, pkg string) (other string, ok bool) {
	if pm.Dependencies == nil {
		return "", false
	}
	bad := false
	err := jsonwalk.Members(pm.Dependencies, func(key, _ []byte) bool {
		if jsonwalk.KeyIs(key, pkg) {
			return true
		}
		bad = json.Unmarshal(key, &other) != nil // the first other key, named in the finding
		return false
	})
	if err != nil || bad {
		return "", false
	}
	return other, true
}

// ProfilePackageName is the name dsh gives a profile's package.json:
// "dsh-profile-" and the profile's directory name (SourceAppBoot).
func ProfilePackageName(profile string) string { return ProfilePackagePrefix + profile }

// ParseProject reads a pnpm list project label (FormListProject).
func ParseProject(label string) (Project, bool) {
	sm := FormOf(FormListProject).Pattern.FindStringSubmatch(label) // the one pattern, on one label
	if sm == nil {
		return Project{}, false
	}
	return Project{Name: sm[1], Version: sm[2], Dir: sm[3], Line: label}, true
}
