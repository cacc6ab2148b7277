package main

// Keyless signing through the CLI, against the real Sigstore services of
// scripts/setup-sigstore.sh and a real run of the pass fixture: run
// --keyless, verify with a trusted root and an identity rule (and the
// refusals), cosign, and replay checking the original signer's identity.
// The attest-level end-to-end tests (../../attest/keyless_e2e_test.go)
// cover the timestamp outside the certificate's validity and the GitHub
// Actions token request without a container.

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/attest/signed"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/internal/termtext"
	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
	"github.com/dshaudit/dshaudit/internal/testutil/schematest"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/verify"
)

func TestKeylessCLIEndToEnd(t *testing.T) {
	ss := e2etest.RequireSigstore(t)
	img := cliImage(t)
	dir := t.TempDir()
	pass, err := filepath.Abs("../../testdata/plugins/pass")
	if err != nil {
		t.Fatal(err)
	}
	orig := filepath.Join(dir, "pass"+manifest.BundleSuffix)
	code, _, errs := timedCLI(t, "keyless run", "run", pass, "--image", img, "--keyless",
		"--identity-token", ss.TokenFile(t, nil), "--signing-config", ss.SigningConfig,
		"--t1-workspace-root", "--repeat", "1", "--out", orig)
	if code != ExitOK {
		t.Fatalf("keyless run: exit %d, want %d (pass)\n%s", code, ExitOK, errs)
	}
	trust := []string{"--trusted-root", ss.TrustedRoot}
	rule := []string{"--certificate-identity", e2etest.DefaultIdentity, "--certificate-oidc-issuer", ss.Issuer}

	// verify: the signer and its workflow, escaped; --json by the schema.
	code, vout, verrs := runRunCLI(t, append(append([]string{"verify", orig}, trust...), rule...)...)
	if code != ExitOK {
		t.Fatalf("verify: exit %d\n%s\n%s", code, vout, verrs)
	}
	for _, want := range []string{
		"signer:       " + e2etest.DefaultIdentity + " (issuer " + ss.Issuer + ")",
		"repository: https://github.com/dshaudit-e2e/hello-plugin",
		"ref:        refs/tags/v1.0.0",
		"workflow:   https://github.com/dshaudit-e2e/hello-plugin/.github/workflows/release.yml@refs/tags/v1.0.0",
		"run:        https://github.com/dshaudit-e2e/hello-plugin/actions/runs/4242/attempts/1",
		"(verified timestamp)",
		"RESULT:",
	} {
		if !strings.Contains(vout, want) {
			t.Errorf("verify output lacks %q:\n%s", want, vout)
		}
	}
	code, jout, _ := runRunCLI(t, append(append([]string{"verify", orig, "--json"}, trust...), rule...)...)
	schematest.Validate(t, "verify-result", []byte(jout))
	var rep verify.Report
	if err := json.Unmarshal([]byte(jout), &rep); err != nil || code != ExitOK {
		t.Fatalf("verify --json: exit %d %v\n%s", code, err, jout)
	}
	if c := rep.Certificate; c == nil || c.Identity != e2etest.DefaultIdentity || c.Issuer != ss.Issuer || c.SourceRepositoryRef != "refs/tags/v1.0.0" || len(rep.SignedAt) != 1 {
		t.Errorf("--json certificate %+v signed_at %v", rep.Certificate, rep.SignedAt)
	}

	// report: the same signer and workflow on the page.
	page := filepath.Join(dir, "page.html")
	if code, _, errs := runRunCLI(t, append(append([]string{"report", orig, "-o", page}, trust...), rule...)...); code != ExitOK {
		t.Errorf("report: exit %d\n%s", code, errs)
	} else if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), "<dt>Workflow</dt><dd class=\"mono\">https://github.com/dshaudit-e2e/hello-plugin/.github/workflows/release.yml@refs/tags/v1.0.0</dd>") {
		t.Errorf("report page lacks the workflow: %v", err)
	}

	// Another identity or issuer: exit 1, naming what was expected and
	// what the certificate holds.
	for _, tc := range []struct {
		rule            []string
		expected, holds string
	}{
		{[]string{"--certificate-identity", "https://github.com/dshaudit-e2e/hello-plugin/.github/workflows/release.yml@refs/heads/main", "--certificate-oidc-issuer", ss.Issuer},
			"refs/heads/main", e2etest.DefaultIdentity},
		{[]string{"--certificate-identity-regexp", "^https://github.com/other/", "--certificate-oidc-issuer", ss.Issuer}, "^https://github.com/other/", e2etest.DefaultIdentity},
		{[]string{"--certificate-identity", e2etest.DefaultIdentity, "--certificate-oidc-issuer", "https://token.actions.githubusercontent.com"},
			"https://token.actions.githubusercontent.com", ss.Issuer},
	} {
		code, out, errs := runRunCLI(t, append(append([]string{"verify", orig}, trust...), tc.rule...)...)
		if code != ExitFindings || !strings.Contains(out, "signature-invalid") || !strings.Contains(out, tc.expected) || !strings.Contains(out, tc.holds) {
			t.Errorf("rule %v: exit %d, want %d naming %q and %q\n%s\n%s", tc.rule, code, ExitFindings, tc.expected, tc.holds, out, errs)
		}
	}
	// The certificate's SCT is checked against the trusted root's CT
	// log: a root without it refuses the bundle, unless waived.
	noCT := filepath.Join(dir, "trusted_root-no-ct.json")
	var tr map[string]any
	if b, err := os.ReadFile(ss.TrustedRoot); err != nil || json.Unmarshal(b, &tr) != nil {
		t.Fatalf("trusted root: %v", err)
	}
	tr["ctlogs"] = []any{}
	b, _ := json.Marshal(tr)
	os.WriteFile(noCT, b, 0o644)
	if code, out, _ := runRunCLI(t, append([]string{"verify", orig, "--trusted-root", noCT}, rule...)...); code != ExitFindings || !strings.Contains(out, "SCT") && !strings.Contains(out, "certificate timestamp") {
		t.Errorf("no CT log in the trusted root: exit %d, want %d naming the SCT\n%s", code, ExitFindings, out)
	}
	if code, out, _ := runRunCLI(t, append([]string{"verify", orig, "--trusted-root", noCT, "--insecure-ignore-sct"}, rule...)...); code != ExitOK {
		t.Errorf("no CT log, --insecure-ignore-sct: exit %d, want %d\n%s", code, ExitOK, out)
	}
	// A key policy refuses a keyless bundle.
	_, pub := runTestKey(t)
	if code, out, _ := runRunCLI(t, "verify", orig, "--key", pub); code != ExitFindings || !strings.Contains(out, "certificate") {
		t.Errorf("--key on a keyless bundle: exit %d\n%s", code, out)
	}

	raw, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	// Tampered: one byte of evidence, and a re-signed manifest under
	// another identity's signature file.
	edited := filepath.Join(dir, "edited"+manifest.BundleSuffix)
	os.WriteFile(edited, editEvidenceByte(t, raw, "repetitions/1/T1/stdout"), 0o644)
	if code, out, _ := runRunCLI(t, append(append([]string{"verify", edited}, trust...), rule...)...); code != ExitFindings || !strings.Contains(out, "tampered") {
		t.Errorf("edited evidence: exit %d, want %d tampered\n%s", code, ExitFindings, out)
	}

	// cosign, with the same trusted root and identity.
	arc, err := bundle.Read(bytes.NewReader(raw), bundle.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	cdir := t.TempDir()
	os.WriteFile(filepath.Join(cdir, "manifest.json"), arc.RawManifest, 0o644)
	os.WriteFile(filepath.Join(cdir, "signature.sigstore.json"), arc.RawSignature, 0o644)
	cmd := exec.Command(ss.Cosign, "verify-blob-attestation", "--bundle", "signature.sigstore.json",
		"--trusted-root", ss.TrustedRoot, "--certificate-identity", e2etest.DefaultIdentity, "--certificate-oidc-issuer", ss.Issuer,
		"--type", attest.PredicateType, "manifest.json")
	cmd.Dir = cdir
	cmd.Env = append(os.Environ(), "HOME="+cdir, "TUF_ROOT="+filepath.Join(cdir, "tuf"))
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "Verified OK") {
		t.Errorf("cosign verify-blob-attestation: %v\n%s", err, out)
	}

	// replay checks the original signer's identity: another identity is
	// refused before anything runs; the right one replays, signing the
	// new bundle keylessly too (a token from $SIGSTORE_ID_TOKEN).
	t.Setenv(attest.IDTokenEnv, ss.Token(t, map[string]string{"ref": "refs/heads/main"}))
	keyless := []string{"--keyless", "--signing-config", ss.SigningConfig}
	out := filepath.Join(dir, "pass.replay"+manifest.BundleSuffix)
	wrong := []string{"--certificate-identity", "https://github.com/someone/else/.github/workflows/x.yml@refs/heads/main", "--certificate-oidc-issuer", ss.Issuer}
	code, stdout, errs := timedCLI(t, "replay, another identity", append(append(append([]string{"replay", orig, "--package-file", pass, "--out", out}, trust...), wrong...), keyless...)...)
	if code != ExitFindings || !strings.Contains(errs, "does not verify") || !strings.Contains(errs, "nothing was run") {
		t.Errorf("replay with another identity: exit %d, want %d\nstdout %s\nstderr %s", code, ExitFindings, stdout, errs)
	}
	assertAbsent(t, out)
	start := time.Now()
	code, stdout, errs = timedCLI(t, "keyless replay", append(append(append([]string{"replay", orig, "--package-file", pass, "--out", out, "--json"}, trust...), rule...), keyless...)...)
	if code != ExitOK {
		t.Fatalf("keyless replay: exit %d (%v)\nstdout %s\nstderr %s", code, time.Since(start), stdout, errs)
	}
	if r := decodeReplay(t, stdout); !r.Verified || r.Written == nil {
		t.Errorf("replay result %+v", r)
	}
	code, vout, _ = runRunCLI(t, append(append([]string{"verify", out}, trust...), rule...)...)
	// Signed with the replayer's token (ref refs/heads/main), not the
	// original's.
	if code != ExitOK || !strings.Contains(vout, "ref:        refs/heads/main") {
		t.Errorf("verify of the keyless replay: exit %d\n%s", code, vout)
	}
}

// TestKeylessUsageErrors: keyless flags that cannot work are usage errors
// (exit 2), before any engine is used.
func TestKeylessUsageErrors(t *testing.T) {
	key, pub := runTestKey(t)
	t.Setenv(attest.IDTokenEnv, "")
	t.Setenv(attest.ActionsRequestURLEnv, "")
	t.Setenv(attest.ActionsRequestTokenEnv, "")
	tok := filepath.Join(t.TempDir(), "tok")
	os.WriteFile(tok, []byte("a.b.c\n"), 0o600)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"key and keyless", []string{"run", "./x", "--image", fakePinned, "--signing-key", key, "--keyless", "--identity-token", tok}, "not both"},
		{"neither", []string{"run", "./x", "--image", fakePinned}, "--keyless"},
		{"no token", []string{"run", "./x", "--image", fakePinned, "--keyless"}, "no OIDC identity token"},
		{"token without keyless", []string{"run", "./x", "--image", fakePinned, "--signing-key", key, "--identity-token", tok}, "need --keyless"},
		{"config and flags", []string{"run", "./x", "--image", fakePinned, "--keyless", "--identity-token", tok, "--signing-config", tok, "--fulcio-url", "http://127.0.0.1:1"}, "not both"},
		{"bad config", []string{"run", "./x", "--image", fakePinned, "--keyless", "--identity-token", tok, "--signing-config", tok}, "signing config"},
		{"no timestamp authority", []string{"run", "./x", "--image", fakePinned, "--keyless", "--identity-token", tok, "--timestamp-url", ""}, "timestamp"},
		{"bad rekor version", []string{"run", "./x", "--image", fakePinned, "--keyless", "--identity-token", tok, "--rekor-api-version", "3"}, "1 or 2"},
		{"not a token", []string{"run", "./x", "--image", fakePinned, "--keyless", "--identity-token", key}, "not a JWT"},
		{"replay neither", []string{"replay", "x.dshaudit.tar.zst", "--key", pub}, "--keyless"},
		{"batch keyless without a trusted root", []string{"batch", "./x", "--image", fakePinned, "--out", t.TempDir(), "--keyless", "--identity-token", tok}, "--trusted-root"},
		{"batch trusted root without keyless", []string{"batch", "./x", "--image", fakePinned, "--out", t.TempDir(), "--signing-key", key, "--trusted-root", tok}, "--keyless"},
		{"batch key and keyless", []string{"batch", "./x", "--image", fakePinned, "--out", t.TempDir(), "--signing-key", key, "--keyless", "--identity-token", tok}, "not both"},
	} {
		code, out, errs := runRunCLI(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout %q; want exit %d mentioning %q", tc.name, code, errs, out, ExitUsage, tc.want)
		}
	}
}

// TestBatchKeylessTaskArgs: batch hands every task --keyless and the
// keyless flags given, paths made absolute, and no key.
func TestBatchKeylessTaskArgs(t *testing.T) {
	o := &batchOptions{}
	c := batchCommand(o, &streams{})
	if err := c.ParseFlags([]string{"--keyless", "--identity-token", "tok", "--timestamp-url", "http://127.0.0.1:1/a", "--timestamp-url", "http://127.0.0.1:2/b", "--rekor-url", ""}); err != nil {
		t.Fatal(err)
	}
	args, err := o.Sign.Keyless.taskArgs()
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("tok")
	want := []string{"--keyless", "--identity-token=" + abs, "--timestamp-url=http://127.0.0.1:1/a", "--timestamp-url=http://127.0.0.1:2/b", "--rekor-url="}
	if strings.Join(args, " ") != strings.Join(want, " ") {
		t.Errorf("task args %q, want %q", args, want)
	}
}

// TestKeylessBatchLocal: batch --keyless on this machine; the task gets
// its token from $SIGSTORE_ID_TOKEN when it signs, and batch verifies the
// bundle with the trusted root and identity rule; a second batch finds it
// verified and runs nothing.
func TestKeylessBatchLocal(t *testing.T) {
	ss := e2etest.RequireSigstore(t)
	img := cliImage(t)
	bin := filepath.Join(t.TempDir(), "dshaudit")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	pass, err := filepath.Abs("../../testdata/plugins/pass")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(attest.IDTokenEnv, ss.Token(t, nil))
	dir := t.TempDir()
	args := []string{"batch", pass, "--on", "local", "--image", img, "--out", dir, "--task-dshaudit", bin,
		"--keyless", "--signing-config", ss.SigningConfig,
		"--trusted-root", ss.TrustedRoot,
		"--certificate-identity", e2etest.DefaultIdentity, "--certificate-oidc-issuer", ss.Issuer,
		"--t1-workspace-root", "--repeat", "1", "--json"}
	code, stdout, errs := timedCLI(t, "keyless batch", args...)
	if code != ExitOK {
		t.Fatalf("keyless batch: exit %d\nstdout %s\nstderr %s", code, stdout, errs)
	}
	var res struct {
		Bundles []verify.Item `json:"bundles"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || len(res.Bundles) != 1 || res.Bundles[0].Report == nil {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	if b := res.Bundles[0].Report; b.Status != "verified" || b.Certificate == nil || b.Certificate.Identity != e2etest.DefaultIdentity {
		t.Errorf("bundle %+v", b)
	}
	// Resumable: the verified bundle is not run again.
	code, stdout, errs = timedCLI(t, "keyless batch again", args...)
	var again struct {
		Tasks []struct {
			State string `json:"state"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(stdout), &again); code != ExitOK || err != nil || len(again.Tasks) != 1 || again.Tasks[0].State != "done earlier" {
		t.Errorf("second batch: exit %d %v\nstdout %s\nstderr %s", code, err, stdout, errs)
	}
}

// TestPrintCertificateEscapes: what a certificate says is the signer's
// text (Fulcio copies it from the token's claims): it is escaped, so no
// value can start a line of its own or act on the terminal.
func TestPrintCertificateEscapes(t *testing.T) {
	hostile := "https://github.com/o/r\nRESULT: verified\x1b[2J\u202e"
	c := &signed.Certificate{Identity: hostile, Issuer: hostile, SourceRepository: hostile, SourceRepositoryRef: hostile,
		SourceRepositoryDigest: hostile, Workflow: hostile, Trigger: hostile, Run: hostile,
		NotBefore: time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC), NotAfter: time.Date(2026, 12, 4, 10, 10, 0, 0, time.UTC)}
	var out bytes.Buffer
	printCertificate(&out, termtext.Style{Width: 80, MaxText: termtext.DefaultMaxText}, c, []time.Time{time.Date(2026, 12, 4, 10, 0, 1, 0, time.UTC)})
	text := out.String()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != 8 || strings.ContainsAny(text, "\x1b\u202e") {
		t.Fatalf("%d lines, raw control characters %v:\n%s", len(lines), strings.ContainsAny(text, "\x1b\u202e"), text)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "RESULT") {
			t.Errorf("line %q is not an indented field of ours", l)
		}
	}
	if !strings.Contains(text, `\n`) || !strings.Contains(text, `\x1b`) || !strings.Contains(text, "signed:     2026-12-04T10:00:01Z") {
		t.Errorf("not escaped as expected:\n%s", text)
	}
}

// TestAuditWorkflowCLIEndToEnd: a run signed with the audit workflow's
// identity (the loopback issuer's job_workflow_ref: this repository's
// audit workflow at the tag of this binary's version) verifies under
// --certificate-audit-workflow, says so in text and --json, writes a
// summary with DSHIO_AUDIT_WORKFLOW that verify-summary accepts under the
// same policy; a policy naming another tag is a signature-invalid finding
// naming both values (SPEC.md "Runner policy").
func TestAuditWorkflowCLIEndToEnd(t *testing.T) {
	ss := e2etest.RequireSigstore(t)
	img := cliImage(t)
	dir := t.TempDir()
	pass, err := filepath.Abs("../../testdata/plugins/pass")
	if err != nil {
		t.Fatal(err)
	}
	ref := "dshaudit/dshaudit/.github/workflows/audit.yml@refs/tags/v" + version
	wf := "https://github.com/" + ref
	token := ss.TokenFile(t, map[string]string{"job_workflow_ref": ref})
	orig := filepath.Join(dir, "pass"+manifest.BundleSuffix)
	code, _, errs := timedCLI(t, "audit workflow run", "run", pass, "--image", img, "--keyless",
		"--identity-token", token, "--signing-config", ss.SigningConfig, "--t1-workspace-root", "--repeat", "1", "--out", orig)
	if code != ExitOK {
		t.Fatalf("run: exit %d\n%s", code, errs)
	}
	policy := []string{"--trusted-root", ss.TrustedRoot, "--certificate-audit-workflow", wf, "--certificate-oidc-issuer", ss.Issuer}
	summary := filepath.Join(dir, "pass.vsa.sigstore.json")
	code, out, errs := runRunCLI(t, append([]string{"verify", orig, "--summary", summary, "--keyless", "--identity-token", token,
		"--signing-config", ss.SigningConfig, "--summary-verifier-id", "https://dshaudit.dev/verifier"}, policy...)...)
	if code != ExitOK || !strings.Contains(out, "produced by:  the audit workflow "+wf+" on a GitHub-hosted runner") ||
		!strings.Contains(out, "runner:     github-hosted") {
		t.Fatalf("verify under the runner policy: exit %d\n%s\n%s", code, out, errs)
	}
	code, jout, _ := runRunCLI(t, append([]string{"verify", orig, "--json"}, policy...)...)
	schematest.Validate(t, "verify-result", []byte(jout))
	var rep verify.Report
	if err := json.Unmarshal([]byte(jout), &rep); err != nil || code != ExitOK || rep.ProducedBy != verify.ProducedByAuditWorkflow ||
		rep.AuditWorkflow != wf || rep.Certificate.BuildSignerURI != wf || rep.Certificate.RunnerEnvironment != "github-hosted" {
		t.Errorf("--json: exit %d %v: %s %s %+v", code, err, rep.ProducedBy, rep.AuditWorkflow, rep.Certificate)
	}
	code, out, errs = runRunCLI(t, append([]string{"verify-summary", summary, "--artifact", orig, "--level", "DSHIO_AUDIT_WORKFLOW"}, policy...)...)
	if code != ExitOK || !strings.Contains(out, "audit-workflow") {
		t.Errorf("verify-summary under the runner policy: exit %d\n%s\n%s", code, out, errs)
	}
	other := "https://github.com/dshaudit/dshaudit/.github/workflows/audit.yml@refs/tags/v9.9.9"
	code, out, _ = runRunCLI(t, "verify", orig, "--trusted-root", ss.TrustedRoot, "--certificate-audit-workflow", other, "--certificate-oidc-issuer", ss.Issuer)
	if code != ExitFindings || !strings.Contains(out, "[signature-invalid]") || !strings.Contains(out, other) {
		t.Errorf("another tag: exit %d\n%s", code, out)
	}
}
