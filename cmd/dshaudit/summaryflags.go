package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/dshaudit/dshaudit"
	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/verify"
	"github.com/dshaudit/dshaudit/vsa"
)

// summaryFlags are verify's flags for writing a signed verification
// summary (SPEC.md "Verification summary").
type summaryFlags struct {
	// Summary is the file the signed summary (a Sigstore bundle) goes to.
	Summary string
	// SummaryKey is the private key that signs it.
	SummaryKey string
	// SummaryDSSE, when set, also receives the bare DSSE envelope, the
	// form slsa-verifier reads.
	SummaryDSSE string
	// VerifierID is the summary's verifier.id.
	VerifierID string
	// Now is the verification time, RFC 3339; "" leaves timeVerified out.
	Now string
	// keyless signs the summary keylessly instead (--keyless and the
	// keyless flags run has).
	keyless keylessFlags
}

func (o *summaryFlags) register(f *pflag.FlagSet) {
	f.StringVar(&o.Summary, "summary", "", "write a signed verification summary (SLSA VSA v1 in a Sigstore bundle) to FILE")
	f.StringVar(&o.SummaryKey, "summary-key", "", "with --summary: the private key (PEM) that signs the summary")
	f.StringVar(&o.SummaryDSSE, "summary-dsse", "", "with --summary: also write the summary's bare DSSE envelope to FILE (for slsa-verifier verify-vsa)")
	f.StringVar(&o.VerifierID, "summary-verifier-id", vsa.DefaultVerifierID, "with --summary: the verifier.id naming who verified (a URI)")
	o.keyless.register(f)
	f.Lookup("keyless").Usage = "with --summary: sign the summary with a short-lived Fulcio certificate for an OIDC identity instead of --summary-key (Sigstore keyless)"
	f.StringVar(&o.Now, "now", "", "the verification time (RFC 3339), default the clock: the run's dates are checked against it (SPEC.md \"Time and process facts\"), and the summary has a timeVerified only when given")
}

// summarySigner signs a summary statement into a Sigstore bundle: a key
// (--summary-key) or a keyless signer (--keyless).
type summarySigner interface {
	SignPayload(ctx context.Context, payload []byte) ([]byte, error)
}

type bundleSummarySigner struct{ s attest.BundleSigner }

func (k bundleSummarySigner) SignPayload(ctx context.Context, payload []byte) ([]byte, error) {
	signed, err := attest.SignPayload(ctx, payload, k.s)
	return signed, keylessErr(err)
}

// prepare checks the flags before anything is verified and returns the
// signer and time; nil signer when no summary is wanted.
func (o *summaryFlags) prepare(ctx context.Context) (summarySigner, time.Time, error) {
	var now time.Time
	if o.Now != "" {
		t, err := time.Parse(time.RFC3339, o.Now)
		if err != nil {
			return nil, now, fmt.Errorf("%w: --now %q: want an RFC 3339 time like 2026-12-04T12:00:00Z", ErrUsage, o.Now)
		}
		now = t
	}
	if o.Summary == "" {
		if o.SummaryKey != "" || o.SummaryDSSE != "" || o.keyless.Keyless || o.keyless.changed() {
			return nil, now, fmt.Errorf("%w: --summary-key, --summary-dsse, --keyless and the keyless flags go with --summary FILE", ErrUsage)
		}
		return nil, now, nil
	}
	if err := vsa.CheckVerifierID(o.VerifierID); err != nil {
		return nil, now, fmt.Errorf("%w: --summary-verifier-id: %w", ErrUsage, err)
	}
	// The key or keyless signer, exactly one; the identity token is
	// fetched now, before the bundle is verified.
	s, err := o.keyless.bundleSigner(ctx, "--summary-key", o.SummaryKey)
	if err != nil {
		return nil, now, err
	}
	return bundleSummarySigner{s}, now, nil
}

// summaryInput is what the verification established, for vsa.Build.
// passed is whether verify exits 0.
func summaryInput(rep *verify.Report, passed bool, verifierID string, now time.Time) vsa.Input {
	in := vsa.Input{
		BundleName:      filepath.Base(rep.Bundle),
		BundleSHA256:    strings.TrimPrefix(rep.BundleSHA256, "sha256:"),
		Passed:          passed,
		Policy:          vsa.ResourceDescriptor{URI: dshaudit.SpecURI(), Digest: map[string]string{"sha256": dshaudit.SpecSHA256()}},
		VerifierID:      verifierID,
		VerifierVersion: version,
		Time:            now,
	}
	if rep.Package != nil {
		// The package subject's digests are those of the tarball the
		// bundle holds, never the manifest's (SPEC.md "Verification
		// summary"): a bundle without one gives a summary naming no
		// package subject.
		in.Package = vsa.Package{Name: rep.Package.Name, Version: rep.Package.Version}
		if rep.Tarball != nil {
			in.Package.Tarball = *rep.Tarball
		}
	}
	if ev := rep.Evidence; ev != nil && ev.Archive != nil && ev.Archive.RawSignature != nil {
		sum := sha256.Sum256(ev.Archive.RawSignature)
		in.SignatureSHA256 = hex.EncodeToString(sum[:])
	}
	if passed {
		in.Levels = vsa.Levels(vsa.Facts{
			ConformingStatic: rep.ConformingStatic,
			Dynamic:          rep.Dynamic,
			Verdict:          rep.DerivedVerdict,
			Deviated:         len(rep.Deviations) > 0,
			Usable:           rep.Usable,
			AuditWorkflow:    rep.AuditWorkflow != "",
		})
	}
	return in
}

// writeSummary builds, signs and writes the summary (and its envelope),
// each file atomically.
func writeSummary(ctx context.Context, o *summaryFlags, signer summarySigner, in vsa.Input) error {
	st, err := vsa.Build(in)
	if err != nil {
		return fmt.Errorf("%w: --summary: %w", ErrUsage, err)
	}
	payload, err := st.Encode()
	if err != nil {
		return err
	}
	signed, err := signer.SignPayload(ctx, payload)
	if err != nil {
		return fmt.Errorf("--summary: %w", err)
	}
	var env []byte
	if o.SummaryDSSE != "" {
		if env, err = attest.DSSEEnvelope(signed); err != nil {
			return fmt.Errorf("--summary-dsse: %w", err)
		}
	}
	if err := writeBytesAtomic(ctx, o.Summary, signed); err != nil {
		return fmt.Errorf("--summary: %w", err)
	}
	if env != nil {
		if err := writeBytesAtomic(ctx, o.SummaryDSSE, env); err != nil {
			return fmt.Errorf("--summary-dsse: %w", err)
		}
	}
	return nil
}

func writeBytesAtomic(ctx context.Context, path string, b []byte) error {
	return bundle.WriteFileAtomicContext(ctx, path, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(b))
		return err
	})
}
