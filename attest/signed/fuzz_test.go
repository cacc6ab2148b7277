package signed

import (
	"errors"
	"testing"
)

// FuzzDecodeStatement feeds hostile DSSE payloads to DecodeStatement and
// CheckSubject, the part of a signature check that dshaudit owns and
// that runs on the signed payload: no panic, every failure in exactly
// its class, nothing accepted that is not a valid dshaudit statement, and
// a subject accepted only for the manifest whose digest it names.
func FuzzDecodeStatement(f *testing.F) {
	manifest := []byte("{\"media_type\":\"x\"}\n")
	pred := Predicate{Tool: Tool{Name: "dshaudit", Version: "1"}, Subject: Package{Name: "p", Version: "1.0.0"}, Verdict: "pass"}
	good, err := EncodeStatement(manifest, pred)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[],"predicateType":"https://dshaudit.dev/evidence/v1","predicate":{}}`))
	f.Add([]byte(`{} {}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		st, err := DecodeStatement(payload)
		if err != nil {
			if !errors.Is(err, ErrStatementUnsupported) {
				t.Fatalf("error outside ErrStatementUnsupported: %v", err)
			}
			return
		}
		if st.Type != StatementType || st.PredicateType != PredicateType || st.Predicate.Validate() != nil {
			t.Fatalf("accepted an invalid statement: %+v", st)
		}
		want := ManifestDigest(manifest)
		err = st.CheckSubject(want)
		ok := len(st.Subject) == 1 && st.Subject[0].Name == SubjectName && len(st.Subject[0].Digest) == 1 && st.Subject[0].Digest[DigestAlgorithm] == want
		if (err == nil) != ok {
			t.Fatalf("CheckSubject = %v for subjects %+v", err, st.Subject)
		}
		if err != nil && !errors.Is(err, ErrSubjectMismatch) {
			t.Fatalf("subject error outside ErrSubjectMismatch: %v", err)
		}
	})
}
