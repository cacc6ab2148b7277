package report

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/dshaudit/dshaudit/manifest"
)

// largeBundle is the boot_failed vector with n informational lines put
// before everything in repetition 1's T4 merged output, re-signed; its
// first_error and verdicts are unchanged, so it verifies.
func largeBundle(b testing.TB, n int) []byte {
	b.Helper()
	return rewriteVector(b, func(m *manifest.Manifest, files map[string][]byte) {
		var pad bytes.Buffer
		for i := range n {
			fmt.Fprintf(&pad, "[dsh] loading module %d of the plugin tree, nothing to report here\n", i)
		}
		// The same lines first in stdout and in merged, so that merged
		// is still an interleaving of the two streams.
		for _, role := range []string{manifest.RoleMerged, manifest.RoleStdout} {
			path := m.Repetitions[0].Stages[3].Evidence[role]
			files[path] = append(append([]byte{}, pad.Bytes()...), files[path]...)
		}
	})
}

// BenchmarkReportLargeEvidence builds and writes the page of a bundle
// whose T4 merged output has 200,000 lines (about 14 MB) before its
// first_error, with the default layout: verify plus rendering, and the
// size of the page.
func BenchmarkReportLargeEvidence(b *testing.B) {
	_, pol := loadVectors(b)
	raw := largeBundle(b, 200000)
	in := Input{Name: "large.dshaudit.tar.zst", Raw: raw, Verify: verifyOptions(pol)}
	var size int
	for b.Loop() {
		p, err := Build(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		if !p.Verified || p.Verdict.FirstErrors[0].Anchor == "" {
			b.Fatalf("large bundle: verified %v, first errors %+v, findings %v", p.Verified, p.Verdict.FirstErrors, p.Findings)
		}
		var buf bytes.Buffer
		if err := WritePage(&buf, p); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size), "page-bytes")
	b.ReportMetric(float64(len(raw)), "bundle-bytes")
}
