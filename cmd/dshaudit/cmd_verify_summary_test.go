package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/internal/termtext"
	"github.com/dshaudit/dshaudit/internal/testutil/schematest"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/vsa"
)

// summaryKeys writes a summary signing key pair into dir.
func summaryKeys(t *testing.T, dir string) attest.KeyFiles {
	t.Helper()
	kf, err := attest.WriteKeyPair(dir, "registry", attest.Ed25519)
	if err != nil {
		t.Fatal(err)
	}
	return kf
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// summaryStatement is the signed statement inside a summary file.
func summaryStatement(t *testing.T, path string) *vsa.Statement {
	t.Helper()
	var b struct {
		DSSE struct {
			Payload string `json:"payload"`
		} `json:"dsseEnvelope"`
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatal(err)
	}
	p, err := base64.StdEncoding.DecodeString(b.DSSE.Payload)
	if err != nil {
		t.Fatal(err)
	}
	st, err := vsa.Decode(p)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The pass vector's summary says PASSED with its levels, is the same
// bytes written twice, and verify-summary accepts it; a tampered
// bundle's says FAILED and is refused whatever is asked.
func TestVerifySummaryRoundTrip(t *testing.T) {
	dir := t.TempDir()
	kf := summaryKeys(t, dir)
	pass := vecDir + "pass.dshaudit.tar.zst"
	sum1, sum2, env := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "a.dsse.json")
	for _, out := range []string{sum1, sum2} {
		code, _, stderr := runCLI(t, "verify", pass, "--key", vecKey, "--summary", out, "--summary-key", kf.PrivatePath, "--summary-dsse", env)
		if code != 0 {
			t.Fatalf("verify --summary: exit %d: %s", code, stderr)
		}
	}
	a, _ := os.ReadFile(sum1)
	b, _ := os.ReadFile(sum2)
	if !bytes.Equal(a, b) {
		t.Fatal("the same verification gave two different summaries")
	}
	st := summaryStatement(t, sum1)
	p := st.Predicate
	if p.VerificationResult != vsa.Passed || p.ResourceURI != "pkg:npm/hello-dsh-plugin@1.0.0" || p.TimeVerified != "" {
		t.Fatalf("predicate %+v", p)
	}
	if !strings.Contains(strings.Join(p.VerifiedLevels, " "), vsa.DynamicLevel("pass")) {
		t.Fatalf("levels %q", p.VerifiedLevels)
	}
	if p.Policy.URI == "" || len(p.Policy.Digest["sha256"]) != 64 || len(p.InputAttestations) != 2 {
		t.Fatalf("policy or inputs %+v", p)
	}
	if raw, _ := json.Marshal(st.Predicate); true {
		schematest.Validate(t, "vsa-predicate", raw)
	}
	var envelope struct {
		PayloadType string `json:"payloadType"`
	}
	if raw, err := os.ReadFile(env); err != nil || json.Unmarshal(raw, &envelope) != nil || envelope.PayloadType != attest.PayloadType {
		t.Fatalf("DSSE envelope: %v %+v", err, envelope)
	}

	base := []string{"verify-summary", sum1, "--key", kf.PublicPath, "--artifact", pass}
	code, out, stderr := runCLI(t, append(base, "--resource-uri", "pkg:npm/hello-dsh-plugin@1.0.0", "--level", "DSHIO_DYNAMIC_PASS")...)
	if code != 0 || !strings.Contains(out, "RESULT: accepted") {
		t.Fatalf("verify-summary: exit %d\n%s%s", code, out, stderr)
	}
	code, out, _ = runCLI(t, append(base, "--json")...)
	if code != 0 {
		t.Fatalf("verify-summary --json: exit %d\n%s", code, out)
	}
	schematest.Validate(t, "summary-check-result", []byte(out))

	for name, c := range map[string]struct {
		args []string
		code int
	}{
		"other resource":     {append(base, "--resource-uri", "pkg:npm/other@1.0.0"), 1},
		"missing level":      {append(base, "--level", "DSHIO_DYNAMIC_BOOT_FAILED"), 1},
		"other verifier":     {append(base, "--verifier-id", "https://registry.example/"), 1},
		"other artifact":     {[]string{"verify-summary", sum1, "--key", kf.PublicPath, "--artifact", vecDir + "boot_failed.dshaudit.tar.zst"}, 1},
		"other key":          {[]string{"verify-summary", sum1, "--key", vecKey, "--artifact", pass}, 1},
		"envelope alone":     {[]string{"verify-summary", env, "--key", kf.PublicPath, "--artifact", pass}, 1},
		"no artifact":        {[]string{"verify-summary", sum1, "--key", kf.PublicPath}, 2},
		"no policy":          {[]string{"verify-summary", sum1, "--artifact", pass}, 2},
		"bad digest":         {[]string{"verify-summary", sum1, "--key", kf.PublicPath, "--subject-digest", "sha256"}, 2},
		"digest form":        {[]string{"verify-summary", sum1, "--key", kf.PublicPath, "--subject-digest", "sha256:" + fileSHA256(t, pass)}, 0},
		"summary no key":     {[]string{"verify", pass, "--key", vecKey, "--summary", filepath.Join(dir, "x.json")}, 2},
		"key no summary":     {[]string{"verify", pass, "--key", vecKey, "--summary-key", kf.PrivatePath}, 2},
		"bad now":            {[]string{"verify", pass, "--key", vecKey, "--now", "yesterday"}, 2},
		"keyless no summary": {[]string{"verify", pass, "--key", vecKey, "--keyless"}, 2},
		"keyless and key":    {[]string{"verify", pass, "--key", vecKey, "--summary", filepath.Join(dir, "x.json"), "--summary-key", kf.PrivatePath, "--keyless"}, 2},
		"token no keyless":   {[]string{"verify", pass, "--key", vecKey, "--summary", filepath.Join(dir, "x.json"), "--summary-key", kf.PrivatePath, "--identity-token", filepath.Join(dir, "tok")}, 2},
		"config and fulcio":  {[]string{"verify", pass, "--key", vecKey, "--summary", filepath.Join(dir, "x.json"), "--keyless", "--signing-config", filepath.Join(dir, "sc.json"), "--fulcio-url", "http://127.0.0.1:1"}, 2},
		"many bundles":       {[]string{"verify", pass, vecDir + "boot_failed.dshaudit.tar.zst", "--key", vecKey, "--summary", filepath.Join(dir, "x.json"), "--summary-key", kf.PrivatePath}, 2},
		"relative verifier":  {[]string{"verify", pass, "--key", vecKey, "--summary", filepath.Join(dir, "x.json"), "--summary-key", kf.PrivatePath, "--summary-verifier-id", "me"}, 2},
	} {
		if code, out, stderr := runCLI(t, c.args...); code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", name, code, c.code, out, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.json")); err == nil {
		t.Error("a summary was written by a refused command")
	}

	// A tampered bundle: verify exits 1, and its summary says FAILED.
	failed := filepath.Join(dir, "failed.json")
	tampered := vecDir + "edited_stdout.dshaudit.tar.zst"
	if code, _, stderr := runCLI(t, "verify", tampered, "--key", vecKey, "--summary", failed, "--summary-key", kf.PrivatePath); code != 1 {
		t.Fatalf("verify of a tampered bundle: exit %d: %s", code, stderr)
	}
	if p := summaryStatement(t, failed).Predicate; p.VerificationResult != vsa.Failed || strings.Join(p.VerifiedLevels, ",") != vsa.Failed {
		t.Fatalf("tampered bundle's summary: %+v", p)
	}
	// No readable manifest: no summary, and the exit status of the verification.
	none := filepath.Join(dir, "none.json")
	if code, _, stderr := runCLI(t, "verify", vecDir+"path_traversal.dshaudit.tar.zst", "--key", vecKey, "--summary", none, "--summary-key", kf.PrivatePath); code != 1 || !strings.Contains(stderr, "no verification summary written") {
		t.Errorf("bundle without a readable manifest: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(none); err == nil {
		t.Error("a summary was written for a bundle without a readable manifest")
	}
	code, out, _ = runCLI(t, "verify-summary", failed, "--key", kf.PublicPath, "--artifact", tampered)
	if code != 1 || !strings.Contains(out, "RESULT: not accepted") {
		t.Fatalf("a FAILED summary: exit %d\n%s", code, out)
	}
}

// --now gives timeVerified, in UTC.
func TestVerifySummaryNow(t *testing.T) {
	dir := t.TempDir()
	kf := summaryKeys(t, dir)
	out := filepath.Join(dir, "s.json")
	if code, _, stderr := runCLI(t, "verify", vecDir+"pass.dshaudit.tar.zst", "--key", vecKey, "--summary", out, "--summary-key", kf.PrivatePath, "--now", "2026-12-04T13:00:00+01:00"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := summaryStatement(t, out).Predicate.TimeVerified; got != "2026-12-04T12:00:00Z" {
		t.Fatalf("timeVerified %q", got)
	}
}

// Text from a bundle cannot become Markdown structure in the step summary.
func TestMarkdownTextInert(t *testing.T) {
	st := termtextStyle()
	for _, v := range []string{"# heading\n| a | b |", "<script>x</script>", "[link](https://evil.example)", "*em* _u_ `code` \\"} {
		got := mdText(st, v)
		if strings.ContainsAny(got, "\n\r") {
			t.Errorf("mdText(%q) = %q holds a line break", v, got)
		}
		for i := 0; i < len(got); i++ {
			if strings.IndexByte("#|<>[]()*_`", got[i]) >= 0 && (i == 0 || got[i-1] != '\\') {
				t.Errorf("mdText(%q) = %q: %q at %d is not escaped", v, got, got[i], i)
			}
		}
	}
	dir := t.TempDir()
	md := filepath.Join(dir, "step.md")
	os.WriteFile(md, []byte("before\n"), 0o644)
	if code, _, stderr := runCLI(t, "verify", vecDir+"boot_failed.dshaudit.tar.zst", "--key", vecKey, "--step-summary", md); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(md)
	if !strings.HasPrefix(string(b), "before\n### dshaudit: verified: ") || !strings.Contains(string(b), "boot\\_failed, re\\-derived from the evidence") {
		t.Fatalf("step summary:\n%s", b)
	}
	// A bundle that did not verify says so first, and no verdict reads as verified.
	md2 := filepath.Join(dir, "step2.md")
	if code, _, stderr := runCLI(t, "verify", vecDir+"edited_stdout.dshaudit.tar.zst", "--key", vecKey, "--step-summary", md2); code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ = os.ReadFile(md2)
	if !strings.HasPrefix(string(b), "### dshaudit: NOT VERIFIED (tampered)") || !strings.Contains(string(b), "no verified verdict") || !strings.Contains(string(b), "(unverified)") {
		t.Fatalf("step summary of a tampered bundle:\n%s", b)
	}
}

func termtextStyle() termtext.Style { return termtext.Style{MaxText: termtext.DefaultMaxText} }

// heldTarball writes the tested tarball a vector holds into dir.
func heldTarball(t *testing.T, vector, dir string) string {
	t.Helper()
	f, err := os.Open(vector)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := bundle.Read(f, bundle.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	tgz, ok := a.Files[manifest.StaticPath(manifest.RoleTarball)]
	if !ok {
		t.Fatalf("%s holds no tarball", vector)
	}
	p := filepath.Join(dir, "package.tgz")
	if err := os.WriteFile(p, tgz, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A summary vouches only for the tarball the bundle holds (SPEC.md "The
// tested tarball"): verify --artifact and verify-summary --artifact pass
// for it and fail for another tarball of the same name and version; a
// bundle holding none gives a summary with no package subject, which no
// tarball passes.
func TestSummaryNamesHeldTarball(t *testing.T) {
	dir := t.TempDir()
	kf := summaryKeys(t, dir)
	pass := vecDir + "pass.dshaudit.tar.zst"
	tested := heldTarball(t, pass, dir)
	b, _ := os.ReadFile(tested)
	other := filepath.Join(dir, "other", "hello-dsh-plugin-1.0.0.tgz")
	os.MkdirAll(filepath.Dir(other), 0o755)
	// The same package, another payload: a byte of the gzip header's OS field.
	ob := bytes.Clone(b)
	ob[9] ^= 1
	if err := os.WriteFile(other, ob, 0o644); err != nil {
		t.Fatal(err)
	}

	if code, out, stderr := runCLI(t, "verify", pass, "--key", vecKey, "--artifact", tested); code != 0 || !strings.Contains(out, "held in the bundle") {
		t.Fatalf("verify --artifact the tested tarball: exit %d\n%s%s", code, out, stderr)
	}
	code, out, _ := runCLI(t, "verify", pass, "--key", vecKey, "--artifact", other, "--json")
	if code != 1 || !strings.Contains(out, `"field": "artifact"`) {
		t.Fatalf("verify --artifact another tarball: exit %d\n%s", code, out)
	}
	schematest.Validate(t, "verify-result", []byte(out))

	sum := filepath.Join(dir, "pass.json")
	if code, _, stderr := runCLI(t, "verify", pass, "--key", vecKey, "--summary", sum, "--summary-key", kf.PrivatePath); code != 0 {
		t.Fatalf("verify --summary: exit %d: %s", code, stderr)
	}
	st := summaryStatement(t, sum)
	want := vsa.TarballOf(b)
	if len(st.Subject) != 2 || st.Subject[0].Digest["sha256"] != want.SHA256() || st.Subject[0].Digest["sha512"] != want.SHA512() {
		t.Fatalf("summary subjects %+v, want the held tarball's digests first", st.Subject)
	}
	if code, out, _ := runCLI(t, "verify-summary", sum, "--key", kf.PublicPath, "--artifact", tested); code != 0 {
		t.Fatalf("verify-summary --artifact the tested tarball: exit %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, "verify-summary", sum, "--key", kf.PublicPath, "--artifact", other); code != 1 {
		t.Fatalf("verify-summary --artifact another tarball: exit %d\n%s", code, out)
	}

	// Before specification version 1.15: no tarball held, the subject's digests the writer's word.
	legacy := vecDir + "legacy_no_tarball.dshaudit.tar.zst"
	lsum := filepath.Join(dir, "legacy.json")
	code, out, stderr := runCLI(t, "verify", legacy, "--key", vecKey, "--summary", lsum, "--summary-key", kf.PrivatePath)
	if code != 0 || !strings.Contains(out, "not held in the bundle") || !strings.Contains(out, "subject.tarball_sha256") {
		t.Fatalf("verify of a bundle without a tarball: exit %d\n%s%s", code, out, stderr)
	}
	if st := summaryStatement(t, lsum); len(st.Subject) != 1 || st.Subject[0].Name != filepath.Base(legacy) {
		t.Fatalf("a summary of a bundle without a tarball names %+v", st.Subject)
	}
	if code, out, _ := runCLI(t, "verify-summary", lsum, "--key", kf.PublicPath, "--artifact", tested); code != 1 {
		t.Fatalf("verify-summary --artifact for a bundle without a tarball: exit %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, "verify", legacy, "--key", vecKey, "--artifact", tested); code != 1 || !strings.Contains(out, "holds no tested tarball") {
		t.Fatalf("verify --artifact for a bundle without a tarball: exit %d\n%s", code, out)
	}
}
