package static

import "math"

// Status is a clause result state (DSHIO/T 10 6.1, 6.4).
type Status string

// Clause statuses.
const (
	Conforming     Status = "conforming"
	NonConforming  Status = "non-conforming"
	NotEvaluated   Status = "not evaluated"
	HumanJudgement Status = "human judgement required"
	NotCheckable   Status = "not checkable"
)

// Severity says whether a clause is mandatory or advisory (DSHIO/T 10 5).
type Severity string

// Severities.
const (
	Critical    Severity = "critical"
	Recommended Severity = "recommended"
)

// ClauseResult is one clause's outcome.
type ClauseResult struct {
	Clause   string   `json:"clause"`
	Title    string   `json:"title"`
	Status   Status   `json:"status"`
	Severity Severity `json:"severity"`
	Observed string   `json:"observed,omitempty"`
	Message  string   `json:"message,omitempty"`
	// Questions are the guiding questions for human-judgement clauses.
	Questions []string `json:"questions,omitempty"`
	// Material is what a human needs to judge (tool descriptions,
	// declared permissions), for human-judgement clauses.
	Material []string `json:"material,omitempty"`
	// Warnings are non-verdict notes, e.g. two semver rules disagreeing.
	Warnings []string `json:"warnings,omitempty"`
}

// Input is everything T0 reads. Nil PackageJSON means the metadata could
// not be had (the report is then "unresolvable").
type Input struct {
	PackageJSON []byte
	// Patch is the patch file content; nil when it could not be fetched.
	Patch []byte
	// PatchFetchError says why Patch is nil, when it is.
	PatchFetchError string
	// README is the package README, nil when absent.
	README []byte
	// Baseline is the DSH baseline version (DSHIO/T 10 3.1).
	Baseline string
	// InstalledSize is the plugin's installed size in bytes after T1, or
	// -1 when unknown (clause 5.3.3 is then not evaluated).
	InstalledSize int64
	// EntrySchema is the entry JSON Schema from dsh --dump-config-schema,
	// nil when unavailable.
	EntrySchema []byte
	// EntryDeclaration is the TypeScript declaration of the entry options
	// (EntryDeclarationPath) from the dsh in the sandbox image, used when
	// there is no EntrySchema; with neither, clause 5.1.6 is not
	// checkable.
	EntryDeclaration []byte
	// MaxInputBytes bounds each of PackageJSON, Patch, EntrySchema and
	// EntryDeclaration: a larger one is not parsed (SPEC.md "T0 static
	// check", "Input bounds"). Zero means each one's default,
	// MaxPackageJSONBytes, MaxPatchBytes, MaxEntrySchemaBytes and
	// MaxEntryDeclarationBytes (all 256 KiB).
	MaxInputBytes int64
}

// bound is the size limit of one input whose default is def.
func (in Input) bound(def int) int {
	if in.MaxInputBytes > 0 {
		return int(min(in.MaxInputBytes, math.MaxInt))
	}
	return def
}

// Report is the T0 outcome (DSHIO/T 20 5.5).
type Report struct {
	Clauses []ClauseResult `json:"clauses"`
	// ConformingStatic is nil when Unresolvable.
	ConformingStatic *bool  `json:"conforming_static"`
	Unresolvable     bool   `json:"unresolvable"`
	Reason           string `json:"reason,omitempty"`
	// Warnings are printed to the user (T 20 5.6).
	Warnings []string `json:"warnings,omitempty"`
}
