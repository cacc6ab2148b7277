package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/rules"
)

// registerTrust adds the trust-policy flags that verify and report share:
// --key (a public key) or --trusted-root with a keyless identity rule.
func (o *verifyOptions) registerTrust(f *pflag.FlagSet) {
	f.StringVar(&o.Key, "key", "", "trust this public key (PEM), for key-signed bundles")
	f.StringVar(&o.TrustedRoot, "trusted-root", "", "trust this Sigstore trusted_root.json, for keyless bundles")
	f.StringVar(&o.Identity, "certificate-identity", "", "keyless: the exact certificate identity (SAN)")
	f.StringVar(&o.IdentityRegexp, "certificate-identity-regexp", "", "keyless: a regexp the certificate identity must match")
	f.StringVar(&o.OIDCIssuer, "certificate-oidc-issuer", "", "keyless: the exact OIDC issuer")
	f.StringVar(&o.OIDCIssuerRegexp, "certificate-oidc-issuer-regexp", "", "keyless: a regexp the OIDC issuer must match")
	f.BoolVar(&o.InsecureAnyIdentity, "insecure-any-identity", false, "keyless: accept any identity the trusted root certifies (unsafe)")
}

// registerLimits adds the hostile-input reader limits (SPEC.md "Reader
// limits and refusals"), defaulting to bundle.DefaultLimits.
func (o *verifyOptions) registerLimits(f *pflag.FlagSet) {
	o.Limits = bundle.DefaultLimits()
	f.IntVar(&o.Limits.MaxEntries, "max-entries", o.Limits.MaxEntries, "refuse a bundle with more archive entries")
	f.Int64Var(&o.Limits.MaxEntrySize, "max-entry-size", o.Limits.MaxEntrySize, "refuse an entry larger than this many bytes")
	f.Int64Var(&o.Limits.MaxTotal, "max-total", o.Limits.MaxTotal, "refuse a bundle whose entries total more bytes")
	o.RuleLimits = rules.DefaultLimits()
	f.Int64Var(&o.RuleLimits.MaxDumpSize, "max-dump-size", o.RuleLimits.MaxDumpSize, "re-derive T3 as config_failed, unparsed, when the dump is larger than this many bytes (SPEC.md \"T3 dump size limit\")")
	f.Int64Var(&o.RuleLimits.MaxStaticInput, "max-static-input", o.RuleLimits.MaxStaticInput, "re-derive T0 without parsing a package.json, patch file, entry schema or EntryOptions declaration larger than this many bytes (SPEC.md \"T0 static check\", \"Input bounds\")")
}

// checkLimits refuses limits that are not positive.
func (o *verifyOptions) checkLimits() error {
	if o.Limits.MaxEntries < 1 || o.Limits.MaxEntrySize < 1 || o.Limits.MaxTotal < 1 || o.RuleLimits.MaxDumpSize < 1 || o.RuleLimits.MaxStaticInput < 1 {
		return errLimits
	}
	return nil
}

var errLimits = fmt.Errorf("%w: --max-entries, --max-entry-size, --max-total, --max-dump-size and --max-static-input must be positive", ErrUsage)
