package vsa

import "strings"

// dshaudit's verifiedLevels values (SPEC.md "Verification summary",
// "Levels"): one per layer, none starting with SLSA_ (VSA v1 reserves the
// prefix). The dynamic layer's value is DynamicPrefix and the re-derived
// verdict code in capitals.
const (
	StaticConforming       = "DSHIO_STATIC_CONFORMING"
	StaticNotConforming    = "DSHIO_STATIC_NOT_CONFORMING"
	DynamicPrefix          = "DSHIO_DYNAMIC_"
	UsableForCertification = "DSHIO_USABLE_FOR_CERTIFICATION"
	DeviatedNotForCert     = "DSHIO_DEVIATED_NOT_FOR_CERTIFICATION"
	NotForCertification    = "DSHIO_NOT_FOR_CERTIFICATION"
	// AuditWorkflow: the verified bundle's signature met the runner
	// policy, so dshaudit's audit workflow at a release tag, on a
	// GitHub-hosted runner, produced the evidence (SPEC.md
	// "Runner policy").
	AuditWorkflow = "DSHIO_AUDIT_WORKFLOW"
)

// DynamicVerdicts are the verdict codes of a dynamic run (DSHIO/T 20
// Annex B), whose DynamicPrefix forms are the dynamic layer's values.
var DynamicVerdicts = []string{"pass", "install_failed", "config_failed", "installs_but_not_registered", "boot_failed", "unstable"}

// AllLevels lists every value Levels can give, and FAILED.
func AllLevels() []string {
	out := []string{StaticConforming, StaticNotConforming}
	for _, v := range DynamicVerdicts {
		out = append(out, DynamicLevel(v))
	}
	return append(out, UsableForCertification, DeviatedNotForCert, NotForCertification, AuditWorkflow, Failed)
}

// DynamicLevel is the dynamic layer's value for a verdict code.
func DynamicLevel(verdict string) string { return DynamicPrefix + strings.ToUpper(verdict) }

// Facts are the parts of a verified bundle the levels name.
type Facts struct {
	// ConformingStatic is T0's result; nil when the bundle has no T0.
	ConformingStatic *bool
	// Dynamic is true when the bundle holds T1–T4; Verdict is then the
	// re-derived overall verdict code.
	Dynamic bool
	Verdict string
	// Deviated: the bundle records deviations from the standard
	// conditions. Usable: the result may back a certification.
	Deviated, Usable bool
	// AuditWorkflow: the runner policy held (verify.Report.AuditWorkflow).
	AuditWorkflow bool
}

// Levels are the verifiedLevels of a verified bundle, in the order
// static, dynamic, certification, and AuditWorkflow last when the
// runner policy held.
func Levels(f Facts) []string {
	var out []string
	if f.ConformingStatic != nil {
		if *f.ConformingStatic {
			out = append(out, StaticConforming)
		} else {
			out = append(out, StaticNotConforming)
		}
	}
	if f.Dynamic && f.Verdict != "" {
		out = append(out, DynamicLevel(f.Verdict))
	}
	switch {
	case f.Usable:
		out = append(out, UsableForCertification)
	case f.Deviated:
		out = append(out, DeviatedNotForCert)
	default:
		out = append(out, NotForCertification)
	}
	if f.AuditWorkflow {
		out = append(out, AuditWorkflow)
	}
	return out
}
