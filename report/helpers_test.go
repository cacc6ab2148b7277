package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/internal/testutil/vectortest"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/verify"
)

const vectorsDir = "../testdata/vectors"

type vector = vectortest.Vector

// loadVectors reads the shared test vectors (internal/testutil/vectortest).
func loadVectors(t testing.TB) ([]vector, attest.Policy) {
	t.Helper()
	vs, keyPath := vectortest.Index(t, vectorsDir)
	key, err := attest.LoadPublicKey(keyPath)
	if err != nil {
		t.Fatal(err)
	}
	return vs, attest.Policy{Key: key}
}

func vectorInput(t testing.TB, file string, pol attest.Policy) Input {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(vectorsDir, file))
	if err != nil {
		t.Fatal(err)
	}
	return Input{Name: file, Raw: raw, Verify: verify.Options{Policy: pol}}
}

// render builds and writes one page.
func render(t testing.TB, in Input) (*Page, []byte) {
	t.Helper()
	p, err := Build(context.Background(), in)
	if err != nil {
		t.Fatalf("Build %s: %v", in.Name, err)
	}
	var buf bytes.Buffer
	if err := WritePage(&buf, p); err != nil {
		t.Fatalf("WritePage %s: %v", in.Name, err)
	}
	return p, buf.Bytes()
}

// payload is hostile text for one free-text field: markup that would run
// a script, break out of an attribute, or fetch from base (a loopback
// server that counts hits) if it were not escaped.
func payload(base, tag string) string {
	return fmt.Sprintf(`"'><script>document.documentElement.dataset.pwned=%q</script>`+
		`<img src="%s/%s.png" onerror="document.documentElement.dataset.pwned='img'">`+
		`<link rel="stylesheet" href="%s/%s.css"><iframe src="%s/%s.html"></iframe>`+
		`<style>@import url(%s/%s-import.css);</style><a href="javascript:alert(1)">x</a>`,
		tag, base, tag, base, tag, base, tag, base, tag)
}

// rewriteVector reads the boot_failed vector, lets edit change its
// manifest and files, lists the files again and signs the result with
// the vectors' key, as a writer holding that key could.
func rewriteVector(t testing.TB, edit func(m *manifest.Manifest, files map[string][]byte)) []byte {
	t.Helper()
	_, arc, m := vectortest.ReadBundle(t, filepath.Join(vectorsDir, "boot_failed.dshaudit.tar.zst"))
	files := arc.Files
	edit(m, files)
	m.Files = bundle.FileList(files)
	man, err := manifest.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := attest.LoadSigner(filepath.Join(vectorsDir, "keys", "signer.key"))
	if err != nil {
		t.Fatal(err)
	}
	sig, err := attest.Sign(context.Background(), man, attest.Predicate{
		Tool: attest.Tool{Name: m.Tool.Name, Version: m.Tool.Version}, Subject: attest.Package{Name: m.Subject.Name, Version: m.Subject.Version},
		Verdict: assemble.PredicateVerdict(m),
	}, signer)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := bundle.Write(&out, bundle.Contents{Manifest: man, Signature: sig, Files: files}); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// hostileBundle rewrites the boot_failed vector with payloads in every
// free-text field of the manifest, in evidence lines, in an evidence
// role and in a stage name. It does not verify (its claims no longer
// match), which is also shown.
func hostileBundle(t testing.TB, base string) []byte {
	t.Helper()
	return rewriteVector(t, func(m *manifest.Manifest, files map[string][]byte) {
		p := func(tag string) string { return payload(base, tag) }
		m.Subject.Spec = p("spec")
		m.Subject.Source = p("source")
		m.Subject.Integrity = p("integrity")
		m.Image.Name = p("image")
		m.Image.Digest = p("digest")
		m.Fingerprint = p("fingerprint")
		m.Baseline = p("baseline")
		m.Standards = append(m.Standards, p("standard"))
		m.TestDate = p("date")
		m.StartedAt = p("started")
		m.FinishedAt = p("finished")
		short := func(tag string) string {
			return `<script>document.documentElement.dataset.pwned="` + tag + `"</script>`
		}
		m.Tool = manifest.Tool{Name: short("tool"), Version: short("toolversion")}
		m.Subject.Version = short("version")
		m.Conditions.Fixed = append(m.Conditions.Fixed, manifest.Condition{Name: p("condname"), Value: p("condvalue")})
		m.Deviations = append(m.Deviations, manifest.Deviation{What: p("what"), Standard: p("standard"), ChangedTo: p("changedto"), Why: p("why"), Clause: p("clause")})
		m.Declaration = p("declaration")
		m.Static.PatchFetchError = p("patchfetch")

		rp := &m.Repetitions[0]
		for i := range rp.Stages {
			st := &rp.Stages[i]
			st.Argv = append(st.Argv, p("argv"))
			st.Network = p("network")
			st.FirstError = p("firsterror")
			for _, role := range []string{manifest.RoleMerged, manifest.RoleStderr} {
				path := st.Evidence[role]
				files[path] = append([]byte("Error: "+p("evidence-"+st.Stage+"-"+role)+"\n\x1b[31m"+p("ansi")+"\x1b[0m\n"), files[path]...)
			}
			st.Evidence[p("role")] = st.Evidence[manifest.RoleStdout]
		}
		rp.Stages = append(rp.Stages, manifest.Stage{Stage: p("stage"), Status: p("status"), Verdict: p("verdict")})
	})
}

// hostileClaim and hostileReplay carry payloads too.
func hostileClaim(base string) *ClaimInput {
	return &ClaimInput{Name: payload(base, "claimname"), Text: []byte("# Plugin\n\nConforms to DSHIO/T 10—2026 (baseline DSH " + payload(base, "claimtext") + ", static layer only)\nThis plugin is certified " + payload(base, "certified") + "\n")}
}

func hostileReplay(base string) []byte {
	p := func(tag string) string { return payload(base, tag) }
	b, _ := json.Marshal(map[string]any{
		"media_type": ReplayMediaType, "outcome": p("outcome"), "original": p("original"), "original_sha256": p("sha"),
		"why":     p("replaywhy"),
		"written": map[string]any{"path": p("writtenpath"), "sha256": p("writtensha")},
		"comparison": map[string]any{
			"outcome": "different", "first_different": p("firstdifferent"), "old_verdict": p("old"), "new_verdict": p("new"),
			"stages": []map[string]any{{"repetition": 1, "stage": p("rowstage"), "old_status": p("oldstatus"), "new_status": p("newstatus"),
				"old_first_error": p("oldfe"), "new_first_error": p("newfe"), "differences": []string{p("difference")}}},
			"diff": []string{p("diff")}, "fingerprints_equal": false, "changed_conditions": []string{p("changed")}, "normalisation": []string{p("norm")},
		},
	})
	return b
}

func verifyOptions(pol attest.Policy) verify.Options { return verify.Options{Policy: pol} }
