package assemble

import (
	"crypto/sha256"
	"time"

	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// Input is everything a run observed, before any verdict is derived.
type Input struct {
	Tool        manifest.Tool
	Subject     manifest.Subject
	Baseline    string
	Fingerprint string
	Image       manifest.Image
	Conditions  manifest.Conditions
	Deviations  []manifest.Deviation
	Settings    manifest.Settings
	StartedAt   time.Time
	FinishedAt  time.Time
	Static      StaticInput
	// Versions maps manifest.RoleDSHVersion, manifest.RoleNodeVersion, manifest.RolePNPMVersion to
	// the raw output of the version command run inside the image.
	Versions map[string][]byte
	// Dynamic is false for a static-only run (no T1–T4).
	Dynamic bool
	// Repetitions holds, per repetition, the stages executed, in order.
	Repetitions [][]StageRun
	// RuleLimits bound what the derivation parses (zero: the defaults,
	// which the verifier also uses; SPEC.md "T3 dump size limit").
	RuleLimits rules.Limits
	// Derived, when set, is what Derive made of the manifest these inputs
	// were copied from and of the same evidence bytes, without a
	// Problem: the verifier's own derivation of the bundle it rebuilds
	// (verify's checkRebuild). Build claims it instead of deriving a
	// second time, which read every stage output and every YAML document
	// again (issue 48): the inputs a rebuild copies are every field
	// Derive reads, so the derivation is the same.
	Derived *Derived
	// KnownSum, when set, gives the digest of a file the caller hashed
	// already (bundle.Archive.KnownSum: the verifier's rebuild lists the
	// archive's own files); Build hashes the others.
	KnownSum func(path string, data []byte) ([sha256.Size]byte, bool)
}

// StaticInput is the T0 evidence (DSHIO/T 20 12.1).
type StaticInput struct {
	Metadata        []byte
	Patch           []byte
	PatchFetchError string
	README          []byte
	Schema          []byte
	// EntryDeclaration is the EntryOptions declaration read from the dsh
	// in the image (static.EntryDeclarationPath), nil if not had.
	EntryDeclaration []byte
	// Tarball is the package tarball tested (manifest.RoleTarball), nil
	// when none was had.
	Tarball []byte
	// InstalledSize is the plugin's installed size after T1, -1 if unknown.
	InstalledSize int64
}

// StageRun is one executed stage as the runner observed it.
type StageRun struct {
	Stage              rules.Stage
	Argv               []string
	Network            string
	StartedAt          time.Time
	EndedAt            time.Time
	ExitCode           int
	TimedOut           bool
	Stdout             []byte
	Stderr             []byte
	Merged             []byte
	ProfilePackageJSON []byte
	Liveness           *rules.Liveness
}
