package bundle

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/manifest"
)

// cpuTime is the process's user+system CPU time. The machine these
// benchmarks run on is shared, so wall-clock MB/s depends on the load;
// CPU time per operation does not.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports CPU ms per operation and evidence MB per CPU second.
func reportCPU(b *testing.B, start time.Duration, n int64) {
	cpu := cpuTime(b) - start
	per := cpu.Seconds() / float64(b.N)
	b.ReportMetric(per*1000, "cpu-ms/op")
	b.ReportMetric(float64(n)/1e6/per, "MB/cpu-s")
}

// dshLines returns the lines of the real dsh output in testdata.
func dshLines(b testing.TB) []string {
	b.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "dsh-sample", "*.std*"))
	if err != nil || len(paths) == 0 {
		b.Fatalf("no dsh sample output in testdata/dsh-sample: %v", err)
	}
	var lines []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		for l := range strings.SplitSeq(string(data), "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// evidenceFiles builds about total bytes of realistic evidence: real dsh
// lines, each prefixed with a timestamp and sequence number, every fifth
// with a random request id, spread over stdout/stderr files of two
// repetitions of T1–T4, the way a runner lays them out. The varying
// prefixes and ids make it only partly compressible.
func evidenceFiles(b testing.TB, total int) map[string][]byte {
	b.Helper()
	lines := dshLines(b)
	var names []string
	for _, r := range []string{"r1", "r2"} {
		for _, st := range []string{"t1", "t2", "t3", "t4"} {
			names = append(names, r+"/"+st+"/stdout", r+"/"+st+"/stderr")
		}
	}
	per := total / len(names)
	rnd := uint64(1)
	next := func() uint64 { rnd ^= rnd << 13; rnd ^= rnd >> 7; rnd ^= rnd << 17; return rnd }
	files := map[string][]byte{}
	seq := 0
	for _, n := range names {
		var buf bytes.Buffer
		for buf.Len() < per {
			seq++
			ms := seq * 37
			fmt.Fprintf(&buf, "2026-11-29T18:%02d:%02d.%03dZ %7d ", ms/60000%60, ms/1000%60, ms%1000, seq)
			if seq%5 == 0 {
				fmt.Fprintf(&buf, "req=%016x%016x ", next(), next())
			}
			buf.WriteString(lines[int(next()%uint64(len(lines)))])
			buf.WriteByte('\n')
		}
		files[n] = buf.Bytes()
	}
	return files
}

func benchContents(b *testing.B, total int) (Contents, int64) {
	files := evidenceFiles(b, total)
	m := newManifest()
	m.Files = FileList(files)
	raw, err := manifest.Encode(m)
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, d := range files {
		n += int64(len(d))
	}
	return Contents{Manifest: raw, Signature: []byte("{}"), Files: files}, n
}

var benchSizes = []struct {
	name  string
	bytes int
}{{"1MiB", 1 << 20}, {"60MiB", 60 << 20}} // 60 MiB: near the default MaxTotal

// BenchmarkRead measures what verify does with a bundle before the rules
// run: Read, manifest.Decode, and CompareFiles (which hashes every file).
// MB/s is evidence bytes per second.
func BenchmarkRead(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			c, n := benchContents(b, sz.bytes)
			var buf bytes.Buffer
			if err := Write(&buf, c); err != nil {
				b.Fatal(err)
			}
			bundle := buf.Bytes()
			b.SetBytes(n)
			b.ReportAllocs()
			b.ResetTimer()
			start := cpuTime(b)
			for b.Loop() {
				a, err := Read(bytes.NewReader(bundle), DefaultLimits())
				if err != nil {
					b.Fatal(err)
				}
				m, err := manifest.Decode(a.RawManifest)
				if err != nil {
					b.Fatal(err)
				}
				if f := CompareFiles(m, a); len(f) != 0 {
					b.Fatal(f)
				}
			}
			reportCPU(b, start, n)
			b.ReportMetric(float64(len(bundle)), "bundle-bytes")
		})
	}
}

// BenchmarkWrite measures Write and reports the bundle size next to the
// same tar stream compressed with gzip -9, and the evidence size.
func BenchmarkWrite(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			c, n := benchContents(b, sz.bytes)
			var out bytes.Buffer
			if err := Write(&out, c); err != nil {
				b.Fatal(err)
			}
			gz := gzip9Size(b, c)
			b.SetBytes(n)
			b.ResetTimer()
			start := cpuTime(b)
			for b.Loop() {
				out.Reset()
				if err := Write(&out, c); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start, n)
			b.ReportMetric(float64(n), "evidence-bytes")
			b.ReportMetric(float64(out.Len()), "bundle-bytes")
			b.ReportMetric(float64(gz), "gzip9-bytes")
			b.ReportMetric(float64(out.Len())/float64(gz), "bundle/gzip9")
		})
	}
}

// gzip9Size is the size of `tar | gzip -9` over the same entries.
func gzip9Size(b *testing.B, c Contents) int {
	m, err := manifest.Decode(c.Manifest)
	if err != nil {
		b.Fatal(err)
	}
	entries := []entry{{manifest.Path, c.Manifest}, {manifest.SignaturePath, c.Signature}}
	for _, f := range m.Files {
		entries = append(entries, entry{f.Path, c.Files[f.Path]})
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		b.Fatal(err)
	}
	if err := writeTar(zw, entries); err != nil {
		b.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Len()
}
