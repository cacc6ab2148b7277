package claim

import "github.com/dshaudit/dshaudit/verify"

// FactsFromReport takes what a verification established. Nothing of an
// unverified bundle is trusted: Verified is false and Check says the
// bundle backs nothing.
func FactsFromReport(r *verify.Report) Facts {
	return Facts{
		Verified:         r.OK(),
		Status:           string(r.Status),
		Standards:        r.Standards,
		Package:          r.Package,
		Baseline:         r.Baseline,
		TestDate:         r.TestDate,
		Fingerprint:      r.Fingerprint,
		BundleDigest:     r.BundleSHA256,
		Dynamic:          r.Dynamic,
		Verdict:          r.DerivedVerdict,
		Unstable:         r.Unstable,
		Deviated:         len(r.Deviations) > 0,
		Deviations:       r.DeviationRecords,
		ConformingStatic: r.ConformingStatic,
	}
}
