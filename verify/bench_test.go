package verify

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/bundle"
	"github.com/dshaudit/dshaudit/internal/gcstart"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// benchBundle builds a signed pass bundle whose T3 dump is the real hello
// dump repeated until the evidence totals about size bytes (realistic,
// partly compressible text), and returns the archive and the evidence.
func benchBundle(tb testing.TB, size int) ([]byte, map[string][]byte) {
	tb.Helper()
	ev := "../testdata/dsh-evidence/hello/"
	read := func(n string) []byte {
		b, err := os.ReadFile(ev + n)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	dump := read("t3.stdout")
	var big bytes.Buffer
	for big.Len() < size {
		big.Write(dump)
	}
	pkg, _ := os.ReadFile("../testdata/dsh-evidence/plugins/hello/package.json")
	patch, _ := os.ReadFile("../testdata/dsh-evidence/plugins/hello/cordis.patch.yml")
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	spec := "/pkgs/hello-dsh-plugin-1.0.0.tgz"
	stage := func(st rules.Stage, out, errOut []byte, code int) assemble.StageRun {
		return assemble.StageRun{Stage: st, Argv: assemble.StandardArgv(st, spec), Network: assemble.StandardNetwork(st),
			StartedAt: t0, EndedAt: t0.Add(time.Second), ExitCode: code, Stdout: out, Stderr: errOut, Merged: append(append([]byte{}, out...), errOut...)}
	}
	t1 := stage(rules.T1, read("t1.stdout"), read("t1.stderr"), 0)
	t1.ProfilePackageJSON = read("t1.profile-package.json")
	t4 := stage(rules.T4, read("t4.stdout"), nil, 137)
	t4.Liveness = &rules.Liveness{Window: 12 * time.Second, AliveFor: 12 * time.Second, AliveAtEnd: true}
	runs := []assemble.StageRun{t1, stage(rules.T2, read("t2.stdout"), nil, 0), stage(rules.T3, big.Bytes(), nil, 0), t4}
	in := assemble.Input{
		Tool: manifest.Tool{Name: "dshaudit", Version: "bench"}, Baseline: "0.1.0-rc.8",
		Subject:     manifest.Subject{Name: "hello-dsh-plugin", Version: "1.0.0", Spec: spec, Source: "local-tarball"},
		Fingerprint: "dsh=0.1.0-rc.8;img=localhost/x:1@sha256:" + hexOf("x") + ";node=24.11.1;pnpm=9.15.9;mem=768m;cpu=1",
		Image:       manifest.Image{Name: "localhost/x:1", Digest: "sha256:" + hexOf("x")},
		Settings:    manifest.Settings{ObservationWindowMS: 12000, Repeat: 1},
		Deviations:  []manifest.Deviation{{What: assemble.DeviationRepeatCount, Standard: "2", ChangedTo: "1", Why: "benchmark"}},
		StartedAt:   t0, FinishedAt: t0.Add(time.Minute), Dynamic: true,
		Static:      assemble.StaticInput{Metadata: pkg, Patch: patch, InstalledSize: -1},
		Versions:    map[string][]byte{manifest.RoleDSHVersion: []byte("0.1.0-rc.8\n"), manifest.RoleNodeVersion: []byte("v24.11.1\n"), manifest.RolePNPMVersion: []byte("9.15.9\n")},
		Repetitions: [][]assemble.StageRun{runs},
	}
	m, files, err := assemble.Build(in)
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := manifest.Encode(m)
	if err != nil {
		tb.Fatal(err)
	}
	signer, err := attest.LoadSigner("../testdata/vectors/keys/signer.key")
	if err != nil {
		tb.Fatal(err)
	}
	sig, err := attest.Sign(context.Background(), raw, attest.Predicate{Tool: attest.Tool{Name: "dshaudit", Version: "bench"},
		Subject: attest.Package{Name: m.Subject.Name, Version: m.Subject.Version}, Verdict: assemble.PredicateVerdict(m)}, signer)
	if err != nil {
		tb.Fatal(err)
	}
	var out bytes.Buffer
	if err := bundle.Write(&out, bundle.Contents{Manifest: raw, Signature: sig, Files: files}); err != nil {
		tb.Fatal(err)
	}
	files[manifest.Path], files[manifest.SignaturePath] = raw, sig
	return out.Bytes(), files
}

func hexOf(s string) string {
	const h = "0123456789abcdef"
	b := make([]byte, 64)
	for i := range b {
		b[i] = h[(int(s[0])+i)%16]
	}
	return string(b)
}

func evidenceSize(files map[string][]byte) int64 {
	var n int64
	for _, b := range files {
		n += int64(len(b))
	}
	return n
}

// BenchmarkVerify measures verify's throughput over the uncompressed
// evidence (MB/s), and reports the same data through `zstd -d |
// sha256sum` in the same run as a ratio (verify time / pipeline time),
// the bundle's size against tar | gzip -9 of the same files, and, for the
// largest bundle (a T3 dump of 15 MiB, as stdout and merged: the largest
// entry the default MaxEntrySize admits), the peak RSS of the dshaudit
// binary verifying it.
func BenchmarkVerify(b *testing.B) {
	key, err := attest.LoadPublicKey("../testdata/vectors/keys/signer.pub")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		size int
	}{{"1MiB", 1 << 20}, {"15MiB", 15 << 20}} {
		b.Run(c.name, func(b *testing.B) {
			arc, files := benchBundle(b, c.size)
			dir := b.TempDir()
			path := filepath.Join(dir, "b"+manifest.BundleSuffix)
			if err := os.WriteFile(path, arc, 0o644); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(evidenceSize(files))
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				rep, err := Verify(context.Background(), path, bytes.NewReader(arc), Options{Policy: attest.Policy{Key: key}})
				if err != nil || !rep.OK() {
					b.Fatalf("verify: %v %v", err, rep.Findings)
				}
			}
			per := time.Since(start) / time.Duration(b.N)
			b.StopTimer()
			b.ReportMetric(float64(per)/float64(pipelineTime(b, path)), "x-zstd|sha256sum")
			b.ReportMetric(float64(len(arc))/float64(tarGzipSize(b, files)), "size/tar.gz-9")
			if c.size >= 15<<20 {
				b.ReportMetric(peakRSS(b, path), "peak-RSS-MiB")
			}
		})
	}
}

// pipelineTime is the best of three `zstd -d | sha256sum` runs.
func pipelineTime(b *testing.B, path string) time.Duration {
	best := time.Duration(1 << 62)
	for i := 0; i < 3; i++ {
		start := time.Now()
		out, err := exec.Command("sh", "-c", "zstd -dc < '"+path+"' | sha256sum").CombinedOutput()
		if err != nil {
			b.Fatalf("zstd | sha256sum (apt-get install zstd): %v\n%s", err, out)
		}
		best = min(best, time.Since(start))
	}
	return best
}

func tarGzipSize(b *testing.B, files map[string][]byte) int {
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(gz)
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if err := tw.WriteHeader(&tar.Header{Name: p, Mode: 0o644, Size: int64(len(files[p])), ModTime: time.Unix(0, 0).UTC()}); err != nil {
			b.Fatal(err)
		}
		tw.Write(files[p])
	}
	tw.Close()
	gz.Close()
	return buf.Len()
}

// peakRSS runs the real CLI on the bundle and returns its max RSS in MiB.
func peakRSS(b *testing.B, path string) float64 {
	bin := filepath.Join(b.TempDir(), "dshaudit")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/dshaudit").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "verify", path, "--key", "../testdata/vectors/keys/signer.pub")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("dshaudit verify: %v\n%s", err, out)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return float64(ru.Maxrss) / 1024 // Linux reports KiB
}

// BenchmarkVerifyMany measures the many-bundles mode as `dshaudit verify
// DIR` runs it: verify.All, GOMAXPROCS workers, over manyBundles paths
// (the valid test vectors, each named manyBundles/10 times, as a
// directory of 270 small bundles would be: one All call per 270, so the
// workers do not idle at the end of each call, which a call per 10
// bundles made them do for about a twentieth of the time), under the
// collector settings the verify command runs with (internal/gcstart). It
// reports bundles verified per second, the CPU count of the machine, and
// the process's CPU time (user + system) per bundle, which a loaded
// machine disturbs less than the rate.
func BenchmarkVerifyMany(b *testing.B) {
	valid, pol := validVectorPaths(b)
	paths := make([]string, manyBundles)
	for i := range paths {
		paths[i] = valid[i%len(valid)]
	}
	defer debug.SetGCPercent(debug.SetGCPercent(gcstart.StartupPercent))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(gcstart.MemoryLimit))
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime(b)
	for i := 0; i < b.N; i++ {
		for _, it := range All(context.Background(), paths, Options{Policy: pol}, 0) {
			if it.Report == nil || !it.Report.OK() {
				b.Fatalf("%s did not verify", it.Path)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(paths))/time.Since(start).Seconds(), "bundles/s")
	b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "CPUs")
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(time.Millisecond)/float64(b.N*len(paths)), "cpu-ms/bundle")
}

// manyBundles is the size of the directory BenchmarkVerifyMany verifies,
// the one issue 11 measured.
const manyBundles = 270

// cpuTime is the process's user + system time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
