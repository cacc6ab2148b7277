package verify

import (
	"crypto/sha256"
	"time"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/attest/signed"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// verification is one bundle's verification under way: what the checks
// of Verify's steps share, each field filled by the step named beside it
// and read only by the steps after it. The checks are its methods; a
// helper that needs none of it stays a plain function.
type verification struct {
	// Set by Verify once step 1 has read the archive: rep collects
	// every finding; now is the verifier's clock (Options.Now); lim
	// bounds what the re-derivation parses (Options.RuleLimits); raw is
	// the manifest's bytes as signed, until readManifest has decoded
	// them and keeps their digest instead (step 3): up to
	// manifest.MaxSize that would otherwise stay beside the decoded
	// manifest and the evidence through every later step.
	rep    *Report
	now    time.Time
	lim    rules.Limits
	raw    []byte
	digest [sha256.Size]byte
	// knownSum gives the digests step 1 computed as it read the archive
	// (bundle.Archive.KnownSum), which the rebuild lists again.
	knownSum func(string, []byte) ([sha256.Size]byte, bool)
	// early are the run model readings started while the archive was
	// read; not nil when the bundle is verified alone on more than one
	// CPU (Options.DecodeAhead), whose stages' outputs are then read at
	// once.
	early *earlyModels

	// sig is the checked signature, nil when none verified (step 2,
	// checkSignature).
	sig *signed.Result
	// m is the decoded manifest (step 3, readManifest).
	m *manifest.Manifest
	// trusted are the listed files whose digests match, by path;
	// untrusted the listed paths that are missing or changed (step 3,
	// checkFiles), the streams not tied to one another, moved there
	// from trusted (step 3, checkStreams), the files referred to against
	// the layout, moved there from trusted and also kept in misreferred
	// (step 3, checkReferences), and the repetitions whose record is
	// incomplete (step 4, derive).
	trusted     map[string][]byte
	untrusted   map[string]bool
	misreferred map[string]bool
	// references is how many roles of the evidence maps refer to each
	// path (step 3, checkReferences).
	references map[string]int
	// profiles are the trusted T1 profile package.json files read so far,
	// by path (profileManifest): the run model and the dump's sections
	// both read them.
	profiles map[string]profileRead
	// derived is the re-derivation of every verdict from the trusted
	// files (step 4, derive).
	derived assemble.Derived

	// Built by checkWriterFacts (step 5) for the writer-fact checks it
	// runs: the parsed fingerprint (nil when it does not parse), the
	// fixed conditions by name, and the deviations the checks expected.
	fingerprint *rules.Fingerprint
	conditions  conditionIndex
	ledger      *deviationLedger
}
