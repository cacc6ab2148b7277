package report

import (
	"time"

	"github.com/dshaudit/dshaudit/attest/signed"
	"github.com/dshaudit/dshaudit/claim"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules/static"
	"github.com/dshaudit/dshaudit/verify"
)

// Page is everything one bundle's page shows, in display order.
type Page struct {
	Title string
	// Bundle is the path as given; BundleSHA256 the digest of its bytes.
	Bundle       string
	BundleSHA256 string
	// Verified is true only when verify found nothing at all.
	Verified bool
	Status   string
	Signer   string
	// Certificate and SignedAt are a verified keyless signer's
	// certificate (CI extensions, validity) and verified timestamps.
	Certificate *signed.Certificate
	SignedAt    []time.Time
	// AuditWorkflow is verify's: the audit workflow the runner policy
	// accepted, "" when the evidence is the signer's word.
	AuditWorkflow string
	Findings      []verify.Finding
	// Headline is the page's first line: the verification and the
	// verdict together, the verdict the louder.
	Headline Headline
	Verdict  Verdict
	// Unverified is verify's list of the manifest fields it neither
	// derives nor cross-checks, with their values: the writer's word,
	// shown as "unverified metadata" (SPEC.md "Presenting a result").
	Unverified []verify.UnverifiedField
	// Facts are the recorded metadata rows (package, image, fingerprint…),
	// each with how far it is backed.
	Facts []Fact
	// Declaration is the DSHIO/T 10 8.1 text the verified result
	// supports, or "" when none does.
	Declaration string
	Claim       *ClaimView
	Deviations  []manifest.Deviation
	Conditions  []manifest.Condition
	Static      StaticView
	Repetitions []Repetition
	// OtherEvidence are the T0 and environment files.
	OtherEvidence []Evidence
	Replay        *ReplayView
	// Notes are things the page could not show, and why.
	Notes []string
}

// Headline kinds: each looks different at a glance.
const (
	KindPass        = "pass"         // verified, pass, usable for certification
	KindNotUsable   = "not-usable"   // verified, pass, but deviated or otherwise not usable
	KindFailed      = "failed"       // verified, a failed verdict
	KindUnstable    = "unstable"     // verified, the repetitions disagree
	KindStatic      = "static"       // verified, only T0 was run
	KindNotVerified = "not-verified" // the bundle did not verify
)

// Headline is the first line of a page: both facts, verified or not and
// the verdict, in one line, with a kind that sets how it looks.
type Headline struct {
	Kind string
	// Icon is a glyph beside the text, one per kind.
	Icon string
	// Evidence is "Evidence verified" or "Evidence not verified: STATUS".
	Evidence string
	// Verdict is the verdict code shown as verified, or "" when none is.
	Verdict string
	// Detail is one line under it: usable or why not, or the findings.
	Detail string
}

// Verdict is the top of the page.
type Verdict struct {
	// Code is the re-derived overall verdict ("" when it cannot be
	// re-derived), or "static only".
	Code string
	// Shown is true when Code may be presented as a verified verdict.
	Shown            bool
	Dynamic          bool
	Unstable         bool
	ConformingStatic string
	Usable           bool
	NotUsable        []string
	// FirstErrors link the summary to each highlighted first_error line.
	FirstErrors []FirstErrorLink
}

// FirstErrorLink points from the summary to a highlighted evidence line.
type FirstErrorLink struct {
	Repetition int
	Stage      string
	Text       string
	// Anchor is the id of the highlighted line; "" when the line was not
	// found in the evidence shown.
	Anchor string
}

// Provenance says how far a shown value is backed.
type Provenance string

// Provenances.
const (
	// Derived: re-derived by verify from the raw evidence.
	Derived Provenance = "re-derived"
	// Recorded: written and signed by the bundle's writer; verify checks
	// it for consistency but cannot re-observe it offline.
	Recorded Provenance = "recorded"
	// Unverified: the bundle did not verify; nothing it says is backed.
	Unverified Provenance = "unverified"
)

// Fact is one labelled metadata row.
type Fact struct {
	Name  string
	Field string // manifest field name
	Value string
	Code  bool // show in monospace
	Prov  Provenance
}

// ClaimView is the --claim check.
type ClaimView struct {
	Name   string
	Result claim.Result
	// Lines are the claim text's lines that a declaration or a finding
	// names, for context.
	Lines []NumberedLine
}

// NumberedLine is one line of a text with its 1-based number.
type NumberedLine struct {
	N    int
	Text string
}

// StaticView is the T0 clause table, re-derived.
type StaticView struct {
	Available        bool
	ConformingStatic string
	Unresolvable     bool
	Reason           string
	Clauses          []static.ClauseResult
	Warnings         []string
}

// Repetition is one run of T1–T4.
type Repetition struct {
	Index int
	// Verdict is the re-derived verdict of this repetition, "" when it
	// cannot be re-derived.
	Verdict string
	Stages  []Stage
}

// Stage is one stage of a repetition: the recorded observations and the
// re-derived outcome.
type Stage struct {
	ID         string // anchor
	Stage      string
	Status     string // re-derived; "" when it cannot be
	Verdict    string
	FirstError string
	// FirstErrorAnchor is the id of the highlighted line, if found.
	FirstErrorAnchor string
	Reasons          []string
	// Recorded observations.
	Executed   bool
	ExitCode   string
	Duration   string
	DurationMS int64
	Network    string
	TimedOut   bool
	Argv       string
	Liveness   string
	// ExitNote says why an exit code is not a failure: the observer
	// stopped a T4 process that was still alive (SPEC.md "T4 boot").
	ExitNote string
	Evidence []Evidence
}

// Evidence is one evidence file, split into numbered lines and grouped
// into blocks that open or stay collapsed.
type Evidence struct {
	ID    string
	Role  string
	Label string
	Path  string
	Size  int64
	Lines int
	// Trusted is true when the file's digest matches the manifest.
	Trusted bool
	// Note says why the content is not shown, or that it was cut.
	Note string
	// Open is true when the file holds a highlighted line.
	Open   bool
	Blocks []Block
}

// Block is a run of consecutive lines; the block around a highlighted
// line is open, long runs elsewhere are collapsed.
type Block struct {
	Open  bool
	From  int
	To    int
	Lines []Line
	// Omitted counts the lines of this run after To that the page does
	// not hold (Layout.MaxLines).
	Omitted int
}

// Line is one displayed line.
type Line struct {
	N    int
	ID   string
	Text string
	Hit  bool
}
