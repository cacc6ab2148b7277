package vsa

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func input() Input {
	return Input{
		Package:         Package{Name: "@acme/hello", Version: "1.0.0+b", Tarball: TarballOf([]byte("the tested tarball"))},
		BundleName:      "hello.dshaudit.tar.zst",
		BundleSHA256:    strings.Repeat("ab", 32),
		SignatureSHA256: strings.Repeat("cd", 32),
		Passed:          true,
		Levels:          []string{StaticConforming, DynamicLevel("pass"), UsableForCertification},
		Policy:          ResourceDescriptor{URI: "https://dshaudit.dev/spec/1.10", Digest: map[string]string{"sha256": strings.Repeat("ef", 32)}},
		VerifierID:      "https://registry.example/dshaudit",
		VerifierVersion: "1.2.3",
	}
}

func TestPackageURL(t *testing.T) {
	for _, c := range [][3]string{
		{"hello-dsh-plugin", "1.0.0", "pkg:npm/hello-dsh-plugin@1.0.0"},
		{"@acme/hello", "1.0.0+b", "pkg:npm/%40acme/hello@1.0.0%2Bb"},
	} {
		if got := PackageURL(c[0], c[1]); got != c[2] {
			t.Errorf("PackageURL(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

// The same facts give the same bytes; a time appears only when given.
func TestBuildDeterministic(t *testing.T) {
	enc := func(in Input) []byte {
		st, err := Build(in)
		if err != nil {
			t.Fatal(err)
		}
		b, err := st.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := enc(input()), enc(input())
	if !bytes.Equal(a, b) {
		t.Fatalf("two encodings differ:\n%s\n%s", a, b)
	}
	if bytes.Contains(a, []byte("timeVerified")) {
		t.Fatalf("timeVerified without a time: %s", a)
	}
	in := input()
	in.Time = time.Date(2026, 12, 4, 12, 0, 0, 0, time.FixedZone("x", 3600))
	if c := enc(in); !bytes.Contains(c, []byte(`"timeVerified":"2026-12-04T11:00:00Z"`)) {
		t.Fatalf("timeVerified not in UTC RFC 3339: %s", c)
	}
	st, err := Decode(a)
	if err != nil {
		t.Fatal(err)
	}
	tb := TarballOf([]byte("the tested tarball"))
	if st.Subject[0].Name != "pkg:npm/%40acme/hello@1.0.0%2Bb" || st.Subject[0].Digest["sha512"] != tb.SHA512() || st.Subject[0].Digest["sha256"] != tb.SHA256() {
		t.Fatalf("tarball subject %+v", st.Subject[0])
	}
	if st.Subject[1].Digest["sha256"] != strings.Repeat("ab", 32) || len(st.Predicate.InputAttestations) != 2 {
		t.Fatalf("bundle subject or inputs wrong: %+v", st)
	}
}

func TestFailedHasOnlyFailed(t *testing.T) {
	in := input()
	in.Passed = false
	st, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if st.Predicate.VerificationResult != Failed || !slices.Equal(st.Predicate.VerifiedLevels, []string{Failed}) {
		t.Fatalf("failed summary: %+v", st.Predicate)
	}
	steps := Check(st, Expect{Subjects: []Artifact{{Name: "b", Digests: map[string]string{"sha256": in.BundleSHA256}}}, VerifierID: in.VerifierID})
	if Accepted(steps) {
		t.Fatalf("a FAILED summary was accepted: %+v", steps)
	}
}

func TestCheckSteps(t *testing.T) {
	st, err := Build(input())
	if err != nil {
		t.Fatal(err)
	}
	bundle := Artifact{Name: "bundle", Digests: map[string]string{"sha256": strings.Repeat("ab", 32), "sha512": strings.Repeat("00", 64)}}
	tb := TarballOf([]byte("the tested tarball"))
	tarball := Artifact{Name: "tgz", Digests: map[string]string{"sha512": tb.SHA512(), "sha256": tb.SHA256()}}
	good := Expect{Subjects: []Artifact{bundle}, VerifierID: "https://registry.example/dshaudit", ResourceURI: "pkg:npm/%40acme/hello@1.0.0%2Bb", Levels: []string{DynamicLevel("pass")}}
	if steps := Check(st, good); !Accepted(steps) {
		t.Fatalf("good summary refused: %+v", steps)
	}
	// A file agreeing on both digests of the tarball subject is named.
	if steps := Check(st, Expect{Subjects: []Artifact{tarball}, VerifierID: good.VerifierID}); !Accepted(steps) {
		t.Fatalf("tarball not named: %+v", steps)
	}
	for name, e := range map[string]Expect{
		"no subject":    {VerifierID: good.VerifierID},
		"other digest":  {Subjects: []Artifact{{Name: "x", Digests: map[string]string{"sha256": strings.Repeat("00", 32)}}}, VerifierID: good.VerifierID},
		"conflict":      {Subjects: []Artifact{{Name: "x", Digests: map[string]string{"sha256": strings.Repeat("22", 32), "sha512": tb.SHA512()}}}, VerifierID: good.VerifierID},
		"verifier":      {Subjects: good.Subjects},
		"resource":      {Subjects: good.Subjects, VerifierID: good.VerifierID, ResourceURI: "pkg:npm/hello@1.0.0"},
		"missing level": {Subjects: good.Subjects, VerifierID: good.VerifierID, Levels: []string{StaticNotConforming}},
	} {
		if steps := Check(st, e); Accepted(steps) {
			t.Errorf("%s: accepted: %+v", name, steps)
		}
	}
	bad := *st
	bad.PredicateType = "https://slsa.dev/verification_summary/v0.2"
	if Accepted(Check(&bad, good)) {
		t.Error("another predicate type accepted")
	}
}

func TestDecodeRefusesAmbiguity(t *testing.T) {
	for name, doc := range map[string]string{
		"duplicate":  `{"_type":"https://in-toto.io/Statement/v1","predicate":{"verificationResult":"FAILED","verificationResult":"PASSED"}}`,
		"trailing":   `{"_type":"x"} {}`,
		"wrong type": `{"_type":"x","subject":"a"}`,
	} {
		if _, err := Decode([]byte(doc)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err %v, want ErrMalformed", name, err)
		}
	}
	if _, err := Decode([]byte(`{"_type":"x","unknown":{"a":1}}`)); err != nil {
		t.Errorf("unknown member refused: %v", err)
	}
}

func TestLevels(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		f    Facts
		want []string
	}{
		{Facts{ConformingStatic: &yes, Dynamic: true, Verdict: "pass", Usable: true}, []string{StaticConforming, "DSHIO_DYNAMIC_PASS", UsableForCertification}},
		{Facts{ConformingStatic: &no}, []string{StaticNotConforming, NotForCertification}},
		{Facts{ConformingStatic: &yes, Dynamic: true, Verdict: "unstable", Deviated: true}, []string{StaticConforming, "DSHIO_DYNAMIC_UNSTABLE", DeviatedNotForCert}},
	} {
		got := Levels(c.f)
		if !slices.Equal(got, c.want) {
			t.Errorf("Levels(%+v) = %q, want %q", c.f, got, c.want)
		}
		for _, l := range got {
			if strings.HasPrefix(l, "SLSA_") || !slices.Contains(AllLevels(), l) {
				t.Errorf("level %q is not one of AllLevels or has the SLSA_ prefix", l)
			}
		}
	}
}

// A summary names a package subject only by the digests of bytes: with
// no tarball it names the bundle alone, so no artifact check passes on
// the package's account (SPEC.md "Verification summary").
func TestNoTarballNoPackageSubject(t *testing.T) {
	in := input()
	in.Package.Tarball = Tarball{}
	st, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Subject) != 1 || st.Subject[0].Name != in.BundleName {
		t.Fatalf("subjects %+v, want the bundle alone", st.Subject)
	}
	if st.Predicate.ResourceURI != "pkg:npm/%40acme/hello@1.0.0%2Bb" {
		t.Fatalf("resourceUri %q", st.Predicate.ResourceURI)
	}
}

// TarballOf and TarballFrom agree, and Integrity is npm's form of the sha512.
func TestTarballDigests(t *testing.T) {
	b := []byte("a tarball")
	a := TarballOf(b)
	r, err := TarballFrom(bytes.NewReader(b))
	if err != nil || !a.Equal(r) {
		t.Fatalf("TarballOf %v, TarballFrom %v (%v)", a, r, err)
	}
	raw, _ := hex.DecodeString(a.SHA512())
	if a.Integrity() != "sha512-"+base64.StdEncoding.EncodeToString(raw) || a.Size() != int64(len(b)) {
		t.Fatalf("integrity %q size %d", a.Integrity(), a.Size())
	}
	if (Tarball{}).Equal(Tarball{}) || a.Equal(TarballOf([]byte("another"))) {
		t.Fatal("Equal: zero values or different bytes compare equal")
	}
}
