package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/bundle"
)

// largeBundle is the boot_failed vector with n informational lines put
// before everything in repetition 1's T4 merged output, re-signed; its
// first_error and verdicts are unchanged, so it verifies.
func largeBundle(b testing.TB, n int) []byte {
	b.Helper()
	raw, err := os.ReadFile(filepath.Join(vectorsDir, "boot_failed.dshaudit.tar.zst"))
	if err != nil {
		b.Fatal(err)
	}
	arc, err := bundle.Read(bytes.NewReader(raw), bundle.DefaultLimits())
	if err != nil {
		b.Fatal(err)
	}
	m, err := bundle.DecodeManifest(arc.RawManifest)
	if err != nil {
		b.Fatal(err)
	}
	var pad bytes.Buffer
	for i := range n {
		fmt.Fprintf(&pad, "[dsh] loading module %d of the plugin tree, nothing to report here\n", i)
	}
	path := m.Repetitions[0].Stages[3].Evidence[assemble.RoleMerged]
	arc.Files[path] = append(pad.Bytes(), arc.Files[path]...)
	m.Files = bundle.FileList(arc.Files)
	man, err := bundle.EncodeManifest(m)
	if err != nil {
		b.Fatal(err)
	}
	signer, err := attest.LoadSigner(filepath.Join(vectorsDir, "keys", "signer.key"))
	if err != nil {
		b.Fatal(err)
	}
	sig, err := attest.Sign(context.Background(), man, attest.Predicate{
		Tool: attest.Tool{Name: m.Tool.Name, Version: m.Tool.Version}, Subject: attest.Package{Name: m.Subject.Name, Version: m.Subject.Version},
		Verdict: assemble.PredicateVerdict(m),
	}, signer)
	if err != nil {
		b.Fatal(err)
	}
	var out bytes.Buffer
	if err := bundle.Write(&out, bundle.Contents{Manifest: man, Signature: sig, Files: arc.Files}); err != nil {
		b.Fatal(err)
	}
	return out.Bytes()
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
