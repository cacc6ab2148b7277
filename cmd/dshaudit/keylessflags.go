package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/spf13/pflag"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/attest/signed"
	"github.com/dshaudit/dshaudit/internal/termtext"
)

// keylessFlags are the flags of keyless signing that run, replay and
// batch share (SPEC.md "Signature", "Signing"): --keyless instead of a
// key, the OIDC identity token, and the Sigstore services, from a
// signing_config.json or from flags defaulting to the public-good
// instance.
type keylessFlags struct {
	Keyless       bool
	IdentityToken string
	SigningConfig string
	FulcioURL     string
	TSAURLs       []string
	RekorURL      string
	RekorVersion  uint32
	flags         *pflag.FlagSet
}

// serviceFlags are the flags --signing-config replaces.
var serviceFlags = []string{"fulcio-url", "timestamp-url", "rekor-url", "rekor-api-version"}

func (k *keylessFlags) register(f *pflag.FlagSet) {
	k.flags = f
	f.BoolVar(&k.Keyless, "keyless", false, "sign with a short-lived Fulcio certificate for an OIDC identity instead of a key (Sigstore keyless)")
	f.StringVar(&k.IdentityToken, "identity-token", "", "keyless: file holding the OIDC identity token (default $"+attest.IDTokenEnv+", else the GitHub Actions token request)")
	f.StringVar(&k.SigningConfig, "signing-config", "", "keyless: Sigstore signing_config.json naming Fulcio, timestamp authorities and transparency logs (instead of --fulcio-url, --timestamp-url, --rekor-url)")
	f.StringVar(&k.FulcioURL, "fulcio-url", attest.PublicGoodFulcioURL, "keyless: Fulcio certificate authority")
	f.StringArrayVar(&k.TSAURLs, "timestamp-url", []string{attest.PublicGoodTSAURL}, "keyless: RFC 3161 timestamp authority (repeatable; a timestamp is always requested)")
	f.StringVar(&k.RekorURL, "rekor-url", attest.PublicGoodRekorURL, `keyless: Rekor transparency log ("" for none)`)
	f.Uint32Var(&k.RekorVersion, "rekor-api-version", 1, "keyless: the Rekor log's major API version, 1 or 2")
}

// changed reports whether any keyless flag was given.
func (k *keylessFlags) changed() bool {
	for _, n := range append([]string{"identity-token", "signing-config"}, serviceFlags...) {
		if k.flags != nil && k.flags.Changed(n) {
			return true
		}
	}
	return false
}

// check refuses contradictory keyless flags before anything runs.
func (k *keylessFlags) check() error {
	if !k.Keyless {
		if k.changed() {
			return fmt.Errorf("%w: --identity-token, --signing-config and the service flags need --keyless", ErrUsage)
		}
		return nil
	}
	if k.SigningConfig != "" {
		for _, n := range serviceFlags {
			if k.flags.Changed(n) {
				return fmt.Errorf("%w: --signing-config names the services; give it or --%s, not both", ErrUsage, n)
			}
		}
	}
	if k.RekorVersion != 1 && k.RekorVersion != 2 {
		return fmt.Errorf("%w: --rekor-api-version %d: want 1 or 2", ErrUsage, k.RekorVersion)
	}
	return nil
}

// signer gets the identity token and builds the keyless signer. A
// missing token or a bad config is a usage error; a token request that
// fails could not run.
func (k *keylessFlags) signer(ctx context.Context) (*attest.KeylessSigner, error) {
	if err := k.check(); err != nil {
		return nil, err
	}
	sc, err := k.signingConfig()
	if err != nil {
		return nil, err
	}
	token := func(ctx context.Context) (string, error) {
		tok, _, err := attest.IDToken(ctx, k.IdentityToken, os.Getenv, nil)
		return tok, err
	}
	// Fail now, not after minutes of testing, when there is no token;
	// the token signing uses is fetched again then (tokens are
	// short-lived).
	if _, err := token(ctx); err != nil {
		return nil, keylessErr(err)
	}
	s, err := attest.NewKeylessSigner(attest.KeylessOptions{SigningConfig: sc, IDToken: token})
	if err != nil {
		return nil, keylessErr(err)
	}
	return s, nil
}

// signingConfig is --signing-config's file, or the config the service
// flags describe.
func (k *keylessFlags) signingConfig() (*root.SigningConfig, error) {
	if k.SigningConfig != "" {
		sc, err := attest.LoadSigningConfig(k.SigningConfig)
		if err != nil {
			return nil, fmt.Errorf("%w: --signing-config: %w", ErrUsage, err)
		}
		return sc, nil
	}
	tsas := slices.DeleteFunc(slices.Clone(k.TSAURLs), func(u string) bool { return u == "" })
	if k.FulcioURL == "" || len(tsas) == 0 {
		return nil, fmt.Errorf("%w: keyless signing needs --fulcio-url and at least one --timestamp-url", ErrUsage)
	}
	sc, err := attest.NewSigningConfig(k.FulcioURL, tsas, k.RekorURL, k.RekorVersion)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	return sc, nil
}

// keylessErr maps keyless errors to exit classes: configuration is usage
// (2), a service that failed could not run (3).
func keylessErr(err error) error {
	switch {
	case errors.Is(err, attest.ErrKeylessConfig):
		return fmt.Errorf("%w: %w", ErrUsage, err)
	case errors.Is(err, attest.ErrKeyless):
		return fmt.Errorf("%w: %w", ErrCouldNotRun, err)
	}
	return err
}

// taskArgs are the keyless flags for a batch task's run, file paths made
// absolute (tasks run from another directory).
func (k *keylessFlags) taskArgs() ([]string, error) {
	if !k.Keyless {
		return nil, nil
	}
	out := []string{"--keyless"}
	for _, p := range []struct{ name, val string }{{"identity-token", k.IdentityToken}, {"signing-config", k.SigningConfig}} {
		if p.val == "" {
			continue
		}
		abs, err := filepath.Abs(p.val)
		if err != nil {
			return nil, fmt.Errorf("%w: --%s: %w", ErrUsage, p.name, err)
		}
		out = append(out, "--"+p.name+"="+abs)
	}
	for _, n := range serviceFlags {
		if fl := k.flags.Lookup(n); fl != nil && fl.Changed {
			if n == "timestamp-url" {
				for _, u := range k.TSAURLs {
					out = append(out, "--timestamp-url="+u)
				}
				continue
			}
			out = append(out, "--"+n+"="+fl.Value.String())
		}
	}
	return out, nil
}

// bundleSigner is the signer of run and replay: the private key keyFile
// (flag keyFlag) or, with --keyless, a keyless signer; exactly one.
func (k *keylessFlags) bundleSigner(ctx context.Context, keyFlag, keyFile string) (attest.BundleSigner, error) {
	if err := k.check(); err != nil {
		return nil, err
	}
	switch {
	case k.Keyless && keyFile != "":
		return nil, fmt.Errorf("%w: give %s or --keyless, not both", ErrUsage, keyFlag)
	case k.Keyless:
		return k.signer(ctx)
	case keyFile == "":
		return nil, fmt.Errorf("%w: %s is required, or --keyless: the bundle is signed (create a key with dshaudit key generate)", ErrUsage, keyFlag)
	}
	s, err := attest.LoadSigner(keyFile)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrUsage, keyFlag, err)
	}
	return s, nil
}

// registerIgnoreSCT adds the waivers of the signed certificate timestamp
// and of the log entry for a keyless policy (SPEC.md "Verification
// policies" 16), for private Sigstore deployments without a certificate
// transparency log or a Rekor.
func registerIgnoreSCT(f *pflag.FlagSet, o *trustFlags) {
	f.BoolVar(&o.InsecureIgnoreSCT, "insecure-ignore-sct", false, "keyless: do not require a signed certificate timestamp in the certificate (a Fulcio without CT log; unsafe for the public-good instance)")
	f.BoolVar(&o.InsecureIgnoreTlog, "insecure-ignore-tlog", false, "keyless: do not require a transparency log entry (a bundle signed with --rekor-url \"\"; only the RFC 3161 timestamp then dates the signature)")
}

// printCertificate prints what a verified keyless signer's certificate
// says: identity and issuer are on the signer line; here the CI
// extensions, the validity and the verified timestamps. Every value from
// the certificate is escaped (SPEC.md "Output safety").
func printCertificate(w io.Writer, st termtext.Style, c *signed.Certificate, at []time.Time) {
	if c == nil {
		return
	}
	for _, l := range []struct{ label, val string }{
		{"repository:", c.SourceRepository},
		{"ref:", c.SourceRepositoryRef},
		{"commit:", c.SourceRepositoryDigest},
		{"workflow:", c.Workflow},
		{"trigger:", c.Trigger},
		{"run:", c.Run},
		{"signer uri:", c.BuildSignerURI},
		{"runner:", c.RunnerEnvironment},
	} {
		if l.val != "" {
			fmt.Fprintf(w, "  %-12s%s\n", l.label, st.Field(l.val))
		}
	}
	fmt.Fprintf(w, "  %-12s%s to %s\n", "certified:", c.NotBefore.UTC().Format(time.RFC3339), c.NotAfter.UTC().Format(time.RFC3339))
	for _, t := range at {
		fmt.Fprintf(w, "  %-12s%s (verified timestamp)\n", "signed:", t.UTC().Format(time.RFC3339))
	}
}
