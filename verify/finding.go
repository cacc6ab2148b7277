package verify

import "fmt"

// Class is a failure class the verifier reports (SPEC.md "Failure classes and status").
type Class string

// Failure classes, in the order that decides the overall status.
const (
	ClassArchiveUnsafe    Class = "archive-unsafe"
	ClassManifestInvalid  Class = "manifest-invalid"
	ClassSignatureInvalid Class = "signature-invalid"
	ClassUnsigned         Class = "unsigned"
	ClassFileMissing      Class = "file-missing"
	ClassFileExtra        Class = "file-extra"
	ClassFileChanged      Class = "file-changed"
	ClassEvidenceMissing  Class = "evidence-missing"
	ClassVerdictMismatch  Class = "verdict-mismatch"
	ClassRuleViolation    Class = "rule-violation"
)

// classOrder ranks classes: the first present decides the status.
var classOrder = []Class{
	ClassArchiveUnsafe, ClassManifestInvalid, ClassSignatureInvalid, ClassUnsigned,
	ClassFileMissing, ClassFileExtra, ClassFileChanged,
	ClassVerdictMismatch, ClassEvidenceMissing, ClassRuleViolation,
}

// Status is the one-line outcome of a verification.
type Status string

// Statuses.
const (
	StatusVerified         Status = "verified"
	StatusTampered         Status = "tampered"
	StatusSignatureInvalid Status = "signature invalid"
	StatusUnsigned         Status = "unsigned"
	StatusVerdictMismatch  Status = "verdict mismatch"
	StatusRuleViolation    Status = "rule violation"
)

func statusOf(c Class) Status {
	switch c {
	case ClassArchiveUnsafe, ClassManifestInvalid, ClassFileMissing, ClassFileExtra, ClassFileChanged:
		return StatusTampered
	case ClassSignatureInvalid:
		return StatusSignatureInvalid
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
