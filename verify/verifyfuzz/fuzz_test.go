package verifyfuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/dshaudit/dshaudit/attest/signed"
	"github.com/dshaudit/dshaudit/internal/testutil/vectortest"
	"github.com/dshaudit/dshaudit/verify"
)

const vectorsDir = "../../testdata/vectors"

// statementOnly is a signed.Checker that reads the statement out of the
// Sigstore bundle and checks its shape and subject, but not its
// signature: with it, a fuzzed manifest that keeps its statement's
// subject digest reaches every check after the signature, and a fuzzed
// signature file reaches the statement decoder.
type statementOnly struct{}

func (statementOnly) Check(sig, manifest []byte) (*signed.Result, error) {
	var b struct {
		MediaType    string `json:"mediaType"`
		DSSEEnvelope *struct {
			Payload     []byte `json:"payload"`
			PayloadType string `json:"payloadType"`
		} `json:"dsseEnvelope"`
	}
	if err := json.Unmarshal(sig, &b); err != nil {
		return nil, fmt.Errorf("%w: %w", signed.ErrBundleMalformed, err)
	}
	if b.MediaType != signed.BundleMediaType || b.DSSEEnvelope == nil || b.DSSEEnvelope.PayloadType != signed.PayloadType {
		return nil, fmt.Errorf("%w: not a DSSE bundle", signed.ErrBundleMalformed)
	}
	st, err := signed.DecodeStatement(b.DSSEEnvelope.Payload)
	if err != nil {
		return nil, err
	}
	digest := signed.ManifestDigest(manifest)
	if err := st.CheckSubject(digest); err != nil {
		return nil, err
	}
	return &signed.Result{Signer: "statement only (fuzz)", ManifestSHA256: digest, Predicate: st.Predicate}, nil
}

// FuzzVerify feeds hostile bundle files to verify.Verify, seeded with
// every test vector (SPEC.md "Test vectors"): no panic; an error only for
// unreadable input, never with a report; a report whose status agrees
// with its findings.
func FuzzVerify(f *testing.F) {
	vs, _ := vectortest.Index(f, vectorsDir)
	for _, v := range vs {
		b, err := os.ReadFile(filepath.Join(vectorsDir, v.File))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	opts := verify.Options{Policy: statementOnly{}}
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := verify.Verify(context.Background(), "fuzz", bytes.NewReader(b), opts)
		if err != nil {
			if rep != nil || !errors.Is(err, verify.ErrUnreadable) {
				t.Fatalf("error %v with report %v, want an unreadable-bundle error alone", err, rep != nil)
			}
			return
		}
		if rep == nil {
			t.Fatal("nil report without error")
		}
		if (rep.Status == verify.StatusVerified) != (len(rep.Findings) == 0) {
			t.Fatalf("status %s with %d findings", rep.Status, len(rep.Findings))
		}
	})
}
