package attest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	prototrustroot "github.com/sigstore/protobuf-specs/gen/pb-go/trustroot/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore-go/pkg/verify"

	"github.com/dshaudit/dshaudit/attest/signed"
)

// Keyless signing failures. ErrKeylessConfig is a bad or incomplete
// configuration (no token, no Fulcio, no timestamp authority), found
// before anything is sent; ErrKeyless a service that refused or could not
// be reached while signing.
var (
	ErrKeylessConfig = errors.New("keyless signing configuration")
	ErrKeyless       = errors.New("keyless signing failed")
)

// The Sigstore public-good instance, the default services of keyless
// signing (the URLs of its signing_config.json).
const (
	PublicGoodFulcioURL = "https://fulcio.sigstore.dev"
	PublicGoodTSAURL    = "https://timestamp.sigstore.dev/api/v1/timestamp"
	PublicGoodRekorURL  = "https://rekor.sigstore.dev"
)

// maxSigningConfigSize bounds a signing_config.json file.
const maxSigningConfigSize = 1 << 20

// LoadSigningConfig reads a Sigstore signing_config.json (media type
// application/vnd.dev.sigstore.signingconfig.v0.2+json, at most 1 MiB).
func LoadSigningConfig(path string) (*root.SigningConfig, error) {
	b, err := readBounded(path, maxSigningConfigSize)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeylessConfig, err)
	}
	sc, err := root.NewSigningConfigFromJSON(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: not a Sigstore signing config: %w", ErrKeylessConfig, path, err)
	}
	return sc, nil
}

// NewSigningConfig is the signing config of one Fulcio, one or more
// timestamp authorities (all used) and at most one Rekor log (rekorURL ""
// for none) of major API version rekorVersion (1 or 2).
func NewSigningConfig(fulcioURL string, tsaURLs []string, rekorURL string, rekorVersion uint32) (*root.SigningConfig, error) {
	// Each service is its own operator: sigstore-go selects at most one
	// service per operator.
	svc := func(u string, v uint32) root.Service {
		return root.Service{URL: u, MajorAPIVersion: v, ValidityPeriodStart: time.Unix(0, 0), Operator: u}
	}
	var tsas, logs []root.Service
	for _, u := range tsaURLs {
		tsas = append(tsas, svc(u, 1))
	}
	if rekorURL != "" {
		logs = append(logs, svc(rekorURL, rekorVersion))
	}
	var fulcio []root.Service
	if fulcioURL != "" {
		fulcio = append(fulcio, svc(fulcioURL, 1))
	}
	return root.NewSigningConfig(root.SigningConfigMediaType02, fulcio, nil,
		logs, root.ServiceConfiguration{Selector: prototrustroot.ServiceSelector_ANY},
		tsas, root.ServiceConfiguration{Selector: prototrustroot.ServiceSelector_ALL})
}

// KeylessOptions configure a keyless signer.
type KeylessOptions struct {
	// SigningConfig names the services: a Fulcio CA, timestamp
	// authorities, transparency logs (LoadSigningConfig or
	// NewSigningConfig).
	SigningConfig *root.SigningConfig
	// IDToken returns the OIDC identity token Fulcio exchanges for a
	// certificate (see IDToken). It is called when signing, not before:
	// tokens live minutes (GitHub's about five), a run can take longer.
	IDToken func(context.Context) (string, error)
	// Timeout bounds each request to a service (default 30 s).
	Timeout time.Duration
	// Now is when services are selected by validity (default time.Now).
	Now time.Time
}

// KeylessSigner signs with a fresh ECDSA P-256 key certified by Fulcio
// for the identity of an OIDC token, with an RFC 3161 timestamp from every
// selected timestamp authority and, when the config names one, an entry
// in a transparency log (SPEC.md "Signature", "Signing").
type KeylessSigner struct {
	token    func(context.Context) (string, error)
	fulcio   *sign.Fulcio
	tsas     []*sign.TimestampAuthority
	logs     []sign.Transparency
	services KeylessServices
}

// KeylessServices are the URLs a keyless signer uses.
type KeylessServices struct {
	Fulcio string
	TSAs   []string
	// Rekor is empty when no log is configured; RekorVersion is its
	// major API version.
	Rekor        string
	RekorVersion uint32
}

// NewKeylessSigner selects the services from o.SigningConfig: one Fulcio
// (required), the timestamp authorities (at least one: a timestamp is
// always requested) and the transparency logs (none is allowed). Nothing
// is sent until Sign.
func NewKeylessSigner(o KeylessOptions) (*KeylessSigner, error) {
	if o.IDToken == nil {
		return nil, fmt.Errorf("%w: no OIDC identity token", ErrKeylessConfig)
	}
	if o.SigningConfig == nil {
		return nil, fmt.Errorf("%w: no signing config", ErrKeylessConfig)
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	sc := o.SigningConfig
	ks := &KeylessSigner{token: o.IDToken}
	fs, err := root.SelectService(sc.FulcioCertificateAuthorityURLs(), sign.FulcioAPIVersions, now)
	if err != nil {
		return nil, fmt.Errorf("%w: Fulcio certificate authority: %w", ErrKeylessConfig, err)
	}
	ks.services.Fulcio = fs.URL
	ks.fulcio = sign.NewFulcio(&sign.FulcioOptions{BaseURL: fs.URL, Timeout: timeout, Retries: 1})
	tsas, err := root.SelectServices(sc.TimestampAuthorityURLs(), sc.TimestampAuthorityURLsConfig(), sign.TimestampAuthorityAPIVersions, now)
	if err != nil || len(tsas) == 0 {
		return nil, fmt.Errorf("%w: no timestamp authority (an RFC 3161 timestamp is always requested): %v", ErrKeylessConfig, err)
	}
	for _, t := range tsas {
		ks.services.TSAs = append(ks.services.TSAs, t.URL)
		ks.tsas = append(ks.tsas, sign.NewTimestampAuthority(&sign.TimestampAuthorityOptions{URL: t.URL, Timeout: timeout, Retries: 1}))
	}
	if len(sc.RekorLogURLs()) > 0 {
		logs, err := root.SelectServices(sc.RekorLogURLs(), sc.RekorLogURLsConfig(), sign.RekorAPIVersions, now)
		if err != nil {
			return nil, fmt.Errorf("%w: transparency log: %w", ErrKeylessConfig, err)
		}
		for _, l := range logs {
			// One log: the verifier requires one entry (SPEC.md
			// "Verification policies").
			ks.services.Rekor, ks.services.RekorVersion = l.URL, l.MajorAPIVersion
			ks.logs = append(ks.logs, sign.NewRekor(&sign.RekorOptions{BaseURL: l.URL, Timeout: timeout, Retries: 1, Version: l.MajorAPIVersion}))
			break
		}
	}
	return ks, nil
}

// Services are the URLs the signer uses.
func (k *KeylessSigner) Services() KeylessServices { return k.services }

func (k *KeylessSigner) signBundle(ctx context.Context, content sign.Content) (*protobundle.Bundle, error) {
	tok, err := k.token(ctx)
	if err != nil {
		return nil, err
	}
	kp, err := sign.NewEphemeralKeypair(nil)
	if err != nil {
		return nil, fmt.Errorf("%w: ephemeral key: %w", ErrKeyless, err)
	}
	b, err := sign.Bundle(content, kp, sign.BundleOptions{
		Context:                    ctx,
		CertificateProvider:        k.fulcio,
		CertificateProviderOptions: &sign.CertificateProviderOptions{IDToken: tok},
		TimestampAuthorities:       k.tsas,
		TransparencyLogs:           k.logs,
	})
	if err != nil {
		return nil, fmt.Errorf("%w (Fulcio %s, timestamp authority %v, log %q): %w", ErrKeyless, k.services.Fulcio, k.services.TSAs, k.services.Rekor, err)
	}
	return b, nil
}

// selfCheck checks what a writer can without a trusted root: the bundle
// parses as ours, the envelope verifies with the certified key, the
// statement's subject is the manifest, and it holds a timestamp from each
// authority and an entry from each log. Trust in Fulcio, the timestamp
// authorities and the log is the verifier's to decide.
func (k *KeylessSigner) selfCheck(sig, manifest []byte) error {
	b, err := k.checkNew(sig)
	if err != nil {
		return err
	}
	st, err := signed.DecodeStatement(b.GetDsseEnvelope().GetPayload())
	if err != nil {
		return err
	}
	return st.CheckSubject(hexSHA256(manifest))
}

// selfCheckPayload is selfCheck for any statement: the subject is the
// caller's (SignPayload).
func (k *KeylessSigner) selfCheckPayload(sig []byte) error {
	_, err := k.checkNew(sig)
	return err
}

// checkNew checks a new bundle's certificate, signature, timestamps and
// log entries, and returns it parsed.
func (k *KeylessSigner) checkNew(sig []byte) (*bundle.Bundle, error) {
	b, err := parseBundle(sig)
	if err != nil {
		return nil, err
	}
	vc, err := b.VerificationContent()
	if err != nil || vc.Certificate() == nil {
		return nil, fmt.Errorf("%w: the new bundle has no certificate: %v", ErrBundleMalformed, err)
	}
	sc, err := b.SignatureContent()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBundleMalformed, err)
	}
	if err := verify.VerifySignature(sc, vc, nil); err != nil {
		return nil, fmt.Errorf("%w: does not verify with the certificate's key: %w", ErrSignatureInvalid, err)
	}
	if err := countMaterial(b, len(k.tsas), len(k.logs)); err != nil {
		return nil, err
	}
	return b, nil
}

func countMaterial(b *bundle.Bundle, tsas, logs int) error {
	vm := b.GetVerificationMaterial()
	if n := len(vm.GetTimestampVerificationData().GetRfc3161Timestamps()); n != tsas {
		return fmt.Errorf("%w: the new bundle has %d RFC 3161 timestamps, want %d", ErrBundleMalformed, n, tsas)
	}
	if n := len(vm.GetTlogEntries()); n != logs {
		return fmt.Errorf("%w: the new bundle has %d transparency log entries, want %d", ErrBundleMalformed, n, logs)
	}
	return nil
}

func hexSHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
