package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/dshaudit/dshaudit/attest"
)

// signFlags say how a new bundle is signed: run, replay and batch
// register the same flags. --signing-key is named so that nobody takes it
// for the key a verification trusts, which is --key on verify, report
// and replay. Keyless are the flags of keyless signing
// (keylessflags.go), the alternative to the key.
type signFlags struct {
	SigningKey string
	Keyless    keylessFlags
	// legacyKey is --key, the signing key's old name on run: hidden,
	// and warned about when given (applyLegacyKey). On batch, --key is
	// the trusted key; one given without --signing-key or --keyless is
	// read as the old name (batchOptions.applyOldSpelling).
	legacyKey string
	// usedLegacy is set when the signing key came from --key.
	usedLegacy bool
}

// flag is the flag the signing key was given with, for errors.
func (o *signFlags) flag() string {
	if o.usedLegacy {
		return "--key"
	}
	return "--signing-key"
}

// register adds --signing-key and the keyless flags; usage says what
// signs what.
func (o *signFlags) register(f *pflag.FlagSet, usage string) {
	f.StringVar(&o.SigningKey, "signing-key", "", usage)
	o.Keyless.register(f)
}

// signer is what signs the new bundle: the signing key, or with
// --keyless a keyless signer; exactly one (a --key of run counts as the
// signing key, with its warning on errOut).
func (o *signFlags) signer(ctx context.Context, errOut io.Writer) (attest.BundleSigner, error) {
	if err := o.applyLegacyKey(errOut); err != nil {
		return nil, err
	}
	return o.Keyless.bundleSigner(ctx, o.flag(), o.SigningKey)
}

// registerLegacyKey adds --key as the hidden, deprecated name of
// --signing-key (run; the --key of replay and batch is the trusted key).
func (o *signFlags) registerLegacyKey(f *pflag.FlagSet) {
	f.StringVar(&o.legacyKey, "key", "", "deprecated: the old name of --signing-key")
	if err := f.MarkHidden("key"); err != nil {
		panic(err)
	}
}

// applyLegacyKey makes a --key given on run the signing key,
// with a warning on errOut; given with --signing-key, it is a usage error.
func (o *signFlags) applyLegacyKey(errOut io.Writer) error {
	if o.legacyKey == "" {
		return nil
	}
	if o.SigningKey != "" {
		return fmt.Errorf("%w: --key is the old name of --signing-key: give --signing-key only", ErrUsage)
	}
	fmt.Fprintln(errOut, "dshaudit: --key is deprecated for the signing key; use --signing-key")
	o.SigningKey, o.usedLegacy = o.legacyKey, true
	return nil
}
