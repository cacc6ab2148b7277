package verify

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dshaudit/dshaudit/assemble"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// stageModel is one executed stage's trusted merged output read once
// with the catalogue (rules.ReadStageModel), with where it stands.
type stageModel struct {
	rep   int // from 1
	st    *manifest.Stage
	field string // repetitions[n].Tn
	model rules.StageModel
	out   []byte
}

// stageModels reads every executed stage's trusted merged stream once
// (SPEC.md "The run model"): a stage whose streams are not tied, or
// whose merged file is not trusted, is read by no relation, as by no
// rule. A bundle verified alone reads its stages on every CPU, the
// largest outputs first (the reading is a pure function of the bytes,
// so the models do not depend on it).
func (vf *verification) stageModels() []stageModel {
	var ms []stageModel
	for i := range vf.m.Repetitions {
		rp := &vf.m.Repetitions[i]
		for j := range rp.Stages {
			st := &rp.Stages[j]
			if st.ExitCode == nil {
				continue
			}
			p := st.Evidence[manifest.RoleMerged]
			out, ok := vf.trusted[p]
			if !ok || vf.untrusted[p] {
				continue
			}
			ms = append(ms, stageModel{rep: i + 1, st: st, field: repField(i+1, st.Stage), out: out})
		}
	}
	// No two stages read one file (checkReferences).
	order := make([]int, len(ms))
	for k := range order {
		order[k] = k
	}
	workers := 1
	if vf.early != nil {
		workers = min(runtime.GOMAXPROCS(0), len(ms))
		slices.SortStableFunc(order, func(a, b int) int { return len(ms[b].out) - len(ms[a].out) })
	}
	var next atomic.Int64
	read := func() {
		for k := next.Add(1) - 1; k < int64(len(order)); k = next.Add(1) - 1 {
			m := &ms[order[k]]
			var ok bool
			if m.model, ok = vf.early.take(m.st.Evidence[manifest.RoleMerged], m.out); !ok {
				m.model = rules.ReadStageModel(m.out)
			}
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(read)
	}
	read()
	wg.Wait()
	return ms
}

// earlyModels are run model readings started while the archive was
// still being read (bundle.OnFile), for a bundle verified alone: the
// reading of a large stage output then takes the CPU the decoder leaves
// idle instead of coming after the read. Each reads the very bytes
// stageModels would read (the same slice, taken only if it is), and the
// reading is a pure function of them, so the model is the same.
type earlyModels struct {
	mu sync.Mutex
	by map[string]*earlyModel
}

type earlyModel struct {
	data  []byte
	done  chan struct{}
	model rules.StageModel
}

// earlyMin is the smallest output read early: a smaller one is read when
// needed, a goroutine not being worth it (a variable for the tests).
var earlyMin = 64 << 10

// start begins reading data, if path is where a stage's merged stream is
// stored and data is large enough.
func (e *earlyModels) start(path string, data []byte) {
	if len(data) < earlyMin || !strings.HasPrefix(path, "repetitions/") || !strings.HasSuffix(path, "/"+manifest.RoleMerged) {
		return
	}
	m := &earlyModel{data: data, done: make(chan struct{})}
	e.mu.Lock()
	if e.by == nil {
		e.by = map[string]*earlyModel{}
	}
	e.by[path] = m
	e.mu.Unlock()
	go func() {
		m.model = rules.ReadStageModel(data)
		close(m.done)
	}()
}

// take waits for and returns the reading started for out at path, if one
// was started for these very bytes.
func (e *earlyModels) take(path string, out []byte) (rules.StageModel, bool) {
	if e == nil || len(out) == 0 {
		return rules.StageModel{}, false
	}
	e.mu.Lock()
	m := e.by[path]
	e.mu.Unlock()
	if m == nil || len(m.data) != len(out) || &m.data[0] != &out[0] {
		return rules.StageModel{}, false
	}
	<-m.done
	return m.model, true
}

// recordedProfile is the profile the profile condition records: its
// name (the value's first word, "web") and its DSH_HOME ("" when the
// value names none).
func (vf *verification) recordedProfile() (name, home string) {
	for _, c := range vf.m.Conditions.Fixed {
		if c.Name != assemble.CondProfile {
			continue
		}
		name = strings.TrimSpace(strings.SplitN(c.Value, ";", 2)[0])
		if f := strings.Fields(name); len(f) > 0 {
			name = f[0]
		}
		if sm := profileHome.FindStringSubmatch(c.Value); sm != nil {
			home = sm[1]
		}
	}
	return name, home
}

// checkRunModel holds the stages to one another and to the recorded
// conditions (SPEC.md "The run model"): one profile across the
// stages, set up once per repetition, in a fresh store; T2 lists the
// plugin under that profile's project; T1's profile package.json is that
// profile's and lists the plugin as a bundle; every node and pnpm
// version pnpm's engine check names is the fingerprint's.
func (vf *verification) checkRunModel(models []stageModel) {
	name, home := vf.recordedProfile()
	condField := "conditions.fixed " + assemble.CondProfile
	dir := ""
	if home != "" && name != "" {
		dir = home + "/profiles/" + name
	}
	inits := map[int]int{}     // repetition -> "initialized profile" lines
	t1Read := map[int]string{} // repetition -> its T1's field, when read
	for _, sm := range models {
		for _, p := range sm.model.Profiles {
			inits[sm.rep]++
			if name != "" && p.Name != name {
				vf.rep.addf(ClassConditionMismatch, condField, "DSHIO/T 21 5.1.7",
					"records profile %s, but %s's output says dsh set up profile %q (%q)", name, sm.field, p.Name, p.Line)
			}
		}
		if sm.st.Stage == string(rules.T1) {
			t1Read[sm.rep] = sm.field
			if p := sm.model.Reuse; p != nil {
				vf.rep.addf(ClassConditionMismatch, condField, "DSHIO/T 21 5.1.7",
					"records a fresh profile per repetition, but %s's output says pnpm reused %s package(s) from a store that held them (%q)", sm.field, p.Reused, p.Line)
			}
		}
		if vf.fingerprint != nil {
			for _, v := range sm.model.Versions {
				want := map[string]string{"node": vf.fingerprint.Node, "pnpm": vf.fingerprint.PNPM}[v.Program]
				engine := v.Form == rules.FormUnsupportedEngine || v.Form == rules.FormUnsupportedEngineError
				if engine && v.Version != want { // pnpm's summary and update box are checkFingerprint's
					vf.rep.addf(ClassFingerprintInvalid, "fingerprint", "DSHIO/T 21 5.2",
						"%s=%s, but %s's output shows %s %s running (%q)", v.Program, want, sm.field, v.Program, v.Version, v.Line)
				}
			}
		}
		if sm.st.Stage == string(rules.T2) && *sm.st.ExitCode == 0 && dir != "" {
			vf.checkListedProject(sm, name, dir)
		}
		if sm.st.Stage == string(rules.T1) {
			vf.checkProfileManifest(sm, name)
		}
		if dir != "" {
			for _, p := range sm.model.StorePaths {
				if p.Package == vf.m.Subject.Name && p.Root != "" && p.Root != dir {
					vf.rep.addf(ClassConditionMismatch, condField, "DSHIO/T 21 5.1.7",
						"records the profile directory %s, but %s's output shows %s installed under %q (%q)", dir, sm.field, p.Package, p.Root, p.Line)
					break
				}
			}
		}
	}
	for rep := 1; rep <= len(vf.m.Repetitions); rep++ {
		field, ok := t1Read[rep]
		if !ok {
			continue
		}
		switch n := inits[rep]; {
		case n == 0:
			vf.rep.addf(ClassConditionMismatch, condField, "DSHIO/T 21 5.1.7",
				"records a fresh profile per repetition, but %s's output has no \"dsh: initialized profile\" line: dsh found the profile already set up", field)
		case n > 1:
			vf.rep.addf(ClassConditionMismatch, condField, "DSHIO/T 21 5.1.7",
				"records one fresh profile per repetition, but repetition %d's output says dsh set up a profile %d times", rep, n)
		}
	}
}

// checkListedProject: a T2 that lists the subject at its version lists it
// under the recorded profile's project, pnpm's label
// "dsh-profile-NAME HOME/profiles/NAME (PRIVATE)"; the plugin listed only
// under another project, another name or another directory does not
// count. Another project listed beside the right one is honest. The
// profile's project is then held to the package.json the repetition's
// T1 recorded (checkListedProfile).
func (vf *verification) checkListedProject(sm stageModel, name, dir string) {
	sub := vf.m.Subject
	deps := rules.ListedDependencies(sm.out)
	var under []string
	for _, d := range deps {
		if d.Name != sub.Name || d.Version != sub.Version {
			continue
		}
		p, ok := rules.ParseProject(d.Project)
		if ok && p.Name == rules.ProfilePackageName(name) && p.Dir == dir {
			vf.checkListedProfile(sm, deps, name, dir)
			return
		}
		under = append(under, d.Project)
	}
	if len(under) == 0 {
		return // the T2 rule finds no listing: its verdict says so
	}
	vf.rep.addf(ClassConditionMismatch, repField(sm.rep, sm.st.Stage, "evidence", manifest.RoleMerged), "DSHIO/T 21 5.1.7",
		"lists %s %s under the project %q, but the profile condition's profile is %s %s: pnpm's label for it is %q", sub.Name, sub.Version, under[0],
		rules.ProfilePackageName(name), dir, rules.ProfilePackageName(name)+" "+dir+" (PRIVATE)")
}

// checkListedProfile holds what T2 lists of the recorded profile's
// project to the profile package.json its repetition's T1 recorded,
// when that T1 exited 0: nothing writes the profile between the two, and
// pnpm list reads the project's package.json for its label (its version,
// none when it has none) and lists its dependencies from the lockfile
// pnpm wrote beside that package.json.
func (vf *verification) checkListedProfile(sm stageModel, deps []rules.Dependency, name, dir string) {
	var t1 *manifest.Stage
	for i := range vf.m.Repetitions[sm.rep-1].Stages {
		if st := &vf.m.Repetitions[sm.rep-1].Stages[i]; st.Stage == string(rules.T1) {
			t1 = st
			break
		}
	}
	if t1 == nil || t1.ExitCode == nil || *t1.ExitCode != 0 {
		return
	}
	pm, ok := vf.profileManifest(t1.Evidence[manifest.RoleProfilePackageJSON])
	if !ok {
		return
	}
	field := repField(sm.rep, sm.st.Stage, "evidence", manifest.RoleMerged)
	t1Field := repField(sm.rep, t1.Stage, "evidence", manifest.RoleProfilePackageJSON)
	var listed []string
	labelled := false
	if !pm.Private {
		vf.rep.addf(ClassConditionMismatch, field, "DSHIO/T 21 5.1.7",
			"labels the profile's project private (%q), but the profile package.json %s recorded is not private: pnpm list adds \" (PRIVATE)\" to a project's label only when its package.json's private is truthy, as dsh writes it", rules.ProfilePackageName(name)+" "+dir+" (PRIVATE)", t1Field)
	}
	for _, d := range deps {
		p, ok := rules.ParseProject(d.Project)
		if !ok || p.Name != rules.ProfilePackageName(name) || p.Dir != dir {
			continue
		}
		listed = append(listed, d.Name)
		if labelled {
			continue
		}
		switch {
		case !pm.HasVersion && p.Version != "":
			vf.rep.addf(ClassConditionMismatch, field, "DSHIO/T 21 5.1.7",
				"labels the profile's project %q, version %q, but the profile package.json %s recorded has no version: pnpm list labels a project with its package.json's version, and without one with its name alone", d.Project, p.Version, t1Field)
			labelled = true
		case pm.Version != "" && p.Version != pm.Version:
			vf.rep.addf(ClassConditionMismatch, field, "DSHIO/T 21 5.1.7",
				"labels the profile's project %q, version %q, but the profile package.json %s recorded has version %q: pnpm list labels a project with its package.json's version", d.Project, p.Version, t1Field, pm.Version)
			labelled = true
		}
	}
	extra, missing, ok := rules.ProfileListing(pm, listed)
	switch {
	case !ok:
	case extra != "":
		vf.rep.addf(ClassConditionMismatch, field, "DSHIO/T 21 5.1.7",
			"lists %q among the dependencies of the profile's project, but the dependencies of the profile package.json %s recorded do not have it: pnpm list lists a project's dependencies as pnpm installed them for that package.json", extra, t1Field)
	case missing != "":
		vf.rep.addf(ClassConditionMismatch, field, "DSHIO/T 21 5.1.7",
			"does not list %q among the dependencies of the profile's project, but the dependencies of the profile package.json %s recorded have it: pnpm list lists every dependency pnpm installed for that package.json", missing, t1Field)
	}
}

// checkProfileManifest: T1's recorded profile package.json is the
// recorded profile's (dsh names it dsh-profile-NAME), and after a T1
// that exited 0 with no line of pnpm giving up its dsh.profile.bundles
// lists the subject, which dsh adds when pnpm installed a package
// declaring dsh.bundle (a patch is recorded).
func (vf *verification) checkProfileManifest(sm stageModel, name string) {
	p := sm.st.Evidence[manifest.RoleProfilePackageJSON]
	pm, ok := vf.profileManifest(p)
	if !ok {
		return // not trusted, or the T1 rule reads it and says why not
	}
	field := repField(sm.rep, sm.st.Stage, "evidence", manifest.RoleProfilePackageJSON)
	if want := rules.ProfilePackageName(name); name != "" && pm.Name != want {
		vf.rep.addf(ClassConditionMismatch, field, "DSHIO/T 21 5.1.7",
			"names the profile %q, but the profile condition records profile %s, whose package.json dsh names %q", pm.Name, name, want)
	}
	if b := rules.UninstalledBundle(pm); b != "" {
		vf.rep.addf(ClassConditionMismatch, field, "DSHIO/T 21 5.1.7",
			"dsh.profile.bundles lists %q, which is neither a bundle dsh ships (%s) nor a key of its dependencies: dsh adds only an installed dependency there, and loads any other bundle only from its own installation", b, strings.Join(rules.InBoxBundles, ", "))
	}
	if other, ok := rules.ProfileOtherDependency(pm, vf.m.Subject.Name); ok && (other != "" || pm.OtherDependencies) {
		what := fmt.Sprintf("has the dependency %q", other)
		if other == "" {
			what = "has optionalDependencies or devDependencies"
		}
		vf.rep.addf(ClassConditionMismatch, field, "DSHIO/T 21 5.1.7",
			"%s beside %s, but the profile condition records a fresh profile, whose package.json dsh writes with no dependency, and T1's one pnpm add (%q) adds only %s: the profile held packages before T1 or was set up by other hands", what, vf.m.Subject.Name, strings.Join(sm.st.Argv, " "), vf.m.Subject.Name)
	}
	if *sm.st.ExitCode == 0 && len(sm.model.PNPMErrors) == 0 && vf.m.Static.Evidence[manifest.RolePatch] != "" && !pm.Listed {
		vf.rep.addf(ClassSubjectMismatch, field, "DSHIO/T 21 5.1.7",
			"dsh.profile.bundles does not list %s, but T1 exited 0 installing it and it declares dsh.bundle (a patch is recorded): dsh adds such a package to the profile's bundles", vf.m.Subject.Name)
	}
}

// profileRead is a profile package.json read once (profileManifest).
type profileRead struct {
	pm rules.ProfileManifest
	ok bool
}

// profileManifest reads the trusted profile package.json at path p as
// rules.ReadProfileManifest does, once per path; false when it is not
// trusted or does not read.
func (vf *verification) profileManifest(p string) (rules.ProfileManifest, bool) {
	if r, done := vf.profiles[p]; done {
		return r.pm, r.ok
	}
	var r profileRead
	if doc, ok := vf.trusted[p]; ok && p != "" {
		pm, err := rules.ReadProfileManifest(doc, vf.m.Subject.Name)
		r = profileRead{pm, err == nil}
	}
	if vf.profiles == nil {
		vf.profiles = map[string]profileRead{}
	}
	vf.profiles[p] = r
	return r.pm, r.ok
}
