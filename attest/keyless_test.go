package attest_test

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/dshaudit/dshaudit/attest"
)

const (
	testIdentity = "release-bot@dshaudit.example"
	testIssuer   = "https://issuer.dshaudit.example"
)

func newVirtualSigstore(t *testing.T) *ca.VirtualSigstore {
	t.Helper()
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

// keylessBundle has the virtual Sigstore (Fulcio CA, Rekor, TSA) attest
// the dshaudit statement for manifest, and serialises the result as a
// Sigstore bundle v0.3. The virtual Sigstore returns a verify.SignedEntity,
// not a bundle, so its parts are copied into the bundle protobuf here.
func keylessBundle(t *testing.T, vs *ca.VirtualSigstore, identity, issuer string, manifest []byte) []byte {
	t.Helper()
	// The statement is the one Sign writes: take it from a key-signed
	// bundle.
	var kb struct {
		DsseEnvelope struct{ Payload []byte } `json:"dsseEnvelope"`
	}
	if err := json.Unmarshal(signManifest(t, newSigner(t, attest.Ed25519), manifest), &kb); err != nil {
		t.Fatal(err)
	}
	ent, err := vs.AttestAtTime(identity, issuer, kb.DsseEnvelope.Payload, time.Now().Add(5*time.Minute), true)
	if err != nil {
		t.Fatal(err)
	}
	vc, err := ent.VerificationContent()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ent.SignatureContent()
	if err != nil {
		t.Fatal(err)
	}
	env := sc.EnvelopeContent().RawEnvelope()
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := base64.StdEncoding.DecodeString(env.Signatures[0].Sig)
	if err != nil {
		t.Fatal(err)
	}
	tss, err := ent.Timestamps()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := ent.TlogEntries()
	if err != nil {
		t.Fatal(err)
	}
	pb := &protobundle.Bundle{
		MediaType: attest.BundleMediaType,
		VerificationMaterial: &protobundle.VerificationMaterial{
			Content: &protobundle.VerificationMaterial_Certificate{
				Certificate: &protocommon.X509Certificate{RawBytes: vc.Certificate().Raw},
			},
			TimestampVerificationData: &protobundle.TimestampVerificationData{},
		},
		Content: &protobundle.Bundle_DsseEnvelope{DsseEnvelope: &protodsse.Envelope{
			Payload:     payload,
			PayloadType: env.PayloadType,
			Signatures:  []*protodsse.Signature{{Sig: sig, Keyid: env.Signatures[0].KeyID}},
		}},
	}
	for _, ts := range tss {
		pb.VerificationMaterial.TimestampVerificationData.Rfc3161Timestamps = append(
			pb.VerificationMaterial.TimestampVerificationData.Rfc3161Timestamps,
			&protocommon.RFC3161SignedTimestamp{SignedTimestamp: ts})
	}
	for _, e := range entries {
		tle := e.TransparencyLogEntry()
		// The entity's log entry lacks kind/version, which a bundle
		// carries; read them from the canonicalized Rekor body.
		var body struct{ Kind, APIVersion string }
		if err := json.Unmarshal(tle.CanonicalizedBody, &body); err != nil {
			t.Fatal(err)
		}
		tle.KindVersion = &protorekor.KindVersion{Kind: body.Kind, Version: body.APIVersion}
		// It also lacks its signed entry timestamp (inclusion promise),
		// which the virtual Rekor signs again here, byte for byte as in
		// AttestAtTime, so the integrated time is verifiable too.
		set, err := vs.RekorSignPayload(tlog.RekorPayload{
			Body:           base64.StdEncoding.EncodeToString(tle.CanonicalizedBody),
			IntegratedTime: tle.IntegratedTime,
			LogIndex:       tle.LogIndex,
			LogID:          hex.EncodeToString(tle.LogId.KeyId),
		})
		if err != nil {
			t.Fatal(err)
		}
		tle.InclusionPromise = &protorekor.InclusionPromise{SignedEntryTimestamp: set}
		pb.VerificationMaterial.TlogEntries = append(pb.VerificationMaterial.TlogEntries, tle)
	}
	out, err := protojson.Marshal(pb)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func keylessPolicy(tm root.TrustedMaterial) attest.Policy {
	return attest.Policy{Keyless: &attest.KeylessPolicy{
		TrustedMaterial: tm, Identity: testIdentity, OIDCIssuer: testIssuer,
		// The virtual Fulcio embeds no SCTs.
		InsecureIgnoreSCT: true,
	}}
}

func TestKeylessRoundTrip(t *testing.T) {
	vs := newVirtualSigstore(t)
	sig := keylessBundle(t, vs, testIdentity, testIssuer, testManifest)
	res, err := attest.Verify(sig, testManifest, keylessPolicy(vs))
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if res.CertificateIdentity != testIdentity || res.CertificateIssuer != testIssuer {
		t.Errorf("identity = %q issuer %q", res.CertificateIdentity, res.CertificateIssuer)
	}
	if res.Signer != testIdentity+" (issuer "+testIssuer+")" {
		t.Errorf("signer = %q", res.Signer)
	}
	if len(res.Timestamps) == 0 {
		t.Error("no verified timestamps")
	}
	if res.Predicate != testPredicate {
		t.Errorf("predicate = %+v", res.Predicate)
	}

	// Regexp rules.
	p := keylessPolicy(vs)
	p.Keyless.Identity, p.Keyless.IdentityRegexp = "", `^release-bot@dshaudit\.example$`
	p.Keyless.OIDCIssuer, p.Keyless.OIDCIssuerRegexp = "", `^https://issuer\.dshaudit\.example$`
	if _, err := attest.Verify(sig, testManifest, p); err != nil {
		t.Errorf("regexp identity: %v", err)
	}
	// The explicit waiver.
	p = attest.Policy{Keyless: &attest.KeylessPolicy{TrustedMaterial: vs, InsecureAnyIdentity: true, InsecureIgnoreSCT: true}}
	if _, err := attest.Verify(sig, testManifest, p); err != nil {
		t.Errorf("any identity: %v", err)
	}
}

// TestKeylessTrustedRootJSON serialises the virtual Sigstore's trust
// material as a real trusted_root.json and verifies through the file path.
func TestKeylessTrustedRootJSON(t *testing.T) {
	vs := newVirtualSigstore(t)
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, vs.FulcioCertificateAuthorities(),
		rawLogIDs(t, vs.CTLogs()), vs.TimestampingAuthorities(), rawLogIDs(t, vs.RekorLogs()))
	if err != nil {
		t.Fatal(err)
	}
	js, err := tr.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "trusted_root.json")
	if err := os.WriteFile(path, js, 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := attest.LoadTrustedRoot(path)
	if err != nil {
		t.Fatal(err)
	}
	sig := keylessBundle(t, vs, testIdentity, testIssuer, testManifest)
	if _, err := attest.Verify(sig, testManifest, keylessPolicy(loaded)); err != nil {
		t.Fatalf("Verify with trusted_root.json: %v", err)
	}
	// Another deployment's root does not trust this bundle.
	if _, err := attest.Verify(sig, testManifest, keylessPolicy(newVirtualSigstore(t))); err == nil {
		t.Fatal("bundle verified against another trusted root")
	}

	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"mediaType":"nope"}`), 0o644)
	if _, err := attest.LoadTrustedRoot(bad); err == nil {
		t.Error("LoadTrustedRoot accepted a non-root")
	}
}

// rawLogIDs fixes a quirk of the virtual Sigstore: its logs' ID field holds
// the hex string of the log ID rather than the raw key ID bytes a trusted
// root carries (the map keys are right). Serialised as is, the log could not
// be found again by the ID in a log entry.
func rawLogIDs(t *testing.T, logs map[string]*root.TransparencyLog) map[string]*root.TransparencyLog {
	t.Helper()
	out := map[string]*root.TransparencyLog{}
	for k, l := range logs {
		c := *l
		id, err := hex.DecodeString(k)
		if err != nil {
			t.Fatal(err)
		}
		c.ID = id
		out[k] = &c
	}
	return out
}

func TestKeylessFailures(t *testing.T) {
	vs := newVirtualSigstore(t)
	sig := keylessBundle(t, vs, testIdentity, testIssuer, testManifest)
	keySig := signManifest(t, newSigner(t, attest.Ed25519), testManifest)

	withPolicy := func(f func(k *attest.KeylessPolicy)) attest.Policy {
		p := keylessPolicy(vs)
		f(p.Keyless)
		return p
	}
	cases := map[string]struct {
		sig      []byte
		manifest []byte
		policy   attest.Policy
		want     error
	}{
		"other identity": {sig, testManifest, withPolicy(func(k *attest.KeylessPolicy) { k.Identity = "mallory@example.com" }), attest.ErrUntrustedSigner},
		"other issuer":   {sig, testManifest, withPolicy(func(k *attest.KeylessPolicy) { k.OIDCIssuer = "https://accounts.example" }), attest.ErrUntrustedSigner},
		"sct required":   {sig, testManifest, withPolicy(func(k *attest.KeylessPolicy) { k.InsecureIgnoreSCT = false }), attest.ErrUntrustedSigner},
		"other root":     {sig, testManifest, keylessPolicy(newVirtualSigstore(t)), attest.ErrUntrustedSigner},
		"no tlog entry": {editJSON(t, sig, func(m map[string]any) {
			delete(m["verificationMaterial"].(map[string]any), "tlogEntries")
		}), testManifest, keylessPolicy(vs), attest.ErrUntrustedSigner},
		// Neither an RFC 3161 timestamp nor a signed integrated time: no
		// trusted time for the short-lived certificate.
		"no timestamps": {editJSON(t, sig, func(m map[string]any) {
			vm := m["verificationMaterial"].(map[string]any)
			delete(vm, "timestampVerificationData")
			for _, e := range vm["tlogEntries"].([]any) {
				delete(e.(map[string]any), "inclusionPromise")
			}
		}), testManifest, keylessPolicy(vs), attest.ErrUntrustedSigner},
		"edited manifest": {sig, edit(testManifest, 3), keylessPolicy(vs), attest.ErrSubjectMismatch},
		"edited signature": {editJSON(t, sig, func(m map[string]any) {
			firstSig(m)["sig"] = flipB64(t, firstSig(m)["sig"].(string), 12)
		}), testManifest, keylessPolicy(vs), attest.ErrSignatureInvalid},
		"key-signed under keyless policy": {keySig, testManifest, keylessPolicy(vs), attest.ErrUntrustedSigner},
		"keyless under key policy":        {sig, testManifest, attest.Policy{Key: newSigner(t, attest.Ed25519).PublicKey()}, attest.ErrWrongKey},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := attest.Verify(c.sig, c.manifest, c.policy)
			wantErr(t, err, c.want)
		})
	}
}

// TestKeylessRunnerPolicy: a certificate without the build signer
// extensions (the virtual Fulcio's) fails the runner policy, naming the
// workflow wanted; without the policy the same bundle verifies and
// names no audit workflow.
func TestKeylessRunnerPolicy(t *testing.T) {
	vs := newVirtualSigstore(t)
	sig := keylessBundle(t, vs, testIdentity, testIssuer, testManifest)
	res, err := attest.Verify(sig, testManifest, keylessPolicy(vs))
	if err != nil {
		t.Fatal(err)
	}
	if res.AuditWorkflow != "" || res.Certificate == nil {
		t.Errorf("without a runner policy: audit workflow %q, certificate %v", res.AuditWorkflow, res.Certificate)
	}
	const wf = "https://github.com/dshaudit/dshaudit/.github/workflows/audit.yml@refs/tags/v0.1.0-test"
	p := keylessPolicy(vs)
	p.Keyless.Runner = &attest.RunnerPolicy{Workflow: wf}
	_, err = attest.Verify(sig, testManifest, p)
	wantErr(t, err, attest.ErrUntrustedSigner)
	if err != nil && !strings.Contains(err.Error(), wf) {
		t.Errorf("%v does not name %s", err, wf)
	}
	_, _, err = attest.VerifyPayload(sig, p)
	wantErr(t, err, attest.ErrUntrustedSigner)
}
