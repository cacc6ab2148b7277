package rules

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func addEvidenceSeeds(f *testing.F, glob string) {
	for _, b := range evidenceSeeds(f, glob) {
		f.Add(b)
	}
}

// evidenceSeeds are the contents of the real dsh captures matching glob.
func evidenceSeeds(tb testing.TB, glob string) [][]byte {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(evidenceDir, glob))
	if len(files) == 0 {
		tb.Fatalf("no seed files match %s", glob)
	}
	var out [][]byte
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// fuzzDumpLimit is the T3 dump size limit FuzzDeriveT3 passes: small, so
// that every execution is cheap and both sides of the limit are reached.
const fuzzDumpLimit = 4 << 10

// FuzzDeriveT3 feeds arbitrary dumps (seeded with the real ones, whole and
// cut to whole items within fuzzDumpLimit) through T3 and the dump parser:
// never a panic, a dump over the limit is config_failed, an unparseable
// one too, and a pass always names a root entry the parser found.
func FuzzDeriveT3(f *testing.F) {
	addEvidenceSeeds(f, "*/t3.stdout")
	files, _ := filepath.Glob(filepath.Join(evidenceDir, "*/t3.stdout"))
	for _, p := range files {
		b, _ := os.ReadFile(p)
		if len(b) > fuzzDumpLimit {
			b = b[:bytes.LastIndex(b[:fuzzDumpLimit], []byte("\n- "))+1]
		}
		f.Add(append(b, "- id: hello-dsh\n  name: hello-dsh-plugin\n"...))
	}
	f.Add([]byte("- &a {id: hello-dsh, name: hello-dsh-plugin}\n- *a\n- !!js x\n- [*a]\n"))
	lim := Limits{MaxDumpSize: fuzzDumpLimit}
	f.Fuzz(func(t *testing.T, dump []byte) {
		r := DeriveT3(helloEntries, Observation{Stage: T3, Stdout: dump}, lim)
		if r.Status == StageFailed && r.FirstError == "" {
			t.Fatal("failure without first_error")
		}
		if len(dump) > fuzzDumpLimit {
			if r.Verdict != ConfigFailed {
				t.Fatalf("dump over the limit gave %s", r.Verdict)
			}
			return
		}
		if r.Verdict == ConfigFailed {
			return // unparseable (or exit-code) failure: nothing more to check
		}
		// Parsed by T3, so it must parse here too.
		d, err := ParseDump(dump)
		if err != nil {
			t.Fatalf("T3 gave %s for a dump the parser refuses: %v", r.Verdict, err)
		}
		if r.Status == StagePassed {
			found := false
			for _, e := range d {
				found = found || (e.ID == "hello-dsh" && e.Name == "hello-dsh-plugin" && !e.Disabled)
			}
			if !found {
				t.Fatal("pass without the entry in the parsed dump")
			}
		}
	})
}

// fuzzOutputLimit bounds the output FuzzFirstError passes to the rules:
// they work line by line, so 4 KiB reaches every case and keeps each
// execution cheap.
const fuzzOutputLimit = 4 << 10

func FuzzFirstError(f *testing.F) {
	addEvidenceSeeds(f, "*/t*.std*")
	f.Add([]byte("\x1b[31mError: x\x1b[0m\r\n{\"a\":[1]}\n│ box\n"))
	f.Fuzz(func(t *testing.T, out []byte) { fuzzFirstErrorOnce(t, out) })
}

// fuzzFirstErrorOnce is FuzzFirstError's body (BenchmarkFuzzFirstErrorBody
// runs it without the engine).
func fuzzFirstErrorOnce(t testing.TB, out []byte) {
	if len(out) > fuzzOutputLimit {
		out = out[:fuzzOutputLimit]
	}
	fe := FirstError(out)
	if !utf8.ValidString(fe) {
		t.Fatalf("invalid UTF-8 %q", fe)
	}
	if len(fe) > MaxFirstErrorBytes+len("…") {
		t.Fatalf("%d bytes", len(fe))
	}
	if strings.ContainsAny(fe, "\n\r\x1b") || fe != strings.TrimSpace(fe) {
		t.Fatalf("not one trimmed clean line: %q", fe)
	}
	_ = isFatalLine(string(out))
	o := Observation{Stage: T4, Stdout: out, Liveness: &Liveness{AliveAtEnd: true, AliveFor: 14 * time.Second}}
	_ = DeriveT4(o, 0)
	_ = DeriveT2(helloSub, Observation{Stage: T2, Stdout: out})
	_ = DeriveT1(helloSub, Observation{Stage: T1, Stdout: out, ProfilePackageJSON: out})
}

func FuzzInsertEntries(f *testing.F) {
	addEvidenceSeeds(f, "plugins/*/cordis.patch.yml")
	f.Fuzz(func(t *testing.T, patch []byte) {
		_, _ = InsertEntries(patch, Limits{})
	})
}

// A fingerprint that parses renders back to exactly its input.
func FuzzParseFingerprint(f *testing.F) {
	f.Add(goodFP)
	f.Add(goodFP + ";model=deepseek-v4.1-flash-0731;temp=0;maxtok=4096;tools=7")
	f.Fuzz(func(t *testing.T, s string) {
		fp, err := ParseFingerprint(s)
		if err != nil {
			return
		}
		if fp.String() != s {
			t.Fatalf("round trip %q -> %q", s, fp.String())
		}
	})
}

// FuzzReadProfileDependency checks the in-place read of a profile
// package.json against the token reader it replaced (agreeProfile).
func FuzzReadProfileDependency(f *testing.F) {
	for _, d := range recordedProfiles(f) {
		f.Add(d, "hello-dsh-plugin")
	}
	for _, d := range profileDocs {
		if len(d) < 1000 {
			f.Add([]byte(d), "hello")
		}
	}
	f.Fuzz(func(t *testing.T, doc []byte, name string) {
		agreeProfile(t, doc, name)
	})
}
