package attest_test

// Keyless signing against the real Sigstore services of
// scripts/setup-sigstore.sh (Fulcio, timestamp authority, Rekor v2, the
// test OIDC issuer), end to end without a container: signing, what
// verify establishes, and the refusals.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/attest/signed"
	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
)

const testOIDCIdentity = e2etest.DefaultIdentity

func keylessSigner(t *testing.T, ss *e2etest.Sigstore, token func(context.Context) (string, error)) *attest.KeylessSigner {
	t.Helper()
	sc, err := attest.LoadSigningConfig(ss.SigningConfig)
	if err != nil {
		t.Fatal(err)
	}
	ks, err := attest.NewKeylessSigner(attest.KeylessOptions{SigningConfig: sc, IDToken: token})
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

func staticToken(tok string) func(context.Context) (string, error) {
	return func(context.Context) (string, error) { return tok, nil }
}

func e2ePolicy(t *testing.T, ss *e2etest.Sigstore, identity, issuer string) attest.Policy {
	t.Helper()
	tr, err := attest.LoadTrustedRoot(ss.TrustedRoot)
	if err != nil {
		t.Fatal(err)
	}
	return attest.Policy{Keyless: &attest.KeylessPolicy{TrustedMaterial: tr, Identity: identity, OIDCIssuer: issuer}}
}

var (
	keylessOnce sync.Once
	keylessSig  []byte
	keylessErr  error
)

// signedKeyless signs testManifest once per test binary.
func signedKeyless(t *testing.T, ss *e2etest.Sigstore) []byte {
	t.Helper()
	tok := ss.Token(t, nil)
	keylessOnce.Do(func() {
		start := time.Now()
		keylessSig, keylessErr = attest.Sign(context.Background(), testManifest, testPredicate, keylessSigner(t, ss, staticToken(tok)))
		t.Logf("keyless signing (Fulcio, timestamp, Rekor v2 entry): %v", time.Since(start))
	})
	if keylessErr != nil {
		t.Fatalf("keyless sign: %v", keylessErr)
	}
	return keylessSig
}

func TestKeylessE2ESignVerify(t *testing.T) {
	ss := e2etest.RequireSigstore(t)
	sig := signedKeyless(t, ss)
	res, err := attest.Verify(sig, testManifest, e2ePolicy(t, ss, testOIDCIdentity, ss.Issuer))
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	c := res.Certificate
	if c == nil || c.Identity != testOIDCIdentity || c.Issuer != ss.Issuer {
		t.Fatalf("certificate %+v", c)
	}
	want := signed.Certificate{
		Identity: testOIDCIdentity, Issuer: ss.Issuer,
		SourceRepository: "https://github.com/dshaudit-e2e/hello-plugin", SourceRepositoryRef: "refs/tags/v1.0.0",
		SourceRepositoryDigest: "0123456789abcdef0123456789abcdef01234567",
		Workflow:               "https://github.com/dshaudit-e2e/hello-plugin/.github/workflows/release.yml@refs/tags/v1.0.0",
		Trigger:                "push", Run: "https://github.com/dshaudit-e2e/hello-plugin/actions/runs/4242/attempts/1",
		BuildSignerURI:    testOIDCIdentity,
		BuildSignerDigest: "0123456789abcdef0123456789abcdef01234567",
		RunnerEnvironment: "github-hosted",
		NotBefore:         c.NotBefore, NotAfter: c.NotAfter,
	}
	if *c != want {
		t.Errorf("certificate\n got %+v\nwant %+v", *c, want)
	}
	if len(res.Timestamps) != 1 || res.Timestamps[0].Before(c.NotBefore) || res.Timestamps[0].After(c.NotAfter) {
		t.Errorf("timestamps %v, certificate valid %v–%v", res.Timestamps, c.NotBefore, c.NotAfter)
	}
	// The bundle holds exactly a certificate, one RFC 3161 timestamp and
	// one Rekor v2 entry with an inclusion proof.
	var pb protobundle.Bundle
	if err := protojson.Unmarshal(sig, &pb); err != nil {
		t.Fatal(err)
	}
	vm := pb.GetVerificationMaterial()
	if vm.GetCertificate() == nil || len(vm.GetTimestampVerificationData().GetRfc3161Timestamps()) != 1 || len(vm.GetTlogEntries()) != 1 ||
		vm.GetTlogEntries()[0].GetInclusionProof() == nil || vm.GetTlogEntries()[0].GetKindVersion().GetVersion() != "0.0.2" {
		t.Errorf("verification material %v", vm)
	}
	// A keyless bundle never verifies under a key policy.
	_, err = attest.Verify(sig, testManifest, attest.Policy{Key: newSigner(t, attest.Ed25519).PublicKey()})
	wantErr(t, err, attest.ErrWrongKey)
}

// TestKeylessE2EWrongIdentity: another identity or issuer is
// ErrUntrustedSigner naming what was expected and what the certificate
// holds.
func TestKeylessE2EWrongIdentity(t *testing.T) {
	ss := e2etest.RequireSigstore(t)
	sig := signedKeyless(t, ss)
	for _, tc := range []struct{ name, identity, issuer, want string }{
		{"identity", "https://github.com/dshaudit-e2e/hello-plugin/.github/workflows/release.yml@refs/heads/main", ss.Issuer, testOIDCIdentity},
		{"issuer", testOIDCIdentity, "https://token.actions.githubusercontent.com", ss.Issuer},
	} {
		_, err := attest.Verify(sig, testManifest, e2ePolicy(t, ss, tc.identity, tc.issuer))
		wantErr(t, err, attest.ErrUntrustedSigner)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), map[bool]string{true: tc.identity, false: tc.issuer}[tc.name == "identity"]) {
			t.Errorf("%s: %v: want both the expected and the certificate's value", tc.name, err)
		}
	}
}

// TestKeylessE2ETampered: an altered payload, signature or certificate is
// refused.
func TestKeylessE2ETampered(t *testing.T) {
	ss := e2etest.RequireSigstore(t)
	sig := signedKeyless(t, ss)
	pol := e2ePolicy(t, ss, testOIDCIdentity, ss.Issuer)
	_, err := attest.Verify(sig, append([]byte(" "), testManifest...), pol)
	wantErr(t, err, attest.ErrSubjectMismatch)
	bad := editJSON(t, sig, func(m map[string]any) { firstSig(m)["sig"] = flipB64(t, firstSig(m)["sig"].(string), 10) })
	_, err = attest.Verify(bad, testManifest, pol)
	wantErr(t, err, attest.ErrSignatureInvalid)
	bad = editJSON(t, sig, func(m map[string]any) { dsse(m)["payload"] = flipB64(t, dsse(m)["payload"].(string), 40) })
	if _, err = attest.Verify(bad, testManifest, pol); err == nil {
		t.Error("an altered payload verified")
	}
}

// cachingKeypair signs each distinct input once, so two sign.Bundle calls
// carry the same DSSE signature (ECDSA is randomised).
type cachingKeypair struct {
	*sign.EphemeralKeypair
	mu   sync.Mutex
	sigs map[string][2][]byte
}

func (k *cachingKeypair) SignData(ctx context.Context, data []byte) ([]byte, []byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if v, ok := k.sigs[string(data)]; ok {
		return v[0], v[1], nil
	}
	s, d, err := k.EphemeralKeypair.SignData(ctx, data)
	if err == nil {
		k.sigs[string(data)] = [2][]byte{s, d}
	}
	return s, d, err
}

// TestKeylessE2ETimestampOutsideValidity: a bundle whose only timestamp
// predates its certificate is refused; the same bundle with a timestamp
// taken inside the validity verifies (so the time, nothing else, decides).
func TestKeylessE2ETimestampOutsideValidity(t *testing.T) {
	ss := e2etest.RequireSigstore(t)
	ctx := context.Background()
	eph, err := sign.NewEphemeralKeypair(nil)
	if err != nil {
		t.Fatal(err)
	}
	kp := &cachingKeypair{EphemeralKeypair: eph, sigs: map[string][2][]byte{}}
	payload := statementOf(t, testManifest)
	content := &sign.DSSEData{Data: payload, PayloadType: attest.PayloadType}
	tsa := sign.NewTimestampAuthority(&sign.TimestampAuthorityOptions{URL: ss.TSAURL})
	early, err := sign.Bundle(content, kp, sign.BundleOptions{TimestampAuthorities: []*sign.TimestampAuthority{tsa}})
	if err != nil {
		t.Fatal(err)
	}
	// x509 validity has one-second resolution and Fulcio's starts now.
	time.Sleep(2 * time.Second)
	late, err := sign.Bundle(content, kp, sign.BundleOptions{
		CertificateProvider:        sign.NewFulcio(&sign.FulcioOptions{BaseURL: ss.FulcioURL}),
		CertificateProviderOptions: &sign.CertificateProviderOptions{IDToken: ss.Token(t, nil)},
		TransparencyLogs:           []sign.Transparency{sign.NewRekor(&sign.RekorOptions{BaseURL: ss.RekorURL, Version: 2})},
	})
	if err != nil {
		t.Fatal(err)
	}
	pol := e2ePolicy(t, ss, testOIDCIdentity, ss.Issuer)
	late.VerificationMaterial.TimestampVerificationData = early.VerificationMaterial.TimestampVerificationData
	_, err = attest.Verify(marshalBundle(t, late), testManifest, pol)
	wantErr(t, err, attest.ErrUntrustedSigner)
	if err == nil || !strings.Contains(err.Error(), "OUTSIDE the validity") {
		t.Errorf("the refusal does not say the timestamp is outside the validity: %v", err)
	}

	ts, err := tsa.GetTimestamp(ctx, late.GetDsseEnvelope().GetSignatures()[0].GetSig())
	if err != nil {
		t.Fatal(err)
	}
	late.VerificationMaterial.TimestampVerificationData.Rfc3161Timestamps[0].SignedTimestamp = ts
	if _, err := attest.Verify(marshalBundle(t, late), testManifest, pol); err != nil {
		t.Errorf("with a timestamp inside the validity: %v", err)
	}
}

// statementOf is the statement Sign writes for manifest, taken from a
// key-signed bundle.
func statementOf(t *testing.T, manifest []byte) []byte {
	t.Helper()
	var kb struct {
		DsseEnvelope struct{ Payload []byte } `json:"dsseEnvelope"`
	}
	if err := json.Unmarshal(signManifest(t, newSigner(t, attest.Ed25519), manifest), &kb); err != nil {
		t.Fatal(err)
	}
	return kb.DsseEnvelope.Payload
}

func marshalBundle(t *testing.T, pb *protobundle.Bundle) []byte {
	t.Helper()
	b, err := protojson.Marshal(pb)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestKeylessE2EGitHubActionsToken: with no token file and no
// $SIGSTORE_ID_TOKEN, the token comes from the GitHub Actions token
// request (here the test issuer's emulation of it), audience sigstore.
func TestKeylessE2EGitHubActionsToken(t *testing.T) {
	ss := e2etest.RequireSigstore(t)
	env := map[string]string{attest.ActionsRequestURLEnv: ss.ActionsURL, attest.ActionsRequestTokenEnv: ss.ActionsToken}
	tok, src, err := attest.IDToken(context.Background(), "", func(k string) string { return env[k] }, nil)
	if err != nil || src != "GitHub Actions" {
		t.Fatalf("token %q from %q: %v", tok, src, err)
	}
	sig, err := attest.Sign(context.Background(), testManifest, testPredicate, keylessSigner(t, ss, staticToken(tok)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := attest.Verify(sig, testManifest, e2ePolicy(t, ss, testOIDCIdentity, ss.Issuer)); err != nil {
		t.Fatal(err)
	}
	env[attest.ActionsRequestTokenEnv] = "wrong"
	_, _, err = attest.IDToken(context.Background(), "", func(k string) string { return env[k] }, nil)
	if !errors.Is(err, attest.ErrKeyless) || !strings.Contains(err.Error(), "401") {
		t.Errorf("wrong request token: %v", err)
	}
}

// TestKeylessE2ECosign: cosign verifies the keyless bundle with the same
// trusted root and identity, offline.
func TestKeylessE2ECosign(t *testing.T) {
	ss := e2etest.RequireSigstore(t)
	sig := signedKeyless(t, ss)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "manifest.json"), testManifest, 0o644)
	os.WriteFile(filepath.Join(dir, "signature.sigstore.json"), sig, 0o644)
	cmd := exec.Command(ss.Cosign, "verify-blob-attestation", "--bundle", "signature.sigstore.json",
		"--trusted-root", ss.TrustedRoot, "--certificate-identity", testOIDCIdentity, "--certificate-oidc-issuer", ss.Issuer,
		"--type", attest.PredicateType, "manifest.json")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "TUF_ROOT="+filepath.Join(dir, "tuf"))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Verified OK") {
		t.Fatalf("cosign: %v\n%s", err, out)
	}
}

// TestKeylessE2ENoLog: signed with no transparency log configured, the
// bundle has a timestamp and no log entry; the strict policy refuses it,
// the explicit waiver accepts it.
func TestKeylessE2ENoLog(t *testing.T) {
	ss := e2etest.RequireSigstore(t)
	sc, err := attest.NewSigningConfig(ss.FulcioURL, []string{ss.TSAURL}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	ks, err := attest.NewKeylessSigner(attest.KeylessOptions{SigningConfig: sc, IDToken: staticToken(ss.Token(t, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if s := ks.Services(); s.Rekor != "" || len(s.TSAs) != 1 {
		t.Fatalf("services %+v", s)
	}
	sig, err := attest.Sign(context.Background(), testManifest, testPredicate, ks)
	if err != nil {
		t.Fatal(err)
	}
	pol := e2ePolicy(t, ss, testOIDCIdentity, ss.Issuer)
	_, err = attest.Verify(sig, testManifest, pol)
	wantErr(t, err, attest.ErrUntrustedSigner)
	pol.Keyless.InsecureIgnoreTlog = true
	if _, err := attest.Verify(sig, testManifest, pol); err != nil {
		t.Errorf("with the log waived: %v", err)
	}
}

// BenchmarkKeylessSignE2E is the signing time a keyless run adds: one
// Sign against the loopback services (Fulcio with its CT log, TSA, Rekor
// v2; the logs' checkpoint intervals dominate), and without Rekor.
// Compare BenchmarkSign (a key, under a millisecond).
func BenchmarkKeylessSignE2E(b *testing.B) {
	ss := e2etest.RequireSigstore(b)
	tok := staticToken(ss.Token(b, nil))
	for _, tc := range []struct {
		name  string
		rekor string
	}{{"rekor-v2", ss.RekorURL}, {"no-log", ""}} {
		b.Run(tc.name, func(b *testing.B) {
			sc, err := attest.NewSigningConfig(ss.FulcioURL, []string{ss.TSAURL}, tc.rekor, 2)
			if err != nil {
				b.Fatal(err)
			}
			ks, err := attest.NewKeylessSigner(attest.KeylessOptions{SigningConfig: sc, IDToken: tok})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := attest.Sign(context.Background(), testManifest, testPredicate, ks); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
