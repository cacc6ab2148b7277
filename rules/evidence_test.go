package rules

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The loader below turns a case directory of testdata/dsh-evidence into
// observations exactly as expected.json's "loader" section says.

const evidenceDir = "../testdata/dsh-evidence"

type expectedFile struct {
	WindowMS int64          `json:"window_ms"`
	Cases    []expectedCase `json:"cases"`
}

type expectedCase struct {
	Case       string `json:"case"`
	Plugin     string `json:"plugin"`
	Verdict    string `json:"verdict"`
	FirstError string `json:"first_error"`
	Stages     []struct {
		Stage   string `json:"stage"`
		Status  string `json:"status"`
		Verdict string `json:"verdict"`
	} `json:"stages"`
}

type loadedCase struct {
	sub      Subject
	patch    []byte
	entries  []Entry
	patchErr error
	obs      []*Observation
}

// capturedWindow is how long the capture let T4 run before SIGKILL.
const capturedWindow = 14 * time.Second

func readOptional(t *testing.T, path string) ([]byte, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return b, true
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, ok := readOptional(t, path)
	if !ok {
		t.Fatalf("missing evidence file %s", path)
	}
	return b
}

func loadCase(t *testing.T, name, plugin string) loadedCase {
	t.Helper()
	var lc loadedCase
	var pkg struct{ Name, Version string }
	pj := filepath.Join(evidenceDir, "plugins", plugin, "package.json")
	if err := json.Unmarshal(mustRead(t, pj), &pkg); err != nil {
		t.Fatalf("%s: %v", pj, err)
	}
	lc.sub = Subject{Name: pkg.Name, Version: pkg.Version}
	lc.patch = mustRead(t, filepath.Join(evidenceDir, "plugins", plugin, "cordis.patch.yml"))
	lc.entries, lc.patchErr = InsertEntries(lc.patch, Limits{})
	dir := filepath.Join(evidenceDir, name)
	for i, s := range DynamicStages {
		base := filepath.Join(dir, fmt.Sprintf("t%d", i+1))
		exitB, ok := readOptional(t, base+".exit")
		if !ok {
			lc.obs = append(lc.obs, nil)
			continue
		}
		code, err := strconv.Atoi(strings.TrimSpace(string(exitB)))
		if err != nil {
			t.Fatalf("%s.exit: %v", base, err)
		}
		o := &Observation{Stage: s, ExitCode: code,
			Stdout: mustRead(t, base+".stdout"), Stderr: mustRead(t, base+".stderr")}
		o.Merged = append(append([]byte{}, o.Stdout...), o.Stderr...)
		if s == T1 {
			o.ProfilePackageJSON = mustRead(t, base+".profile-package.json")
		}
		if s == T4 {
			o.Liveness = &Liveness{Window: capturedWindow}
			if code == 137 {
				o.Liveness.AliveAtEnd, o.Liveness.AliveFor = true, capturedWindow
			}
		}
		lc.obs = append(lc.obs, o)
	}
	return lc
}

func loadExpected(t *testing.T) expectedFile {
	t.Helper()
	var ef expectedFile
	if err := json.Unmarshal(mustRead(t, filepath.Join(evidenceDir, "expected.json")), &ef); err != nil {
		t.Fatalf("expected.json: %v", err)
	}
	if len(ef.Cases) == 0 {
		t.Fatal("expected.json lists no case")
	}
	return ef
}

func TestEvidenceCases(t *testing.T) {
	ef := loadExpected(t)
	window := time.Duration(ef.WindowMS) * time.Millisecond
	seen := map[string]bool{}
	for _, ec := range ef.Cases {
		seen[ec.Case] = true
		t.Run(ec.Case, func(t *testing.T) {
			lc := loadCase(t, ec.Case, ec.Plugin)
			res, err := DeriveSequence(lc.sub, lc.entries, lc.obs, window, Limits{})
			if err != nil {
				t.Fatalf("DeriveSequence: %v", err)
			}
			if string(res.Verdict) != ec.Verdict {
				t.Errorf("verdict %q, want %q; stages %+v", res.Verdict, ec.Verdict, res.Stages)
			}
			if len(res.Stages) != len(ec.Stages) {
				t.Fatalf("%d stages, want %d", len(res.Stages), len(ec.Stages))
			}
			firstError := ""
			for i, want := range ec.Stages {
				got := res.Stages[i]
				if string(got.Stage) != want.Stage || string(got.Status) != want.Status || string(got.Verdict) != want.Verdict {
					t.Errorf("stage %d = %s %s %s, want %s %s %s (reasons %q)", i, got.Stage, got.Status, got.Verdict,
						want.Stage, want.Status, want.Verdict, got.Reasons)
				}
				if got.Status == StageFailed {
					firstError = got.FirstError
				}
				if got.Status != StageFailed && got.FirstError != "" {
					t.Errorf("stage %s is %s but has first_error %q", got.Stage, got.Status, got.FirstError)
				}
			}
			if firstError != ec.FirstError {
				t.Errorf("first_error\n got %q\nwant %q", firstError, ec.FirstError)
			}
		})
	}
	// Every case directory of the evidence must be covered by expected.json.
	dirs, err := os.ReadDir(evidenceDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if d.IsDir() && d.Name() != "plugins" && !seen[d.Name()] {
			t.Errorf("case directory %s has no entry in expected.json", d.Name())
		}
	}
}

// The evidence has files for stages after the failing one; they must not
// change the outcome. Each later stage, derived alone, would fail or pass
// on its own; DeriveSequence must still call it not_executed.
func TestEvidenceLaterStagesIgnored(t *testing.T) {
	lc := loadCase(t, "badyaml", "badyaml")
	if lc.obs[3] == nil {
		t.Fatal("badyaml must carry T4 evidence for this test")
	}
	if r := DeriveT4(*lc.obs[3], DefaultWindow); r.Status != StageFailed {
		t.Fatalf("badyaml T4 alone: %s, want failed", r.Status)
	}
	res, err := DeriveSequence(lc.sub, lc.entries, lc.obs, DefaultWindow, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stages[3].Status != StageNotExecuted || res.Stages[3].Verdict != "" || res.Stages[3].FirstError != "" {
		t.Errorf("T4 = %+v, want not_executed with no verdict", res.Stages[3])
	}
	lc = loadCase(t, "noinsert", "noinsert")
	if r := DeriveT4(*lc.obs[3], DefaultWindow); r.Status != StagePassed {
		t.Fatalf("noinsert T4 alone: %s %q, want passed", r.Status, r.Reasons)
	}
	res, err = DeriveSequence(lc.sub, lc.entries, lc.obs, DefaultWindow, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != InstallsButNotRegistered || res.Stages[3].Status != StageNotExecuted {
		t.Errorf("noinsert = %s, T4 %s; want installs_but_not_registered, T4 not_executed", res.Verdict, res.Stages[3].Status)
	}
}

func TestEvidencePatches(t *testing.T) {
	for plugin, want := range map[string][]Entry{
		"hello":    {{ID: "hello-dsh", Name: "hello-dsh-plugin"}},
		"throws":   {{ID: "throws-dsh", Name: "throws-dsh-plugin"}},
		"hang":     {{ID: "hang-dsh", Name: "hang-dsh-plugin"}},
		"exits":    {{ID: "exits-dsh", Name: "exits-dsh-plugin"}},
		"noinsert": nil,
	} {
		lc := loadCase(t, plugin, plugin)
		if lc.patchErr != nil {
			t.Errorf("%s: %v", plugin, lc.patchErr)
		}
		if fmt.Sprint(lc.entries) != fmt.Sprint(want) {
			t.Errorf("%s entries %v, want %v", plugin, lc.entries, want)
		}
	}
	lc := loadCase(t, "badyaml", "badyaml")
	if !errors.Is(lc.patchErr, ErrPatch) {
		t.Errorf("badyaml patch error %v, want ErrPatch", lc.patchErr)
	}
}

// The real dumps parse as YAML nodes despite `# ==` comments and `!!js`
// tags, and the plugin's own entry is the last root item.
func TestEvidenceDumps(t *testing.T) {
	for _, c := range []string{"hello", "throws", "hang", "exits", "noinsert"} {
		d, err := ParseDump(mustRead(t, filepath.Join(evidenceDir, c, "t3.stdout")))
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if len(d) < 100 {
			t.Errorf("%s: %d root entries, want the full tree", c, len(d))
		}
		var bashSandbox *DumpEntry
		for i := range d {
			if d[i].ID == "bash-sandbox" {
				bashSandbox = &d[i]
			}
		}
		if bashSandbox == nil || bashSandbox.DisabledExpr == "" || bashSandbox.Disabled {
			t.Errorf("%s: bash-sandbox %+v, want a !!js disabled expression", c, bashSandbox)
		}
	}
}
