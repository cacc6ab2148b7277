package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"

	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/manifest"
)

// InspectMediaType identifies the --json object of `dshaudit inspect`.
const InspectMediaType = "application/vnd.dshaudit.inspect-result.v1+json"

// inspectResult is inspect --json: every file of the bundle with its
// role, as the manifest lists it and as the archive holds it. Nothing in
// it is verified (SPEC.md "Result objects").
type inspectResult struct {
	MediaType     string        `json:"media_type"`
	SchemaVersion int           `json:"schema_version"`
	Bundle        string        `json:"bundle"`
	Signed        bool          `json:"signed"`
	Files         []inspectFile `json:"files"`
}

// inspectFile is one file: Listed when the manifest lists it (Size and
// SHA256 are then the listing's; otherwise those of the bytes held),
// Present when the archive holds it, Matches when both and the archive's
// bytes have the listed size and digest (so never for the manifest and
// the signature, which are not listed).
type inspectFile struct {
	Path string `json:"path"`
	// Role is what the manifest uses the file for: "manifest",
	// "signature", "static/ROLE", "environment/ROLE" or
	// "REPETITION/STAGE/ROLE" (the --stage and --role of inspect); ""
	// when nothing refers to it.
	Role       string `json:"role"`
	Repetition int    `json:"repetition,omitempty"`
	Stage      string `json:"stage,omitempty"`
	Size       int64  `json:"size"`
	SHA256     string `json:"sha256"`
	Listed     bool   `json:"listed"`
	Present    bool   `json:"present"`
	Matches    bool   `json:"matches"`
}

func inspectJSON(name string, arc *bundle.Archive, m *manifest.Manifest) inspectResult {
	type ref struct {
		role  string
		rep   int
		stage string
	}
	roles := map[string]ref{}
	add := func(path string, r ref) {
		if _, ok := roles[path]; !ok { // the first reference names it
			roles[path] = r
		}
	}
	for _, k := range sortedKeys(m.Static.Evidence) {
		add(m.Static.Evidence[k], ref{role: "static/" + k})
	}
	for _, k := range sortedKeys(m.Environment.Evidence) {
		add(m.Environment.Evidence[k], ref{role: "environment/" + k})
	}
	for _, rp := range m.Repetitions {
		for _, st := range rp.Stages {
			for _, k := range sortedKeys(st.Evidence) {
				add(st.Evidence[k], ref{role: fmt.Sprintf("%d/%s/%s", rp.Index, st.Stage, k), rep: rp.Index, stage: st.Stage})
			}
		}
	}
	whole := func(path, role string, b []byte) inspectFile {
		return inspectFile{Path: path, Role: role, Size: int64(len(b)), SHA256: digest(b), Present: true}
	}
	r := inspectResult{MediaType: InspectMediaType, SchemaVersion: 1, Bundle: name, Signed: arc.RawSignature != nil, Files: []inspectFile{}}
	r.Files = append(r.Files, whole(manifest.Path, "manifest", arc.RawManifest))
	if arc.RawSignature != nil {
		r.Files = append(r.Files, whole(manifest.SignaturePath, "signature", arc.RawSignature))
	}
	listed := map[string]bool{}
	for _, f := range m.Files {
		listed[f.Path] = true
		rf := roles[f.Path]
		b, present := arc.Files[f.Path]
		r.Files = append(r.Files, inspectFile{Path: f.Path, Role: rf.role, Repetition: rf.rep, Stage: rf.stage, Size: f.Size,
			SHA256: "sha256:" + f.SHA256, Listed: true, Present: present,
			Matches: present && int64(len(b)) == f.Size && digest(b) == "sha256:"+f.SHA256})
	}
	for _, p := range arc.Order {
		if !listed[p] {
			rf := roles[p]
			f := whole(p, rf.role, arc.Files[p])
			f.Repetition, f.Stage = rf.rep, rf.stage
			r.Files = append(r.Files, f)
		}
	}
	return r
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return slices.Clip(keys)
}
