package manifest

// MediaType identifies a dshaudit evidence manifest (SPEC.md "Manifest fields").
const MediaType = "application/vnd.dshaudit.manifest.v1+json"

// SchemaVersion is the manifest schema version this code writes and reads.
const SchemaVersion = 1

// Path is the manifest's path inside the bundle archive.
const Path = "manifest.json"

// SignaturePath is the Sigstore bundle's path inside the archive.
const SignaturePath = "signature.sigstore.json"

// Manifest is the parsed form of manifest.json (SPEC.md "Manifest fields"). The raw bytes
// are what is hashed and signed; this struct sits beside them.
type Manifest struct {
	MediaType     string `json:"media_type"`
	SchemaVersion int    `json:"schema_version"`
	Tool          Tool   `json:"tool"`
	// Standards cites the editions applied, e.g. "DSHIO/T 10—2026".
	Standards []string `json:"standards"`
	Subject   Subject  `json:"subject"`
	// Baseline is the DSH baseline version (DSHIO/T 10 3.1).
	Baseline string `json:"baseline"`
	// Fingerprint is the DSHIO/T 21 5.2 environment fingerprint.
	Fingerprint string     `json:"fingerprint"`
	Image       Image      `json:"image"`
	Conditions  Conditions `json:"conditions"`
	// Deviations lists every condition deviation (DSHIO/T 21 8.2).
	Deviations []Deviation `json:"deviations"`
	// Settings are the tool's own parameters that the derivation uses.
	Settings Settings `json:"settings"`
	// StartedAt and FinishedAt are RFC 3339 UTC; TestDate is YYYY-MM-DD.
	StartedAt  string `json:"started_at"`
	FinishedAt string `json:"finished_at"`
	TestDate   string `json:"test_date"`
	Static     Static `json:"static"`
	// Environment holds the raw outputs of the version commands run in the
	// image, from which the fingerprint's versions were observed.
	Environment Environment `json:"environment"`
	// Dynamic is false when T1–T4 were not run (static layer only).
	Dynamic     bool         `json:"dynamic"`
	Repetitions []Repetition `json:"repetitions"`
	Claimed     Claimed      `json:"claimed"`
	// Declaration is the DSHIO/T 10 8.1 declaration text, if any.
	Declaration string `json:"declaration,omitempty"`
	// Files lists every file in the archive other than the manifest and
	// the signature, with its digest. Sorted by path.
	Files []File `json:"files"`
}

// Tool names the program that wrote the bundle.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Subject is the exact package tested (DSHIO/T 10 7.2).
type Subject struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Spec is the package-spec given to dsh in T1 (DSHIO/T 21 5.1.8):
	// "name@exact-version" for a registry package, "/pkgs/<file>.tgz" for
	// a local one. The spec the user typed is the variable condition
	// "package spec given".
	Spec string `json:"spec"`
	// Source is "registry", "github", "local-tarball" or "local-dir".
	Source string `json:"source"`
	// Integrity is the npm integrity string (sha512-…) of the tarball.
	Integrity string `json:"integrity,omitempty"`
	// TarballSHA256 is the hex sha256 of the tarball tested, if known.
	TarballSHA256 string `json:"tarball_sha256,omitempty"`
}

// Image is the sandbox image, pinned by digest (DSHIO/T 21 5.1.2).
type Image struct {
	Name   string `json:"name"`
	Digest string `json:"digest"`
}

// Conditions are the fixed and variable test conditions (DSHIO/T 21 3.1–3.2).
type Conditions struct {
	Fixed    []Condition `json:"fixed"`
	Variable []Condition `json:"variable"`
}

// Condition is one named condition value.
type Condition struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Deviation is one condition deviation (DSHIO/T 21 8.2 item 2).
type Deviation struct {
	What      string `json:"what"`
	Standard  string `json:"standard"`
	ChangedTo string `json:"changed_to"`
	Why       string `json:"why"`
	Clause    string `json:"clause,omitempty"`
}

// Settings are values the derivation rules depend on.
type Settings struct {
	// ObservationWindowMS is the T4 liveness window (DSHIO/T 21 5.1.6).
	ObservationWindowMS int64 `json:"observation_window_ms"`
	// TimeoutsMS are the per-stage wall-clock limits, by stage code.
	TimeoutsMS map[string]int64 `json:"timeouts_ms"`
	Repeat     int              `json:"repeat"`
}

// Static is the T0 section: evidence file paths and clause results.
type Static struct {
	// Evidence maps a role ("metadata", "patch", "readme", "schema") to a
	// file path listed in Files.
	Evidence map[string]string `json:"evidence"`
	// PatchFetchError records why no patch could be had, if so.
	PatchFetchError string `json:"patch_fetch_error,omitempty"`
	// InstalledSize is the plugin's installed size after T1, or -1.
	InstalledSize int64        `json:"installed_size"`
	Report        StaticReport `json:"report"`
}

// StaticReport is the T0 outcome as the manifest records it (DSHIO/T 20
// 5.5): the wire shape of rules/static's Report, which assemble converts
// to and from.
type StaticReport struct {
	Clauses []ClauseResult `json:"clauses"`
	// ConformingStatic is nil when Unresolvable.
	ConformingStatic *bool  `json:"conforming_static"`
	Unresolvable     bool   `json:"unresolvable"`
	Reason           string `json:"reason,omitempty"`
	// Warnings are printed to the user (T 20 5.6).
	Warnings []string `json:"warnings,omitempty"`
}

// ClauseResult is one clause's outcome (DSHIO/T 10 6.1, 6.4).
type ClauseResult struct {
	Clause string `json:"clause"`
	Title  string `json:"title"`
	// Status is one of rules/static's clause statuses ("conforming",
	// "non-conforming", "not evaluated", "human judgement required",
	// "not checkable").
	Status string `json:"status"`
	// Severity is "critical" or "recommended" (DSHIO/T 10 5).
	Severity string `json:"severity"`
	Observed string `json:"observed,omitempty"`
	Message  string `json:"message,omitempty"`
	// Questions are the guiding questions for human-judgement clauses.
	Questions []string `json:"questions,omitempty"`
	// Material is what a human needs to judge (tool descriptions,
	// declared permissions), for human-judgement clauses.
	Material []string `json:"material,omitempty"`
	// Warnings are non-verdict notes, e.g. two semver rules disagreeing.
	Warnings []string `json:"warnings,omitempty"`
}

// Environment maps a role ("dsh_version", "node_version",
// "pnpm_version") to a file path listed in Files.
type Environment struct {
	Evidence map[string]string `json:"evidence"`
}

// Repetition is one run of the whole T1–T4 sequence (DSHIO/T 21 Annex A).
type Repetition struct {
	Index   int     `json:"index"`
	Stages  []Stage `json:"stages"`
	Verdict string  `json:"verdict"`
}

// Stage is one stage of one repetition, with its observations.
type Stage struct {
	Stage string `json:"stage"`
	// Status is "passed", "failed" or "not_executed".
	Status string   `json:"status"`
	Argv   []string `json:"argv,omitempty"`
	// Network is "on" or "none".
	Network    string `json:"network,omitempty"`
	StartedAt  string `json:"started_at,omitempty"`
	EndedAt    string `json:"ended_at,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	ExitCode   *int   `json:"exit_code"`
	TimedOut   bool   `json:"timed_out"`
	// Liveness is the T4 observation.
	Liveness *Liveness `json:"liveness,omitempty"`
	// Evidence maps a role ("stdout", "stderr", "merged",
	// "profile_package_json") to a file path listed in Files.
	Evidence   map[string]string `json:"evidence,omitempty"`
	Verdict    string            `json:"verdict,omitempty"`
	FirstError string            `json:"first_error,omitempty"`
}

// Liveness is the recorded T4 observation (DSHIO/T 20 9.3).
type Liveness struct {
	WindowMS   int64 `json:"window_ms"`
	AliveMS    int64 `json:"alive_ms"`
	AliveAtEnd bool  `json:"alive_at_end"`
}

// Claimed is what the writer claims; the verifier re-derives all of it.
type Claimed struct {
	// Verdict is the overall verdict: a T 20 11.1 code, "unstable", or
	// "" when the dynamic layer was not run.
	Verdict          string `json:"verdict"`
	ConformingStatic *bool  `json:"conforming_static"`
	Unstable         bool   `json:"unstable"`
	Deviated         bool   `json:"deviated"`
	// UsableForCertification is false when deviated, unstable, or not
	// passed (DSHIO/T 20 11.3, DSHIO/T 21 8.2).
	UsableForCertification bool `json:"usable_for_certification"`
}

// File is one archive entry listed by the manifest.
type File struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}
