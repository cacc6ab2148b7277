// Package manifesttest builds the sample manifest and evidence files the
// tests of manifest and bundle share: the real dsh output of the "hello"
// case and a manifest whose every field is set, so that the codec and
// archive tests exercise all of them. It is imported only by tests.
package manifesttest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dshaudit/dshaudit/manifest"
)

// SampleFiles returns the real dsh output of the "hello" case laid out
// as a runner would store it. dir is the path of bundle/testdata/dsh-sample
// from the test's package.
func SampleFiles(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("sample evidence missing: %v", err)
		}
		return b
	}
	files := map[string][]byte{
		"static/package.json": []byte(`{"name":"dsh-plugin-hello","version":"1.0.0","dsh":{"bundle":{"patch":"patch.yaml"}}}` + "\n"),
		"static/patch.yaml":   []byte("- id: hello\n  name: dsh-plugin-hello\n"),
		"static/README.md":    []byte("# hello\n\nSays hello. <b>&amp;</b>\n"),
	}
	for _, st := range []string{"t1", "t2", "t3", "t4"} {
		files["r1/"+st+"/stdout"] = read("hello." + st + ".stdout")
		files["r1/"+st+"/stderr"] = read("hello." + st + ".stderr")
	}
	files["r1/t1/profile-package.json"] = read("hello.t1.profile-package.json")
	return files
}

// SampleManifest returns a filled-in manifest for SampleFiles, whose
// every field is set but Files: the caller lists the files it bundles
// with bundle.FileList (which this package cannot import, since the
// tests of package bundle import it).
func SampleManifest() *manifest.Manifest {
	exit0, exit137 := 0, 137
	yes := true
	m := Empty()
	m.Tool = manifest.Tool{Name: "dshaudit", Version: "0.1.0"}
	m.Standards = []string{"DSHIO/T 10—2026", "DSHIO/T 20—2026", "DSHIO/T 21—2026"}
	m.Subject = manifest.Subject{Name: "dsh-plugin-hello", Version: "1.0.0", Spec: "dsh-plugin-hello@1.0.0", Source: "registry",
		Integrity: "sha512-AAAA", TarballSHA256: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}
	m.Baseline = "0.2.2-rc.1"
	m.Fingerprint = "dsh=0.2.2-rc.1;img=dsh-sandbox:5.0@sha256:abc;node=24.11.1;pnpm=9.15.9;mem=768m;cpu=1"
	m.Image = manifest.Image{Name: "dsh-sandbox:5.0", Digest: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}
	m.Conditions = manifest.Conditions{
		Fixed:    []manifest.Condition{{Name: "dsh", Value: "0.2.2-rc.1"}, {Name: "network.t2", Value: "none"}},
		Variable: []manifest.Condition{{Name: "host", Value: "ci-1 <&>"}},
	}
	m.Deviations = []manifest.Deviation{{What: "T1 command", Standard: "dsh plugin --profile web add <pkg>",
		ChangedTo: "dsh plugin --profile web add -w <pkg>", Why: "dsh 0.1.0-rc.8 needs -w", Clause: "DSHIO/T 21 5.1.8"}}
	m.Settings = manifest.Settings{ObservationWindowMS: 12000, TimeoutsMS: map[string]int64{"T4": 30000, "T1": 300000, "T3": 60000}, Repeat: 2}
	m.StartedAt, m.FinishedAt, m.TestDate = "2026-11-29T18:00:00Z", "2026-11-29T18:02:00Z", "2026-11-29"
	m.Static = manifest.Static{
		Evidence:      map[string]string{"patch": "static/patch.yaml", "metadata": "static/package.json", "readme": "static/README.md"},
		InstalledSize: 4096,
		Report: manifest.StaticReport{
			Clauses:          []manifest.ClauseResult{{Clause: "5.1.3", Title: "patch parses", Status: "conforming", Severity: "critical"}},
			ConformingStatic: &yes,
		},
	}
	m.Dynamic = true
	stages := []manifest.Stage{
		{Stage: "T1", Status: "passed", Argv: []string{"dsh", "plugin", "--profile", "web", "add", "dsh-plugin-hello@1.0.0"}, Network: "on",
			DurationMS: 9000, ExitCode: &exit0, Evidence: map[string]string{"stdout": "r1/t1/stdout", "stderr": "r1/t1/stderr", "profile_package_json": "r1/t1/profile-package.json"}, Verdict: "pass"},
		{Stage: "T2", Status: "passed", Network: "none", ExitCode: &exit0, Evidence: map[string]string{"stdout": "r1/t2/stdout", "stderr": "r1/t2/stderr"}},
		{Stage: "T3", Status: "passed", Network: "none", ExitCode: &exit0, Evidence: map[string]string{"stdout": "r1/t3/stdout", "stderr": "r1/t3/stderr"}},
		{Stage: "T4", Status: "passed", Network: "none", ExitCode: &exit137, TimedOut: false,
			Liveness: &manifest.Liveness{WindowMS: 12000, AliveMS: 12000, AliveAtEnd: true},
			Evidence: map[string]string{"stdout": "r1/t4/stdout", "stderr": "r1/t4/stderr"}},
	}
	m.Repetitions = []manifest.Repetition{{Index: 1, Stages: stages, Verdict: "pass"}}
	m.Claimed = manifest.Claimed{Verdict: "pass", ConformingStatic: &yes, UsableForCertification: false, Deviated: true}
	return m
}

// Empty returns a manifest with MediaType and SchemaVersion set and
// every list and map empty rather than nil, as Decode returns one.
func Empty() *manifest.Manifest {
	raw, err := manifest.Encode(&manifest.Manifest{MediaType: manifest.MediaType, SchemaVersion: manifest.SchemaVersion})
	if err != nil {
		panic(err)
	}
	m, err := manifest.Decode(raw)
	if err != nil {
		panic(err)
	}
	return m
}
