package vsa

import (
	"fmt"
	"slices"
	"strings"
)

// Artifact is an artifact the summary must name: its digests by
// algorithm (lowercase hex), and a name for messages.
type Artifact struct {
	Name    string
	Digests map[string]string
}

// ParseDigest reads "alg:hex" (slsa-verifier's --subject-digest form).
func ParseDigest(s string) (Artifact, error) {
	alg, h, ok := strings.Cut(s, ":")
	if !ok || alg == "" || h == "" {
		return Artifact{}, fmt.Errorf("subject digest %q: want ALGORITHM:HEX, e.g. sha256:…", s)
	}
	for _, c := range h {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return Artifact{}, fmt.Errorf("subject digest %q: want lowercase hex", s)
		}
	}
	return Artifact{Name: s, Digests: map[string]string{alg: h}}, nil
}

// names reports whether subject s is artifact a: they share at least one
// digest algorithm and agree on every one they share.
func (a Artifact) names(s Subject) bool {
	common := 0
	for alg, h := range a.Digests {
		if got, ok := s.Digest[alg]; ok {
			if got != h {
				return false
			}
			common++
		}
	}
	return common > 0
}

// Expect is what the consumer of a summary requires (VSA v1 "How to
// verify"): the signature (step 1) and signer (step 4, with the key or
// identity rule) are checked before, by package attest.
type Expect struct {
	// Subjects: each must be named by some subject (step 2). At least
	// one is required.
	Subjects []Artifact
	// VerifierID is the verifier.id required (step 4); "" means
	// DefaultVerifierID.
	VerifierID string
	// ResourceURI, when set, must equal resourceUri (step 5).
	ResourceURI string
	// Levels must each be in verifiedLevels (step 7).
	Levels []string
}

// Step is one check and its outcome.
type Step struct {
	// Name is the check: statement-type, predicate-type, subject,
	// verifier-id, resource-uri, verification-result, verified-levels.
	Name string `json:"name"`
	// Outcome is "passed", "failed" or "not-requested" (resource-uri
	// without an expected value).
	Outcome string `json:"outcome"`
	// Detail says what was compared, in the statement's words (escape
	// before showing).
	Detail string `json:"detail"`
}

// Step outcomes.
const (
	StepPassed       = "passed"
	StepFailed       = "failed"
	StepNotRequested = "not-requested"
)

// Check applies the VSA "How to verify" steps 2–7 (3 before 2, as the
// statement's type decides how to read it) to an authenticated
// statement. Every step is reported; the summary is accepted when none
// failed.
func Check(st *Statement, e Expect) []Step {
	var out []Step
	add := func(name string, ok bool, format string, args ...any) {
		o := StepPassed
		if !ok {
			o = StepFailed
		}
		out = append(out, Step{Name: name, Outcome: o, Detail: fmt.Sprintf(format, args...)})
	}
	add("statement-type", st.Type == StatementType, "_type %q, want %q", st.Type, StatementType)
	add("predicate-type", st.PredicateType == PredicateType, "predicateType %q, want %q", st.PredicateType, PredicateType)

	var missing []string
	for _, a := range e.Subjects {
		found := false
		for _, s := range st.Subject {
			if a.names(s) {
				found = true
			}
		}
		if !found {
			missing = append(missing, a.Name)
		}
	}
	switch {
	case len(e.Subjects) == 0:
		add("subject", false, "no expected artifact digest was given")
	case len(missing) > 0:
		add("subject", false, "no subject names %s (subjects: %s)", strings.Join(missing, ", "), subjectNames(st))
	default:
		add("subject", true, "%d expected artifact(s) named among subjects %s", len(e.Subjects), subjectNames(st))
	}

	wantID := e.VerifierID
	if wantID == "" {
		wantID = DefaultVerifierID
	}
	add("verifier-id", st.Predicate.Verifier.ID == wantID, "verifier.id %q, want %q", st.Predicate.Verifier.ID, wantID)

	if e.ResourceURI == "" {
		out = append(out, Step{Name: "resource-uri", Outcome: StepNotRequested, Detail: fmt.Sprintf("resourceUri %q (no expected value given)", st.Predicate.ResourceURI)})
	} else {
		add("resource-uri", st.Predicate.ResourceURI == e.ResourceURI, "resourceUri %q, want %q", st.Predicate.ResourceURI, e.ResourceURI)
	}
	add("verification-result", st.Predicate.VerificationResult == Passed, "verificationResult %q, want %q", st.Predicate.VerificationResult, Passed)

	var absent []string
	for _, l := range e.Levels {
		if !slices.Contains(st.Predicate.VerifiedLevels, l) {
			absent = append(absent, l)
		}
	}
	if len(absent) > 0 {
		add("verified-levels", false, "verifiedLevels %q lack %s", st.Predicate.VerifiedLevels, strings.Join(absent, ", "))
	} else {
		add("verified-levels", true, "verifiedLevels %q hold every level required (%d)", st.Predicate.VerifiedLevels, len(e.Levels))
	}
	return out
}

// Accepted reports whether no step failed.
func Accepted(steps []Step) bool {
	for _, s := range steps {
		if s.Outcome == StepFailed {
			return false
		}
	}
	return true
}

func subjectNames(st *Statement) string {
	var names []string
	for _, s := range st.Subject {
		names = append(names, fmt.Sprintf("%q", s.Name))
	}
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}
