package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/rules"
)

// trustFlags say whom a verification trusts: a public key (--key), or a
// Sigstore trusted root (--trusted-root) with a keyless identity rule.
// verify, verify-summary, report, replay and batch register the same
// flags, with the same names and meanings.
type trustFlags struct {
	Key                 string
	TrustedRoot         string
	Identity            string
	IdentityRegexp      string
	OIDCIssuer          string
	OIDCIssuerRegexp    string
	InsecureAnyIdentity bool
	// AuditWorkflow and AuditWorkflowRegexp are the runner policy
	// (attest.RunnerPolicy): the evidence must come from dshaudit's
	// audit workflow at a release tag, on a GitHub-hosted runner.
	AuditWorkflow       string
	AuditWorkflowRegexp string
	// InsecureIgnoreSCT and InsecureIgnoreTlog waive the certificate
	// timestamp and the log entry (keylessflags.go, registerIgnoreSCT).
	InsecureIgnoreSCT  bool
	InsecureIgnoreTlog bool
}

// register adds the trust-policy flags.
func (o *trustFlags) register(f *pflag.FlagSet) {
	f.StringVar(&o.Key, "key", "", "trust this public key (PEM), for key-signed bundles")
	f.StringVar(&o.TrustedRoot, "trusted-root", "", "trust this Sigstore trusted_root.json, for keyless bundles")
	f.StringVar(&o.Identity, "certificate-identity", "", "keyless: the exact certificate identity (SAN)")
	f.StringVar(&o.IdentityRegexp, "certificate-identity-regexp", "", "keyless: a regexp the certificate identity must match")
	f.StringVar(&o.OIDCIssuer, "certificate-oidc-issuer", "", "keyless: the exact OIDC issuer")
	f.StringVar(&o.OIDCIssuerRegexp, "certificate-oidc-issuer-regexp", "", "keyless: a regexp the OIDC issuer must match")
	f.StringVar(&o.AuditWorkflow, "certificate-audit-workflow", "", "keyless: require the evidence to come from this audit workflow at a release tag, the certificate's build signer URI (e.g. https://github.com/dshaudit/dshaudit/.github/workflows/audit.yml@refs/tags/v1.15.0), on a GitHub-hosted runner, with the tag's dshaudit version; stands for --certificate-identity when that is not given")
	f.StringVar(&o.AuditWorkflowRegexp, "certificate-audit-workflow-regexp", "", "keyless: as --certificate-audit-workflow, a regexp the build signer URI must match (it must still name .github/workflows/audit.yml at refs/tags/…); stands for --certificate-identity-regexp when no identity rule is given")
	f.BoolVar(&o.InsecureAnyIdentity, "insecure-any-identity", false, "keyless: accept any identity the trusted root certifies (unsafe)")
	registerIgnoreSCT(f, o)
}

// policy builds the trust policy the flags give.
func (o *trustFlags) policy() (attest.Policy, error) { return o.policyWith("--key") }

// policyWith builds the policy; keyFlag is the flag the public key was
// given with (--key, or replay's deprecated --pub), so errors name the
// flag the user gave.
func (o *trustFlags) policyWith(keyFlag string) (attest.Policy, error) {
	var p attest.Policy
	if (o.Key == "") == (o.TrustedRoot == "") {
		return p, fmt.Errorf("%w: give exactly one of %s or --trusted-root", ErrUsage, keyFlag)
	}
	runner := o.AuditWorkflow != "" || o.AuditWorkflowRegexp != ""
	if runner && o.Key != "" {
		return p, fmt.Errorf("%w: --certificate-audit-workflow needs a keyless signature: give --trusted-root, not %s", ErrUsage, keyFlag)
	}
	if o.Key != "" {
		k, err := attest.LoadPublicKey(o.Key)
		if err != nil {
			return p, fmt.Errorf("%w: %s: %w", ErrUsage, keyFlag, err)
		}
		p.Key = k
	}
	if o.TrustedRoot != "" {
		tr, err := attest.LoadTrustedRoot(o.TrustedRoot)
		if err != nil {
			return p, fmt.Errorf("%w: --trusted-root: %w", ErrUsage, err)
		}
		p.Keyless = &attest.KeylessPolicy{
			TrustedMaterial:     tr,
			Identity:            o.Identity,
			IdentityRegexp:      o.IdentityRegexp,
			OIDCIssuer:          o.OIDCIssuer,
			OIDCIssuerRegexp:    o.OIDCIssuerRegexp,
			InsecureAnyIdentity: o.InsecureAnyIdentity,
			InsecureIgnoreSCT:   o.InsecureIgnoreSCT,
			InsecureIgnoreTlog:  o.InsecureIgnoreTlog,
		}
		if runner {
			// On GitHub Actions the certificate's identity is the
			// job_workflow_ref too, so the workflow rule is the
			// identity rule when none is given.
			if o.Identity == "" && o.IdentityRegexp == "" && !o.InsecureAnyIdentity {
				p.Keyless.Identity, p.Keyless.IdentityRegexp = o.AuditWorkflow, o.AuditWorkflowRegexp
			}
			p.Keyless.Runner = &attest.RunnerPolicy{Workflow: o.AuditWorkflow, WorkflowRegexp: o.AuditWorkflowRegexp}
			if err := p.Keyless.Runner.Validate(); err != nil {
				return p, fmt.Errorf("%w: --certificate-audit-workflow, --certificate-audit-workflow-regexp: %w", ErrUsage, err)
			}
		}
	}
	return p, nil
}

// limitFlags are the hostile-input reader limits (SPEC.md "Reader limits
// and refusals") and the re-derivation's, which verify and report share.
type limitFlags struct {
	// Limits bound what the reader accepts (SPEC.md "Reader limits and refusals").
	Limits bundle.Limits
	// RuleLimits bound what the re-derivation parses (SPEC.md "T3 dump
	// size limit").
	RuleLimits rules.Limits
	// Clock is report's --now: the verifier's clock, RFC 3339 ("" =
	// now). verify's --now is summaryFlags.Now, which serves both.
	Clock string
}

// register adds the limit flags, defaulting to bundle.DefaultLimits and
// rules.DefaultLimits.
func (o *limitFlags) register(f *pflag.FlagSet) {
	o.Limits = bundle.DefaultLimits()
	f.IntVar(&o.Limits.MaxEntries, "max-entries", o.Limits.MaxEntries, "refuse a bundle with more archive entries")
	f.Int64Var(&o.Limits.MaxEntrySize, "max-entry-size", o.Limits.MaxEntrySize, "refuse an entry larger than this many bytes")
	f.Int64Var(&o.Limits.MaxTotal, "max-total", o.Limits.MaxTotal, "refuse a bundle whose entries total more bytes")
	o.RuleLimits = rules.DefaultLimits()
	f.Int64Var(&o.RuleLimits.MaxDumpSize, "max-dump-size", o.RuleLimits.MaxDumpSize, "re-derive T3 as config_failed, unparsed, when the dump is larger than this many bytes (SPEC.md \"T3 dump size limit\")")
	f.Int64Var(&o.RuleLimits.MaxStaticInput, "max-static-input", o.RuleLimits.MaxStaticInput, "re-derive T0 without parsing a package.json, patch file, entry schema or EntryOptions declaration larger than this many bytes (SPEC.md \"T0 static check\", \"Input bounds\")")
}

// checkLimits refuses limits that are not positive.
func (o *limitFlags) checkLimits() error {
	if o.Limits.MaxEntries < 1 || o.Limits.MaxEntrySize < 1 || o.Limits.MaxTotal < 1 || o.RuleLimits.MaxDumpSize < 1 || o.RuleLimits.MaxStaticInput < 1 {
		return errLimits
	}
	return nil
}

var errLimits = fmt.Errorf("%w: --max-entries, --max-entry-size, --max-total, --max-dump-size and --max-static-input must be positive", ErrUsage)

// registerClock adds report's --now (verify's is summaryFlags').
func (o *limitFlags) registerClock(f *pflag.FlagSet) {
	f.StringVar(&o.Clock, "now", "", "check the run's dates against this RFC 3339 time instead of the clock, so that the date checks are reproducible (SPEC.md \"Time and process facts\")")
}

// clock is --now, or the zero time (verify then reads the clock).
func (o *limitFlags) clock() (time.Time, error) {
	if o.Clock == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, o.Clock)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: --now %q is not an RFC 3339 time (e.g. 2026-12-04T12:00:00Z)", ErrUsage, o.Clock)
	}
	return t, nil
}
