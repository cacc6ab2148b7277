package verify

import (
	"fmt"
	"strconv"
	"strings"
)

// Class is a failure class the verifier reports (SPEC.md "Failure classes and status").
type Class string

// Failure classes, in the order that decides the overall status.
const (
	ClassArchiveUnsafe    Class = "archive-unsafe"
	ClassManifestInvalid  Class = "manifest-invalid"
	ClassSignatureInvalid Class = "signature-invalid"
	// ClassStatementUnsupported: the signature is valid but signs
	// something other than a dshaudit evidence statement (an in-toto
	// Statement v0.1, another predicate type or shape).
	ClassStatementUnsupported Class = "statement-unsupported"
	ClassUnsigned             Class = "unsigned"
	ClassFileMissing          Class = "file-missing"
	ClassFileExtra            Class = "file-extra"
	ClassFileChanged          Class = "file-changed"
	ClassEvidenceMissing      Class = "evidence-missing"
	ClassVerdictMismatch      Class = "verdict-mismatch"
	ClassRuleViolation        Class = "rule-violation"

	// The writer-fact classes (SPEC.md "What the verifier cross-checks"):
	// a validly signed manifest that states something the editions it
	// cites, its own recorded facts or its evidence contradict.

	// ClassEditionFact: a value the cited editions fix (baseline, window,
	// stage time limits, resource limits, repeat count, the editions
	// themselves) differs without its deviation, or a deviation claims a
	// difference that is not there.
	ClassEditionFact Class = "edition-fact"
	// ClassConditionMismatch: conditions, settings, fingerprint, image,
	// argv and network disagree with one another or with the deviations.
	ClassConditionMismatch Class = "condition-mismatch"
	// ClassSequenceShape: repetitions, stages, evidence paths or the file
	// list do not have the shape SPEC.md "Evidence file layout" requires.
	ClassSequenceShape Class = "sequence-shape"
	// ClassStreamMismatch: merged is not an interleaving of stdout and
	// stderr; no line rule reads the stage's streams.
	ClassStreamMismatch Class = "stream-mismatch"
	// ClassTimeInconsistent: timestamps, durations, time-outs, liveness
	// or the test date contradict one another.
	ClassTimeInconsistent Class = "time-inconsistent"
	// ClassSubjectMismatch: the subject is not one exact version, or the
	// metadata or the signed predicate name another subject or tool.
	ClassSubjectMismatch Class = "subject-mismatch"
	// ClassFingerprintInvalid: the fingerprint is not exactly the
	// DSHIO/T 21 5.2 fields, or its versions contradict the evidence.
	ClassFingerprintInvalid Class = "fingerprint-invalid"
	// ClassForbiddenWord: writer-controlled text claims a certified state.
	ClassForbiddenWord Class = "forbidden-word"
	// ClassInputInvalid: a field the rebuild copies from the manifest (an
	// input) breaks its validation rule: format, bounds, one line of
	// printable text, a name in ASCII.
	ClassInputInvalid Class = "input-invalid"
)

// classOrder ranks classes: the first present decides the status.
var classOrder = []Class{
	ClassArchiveUnsafe, ClassManifestInvalid, ClassSignatureInvalid, ClassStatementUnsupported, ClassUnsigned,
	ClassFileMissing, ClassFileExtra, ClassFileChanged,
	ClassVerdictMismatch, ClassEvidenceMissing,
	ClassEditionFact, ClassConditionMismatch, ClassSequenceShape, ClassStreamMismatch,
	ClassTimeInconsistent, ClassSubjectMismatch, ClassFingerprintInvalid, ClassForbiddenWord,
	ClassInputInvalid, ClassRuleViolation,
}

// Status is the one-line outcome of a verification.
type Status string

// Statuses. Like every enum value in dshaudit's JSON, lower-kebab-case
// (SPEC.md "Result objects"); Text gives the words the text output shows.
const (
	StatusVerified         Status = "verified"
	StatusTampered         Status = "tampered"
	StatusSignatureInvalid Status = "signature-invalid"
	// StatusStatementUnsupported: a valid signature over a statement
	// that is not a dshaudit evidence statement.
	StatusStatementUnsupported Status = "statement-unsupported"
	StatusUnsigned             Status = "unsigned"
	StatusVerdictMismatch      Status = "verdict-mismatch"
	StatusRuleViolation        Status = "rule-violation"
)

// Statuses are every Status, verified first.
var Statuses = []Status{StatusVerified, StatusTampered, StatusSignatureInvalid, StatusStatementUnsupported, StatusUnsigned, StatusVerdictMismatch, StatusRuleViolation}

// StatusFor is the status a report with findings of these classes has.
func StatusFor(classes []Class) Status {
	for _, c := range classOrder {
		for _, have := range classes {
			if have == c {
				return statusOf(c)
			}
		}
	}
	return StatusVerified
}

// Text is the status as the text output words it ("signature invalid").
func (s Status) Text() string { return strings.ReplaceAll(string(s), "-", " ") }

func statusOf(c Class) Status {
	switch c {
	case ClassArchiveUnsafe, ClassManifestInvalid, ClassFileMissing, ClassFileExtra, ClassFileChanged:
		return StatusTampered
	case ClassSignatureInvalid:
		return StatusSignatureInvalid
	case ClassStatementUnsupported:
		return StatusStatementUnsupported
	case ClassUnsigned:
		return StatusUnsigned
	case ClassVerdictMismatch:
		return StatusVerdictMismatch
	default:
		return StatusRuleViolation
	}
}

// Finding is one problem, naming the file or manifest field and the
// clause it breaks.
type Finding struct {
	Class   Class  `json:"class"`
	File    string `json:"file,omitempty"`
	Field   string `json:"field,omitempty"`
	Clause  string `json:"clause,omitempty"`
	Message string `json:"message"`
}

// repField names a field of repetition n (1-based, as the manifest's
// index and the evidence paths number repetitions) and stage, e.g.
// "repetitions[1].T4.liveness". SPEC.md "Verification": every finding
// numbers repetitions from 1.
func repField(n int, stage string, rest ...string) string {
	var buf [64]byte // one allocation, the string's
	b := append(buf[:0], "repetitions["...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ']')
	if stage != "" {
		b = append(b, '.')
		b = append(b, stage...)
	}
	for _, r := range rest {
		b = append(b, '.')
		b = append(b, r...)
	}
	return string(b)
}

func (f Finding) String() string {
	where := f.File
	if f.Field != "" {
		if where != "" {
			where += " "
		}
		where += f.Field
	}
	s := fmt.Sprintf("[%s]", f.Class)
	if where != "" {
		s += " " + where + ":"
	}
	s += " " + f.Message
	if f.Clause != "" {
		s += " (" + f.Clause + ")"
	}
	return s
}
