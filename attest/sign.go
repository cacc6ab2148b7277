package attest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/dshaudit/dshaudit/attest/signed"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"google.golang.org/protobuf/encoding/protojson"
)

// Sign signs manifest: it builds the in-toto statement whose one subject is
// manifest.json with the manifest's sha256 and whose predicate is pred,
// has sigstore-go wrap it in a DSSE envelope signed by signer inside a
// Sigstore bundle v0.3, and returns the bundle as JSON. The result is
// checked before it is returned: verified with the key policy of a key
// signer's own key; for a keyless signer, the envelope against the
// certificate's key and the statement's subject.
//
// With an Ed25519 key the output is a pure function of (manifest, pred,
// key); with ECDSA P-256 the signature, and so the bytes, differ per call;
// keyless signatures are never reproducible (SPEC.md "Signature",
// "Determinism").
func Sign(ctx context.Context, manifest []byte, pred Predicate, signer BundleSigner) ([]byte, error) {
	if signer == nil {
		return nil, fmt.Errorf("%w: no signing key", ErrKey)
	}
	if err := pred.Validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	payload, err := signed.EncodeStatement(manifest, pred)
	if err != nil {
		return nil, fmt.Errorf("encode statement: %w", err)
	}
	out, err := signDSSE(ctx, signer, payload)
	if err != nil {
		return nil, err
	}
	if err := signer.selfCheck(out, manifest); err != nil {
		return nil, fmt.Errorf("self-check of the new signature failed: %w", err)
	}
	return out, nil
}

// stableJSON re-indents protojson output. protojson randomises
// insignificant whitespace between builds on purpose; compacting and
// indenting with encoding/json makes the bytes a function of the content.
func stableJSON(raw []byte) ([]byte, error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// signDSSE signs payload as an in-toto DSSE envelope in a Sigstore bundle
// and returns the bundle's stable JSON: the one signing step of Sign (a
// bundle's statement) and SignPayload (any statement).
func signDSSE(ctx context.Context, signer BundleSigner, payload []byte) ([]byte, error) {
	pb, err := signer.signBundle(ctx, &sign.DSSEData{Data: payload, PayloadType: PayloadType})
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	raw, err := protojson.Marshal(pb)
	if err != nil {
		return nil, fmt.Errorf("encode bundle: %w", err)
	}
	out, err := stableJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("encode bundle: %w", err)
	}
	return out, nil
}
