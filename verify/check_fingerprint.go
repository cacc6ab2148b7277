package verify

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
	"github.com/dshaudit/dshaudit/manifest"
	"github.com/dshaudit/dshaudit/rules"
)

// Versions the stage evidence prints (SPEC.md "Fingerprint cross-checks").
// Each pattern has a literal needle: only the lines holding it are handed
// to the regular expression, so a 50 MiB log costs one bytes.Index scan,
// not a regexp scan (none of the patterns can match across a newline).
var (
	// pnpm's summary line and its update box name the running pnpm.
	pnpmPrinted = []versionPattern{
		{"using pnpm v", lazyregexp.New(`\busing pnpm v(\d+\.\d+\.\d+[0-9A-Za-z.+-]*)`)},
		{"Update available! ", lazyregexp.New(`Update available! (\d+\.\d+\.\d+[0-9A-Za-z.+-]*) →`)},
	}
	// Node's report of an uncaught exception ends with a line naming the
	// running Node, alone on its line.
	nodePrinted = []versionPattern{
		{"Node.js v", lazyregexp.New(`^Node\.js v(\d+\.\d+\.\d+[0-9A-Za-z.+-]*)\r?$`)},
	}
	// dsh's stack traces show its install path in the pnpm store.
	dshPrinted = []versionPattern{
		{"/node_modules/.pnpm/@deepseek-ai+dsh@", lazyregexp.New(`/node_modules/\.pnpm/@deepseek-ai\+dsh@(\d+\.\d+\.\d+[0-9A-Za-z.-]*?)(?:_|/)`)},
	}
)

// versionPattern is a regular expression with one capture (the version)
// and a literal every match contains.
type versionPattern struct {
	needle string
	re     *lazyregexp.Regexp
}

// checkFingerprint checks the fingerprint (SPEC.md "What the verifier
// cross-checks", class 7): exactly the DSHIO/T 21 5.2 fields in order, no
// T5 fields, and versions that the image's version outputs and every
// version the stage evidence prints (pnpm, node, dsh) agree with. It
// returns the parsed fingerprint, or nil.
func (vf *verification) checkFingerprint() *rules.Fingerprint {
	if !vf.m.Dynamic && vf.m.Fingerprint == "" {
		return nil
	}
	bad := func(field, clause, format string, args ...any) {
		vf.rep.addf(ClassFingerprintInvalid, field, clause, format, args...)
	}
	fp, err := rules.ParseFingerprint(vf.m.Fingerprint)
	if err != nil {
		bad("fingerprint", "DSHIO/T 21 5.2", "%v", err)
		return nil
	}
	if fp.HasModel() {
		bad("fingerprint", "DSHIO/T 21 6.3", "carries the model fields of a T5 run; T5 is not in force and T0–T4 are model-independent (DSHIO/T 21 4.1)")
	}
	observed := map[string]string{
		manifest.RoleDSHVersion:  fp.DSH,
		manifest.RoleNodeVersion: fp.Node,
		manifest.RolePNPMVersion: fp.PNPM,
	}
	for _, role := range slices.Sorted(maps.Keys(observed)) {
		p := vf.m.Environment.Evidence[role]
		b, ok := vf.trusted[p]
		if p == "" || !ok {
			bad("environment.evidence."+role, "DSHIO/T 21 5.2", "no observed %s output backs the fingerprint", role)
			continue
		}
		if got := normaliseVersion(b); string(got) != observed[role] {
			bad("fingerprint", "DSHIO/T 21 5.2", "%s is %q in the fingerprint but the image printed %q (%s)", role, observed[role], got, p)
		}
	}
	for i, rp := range vf.m.Repetitions {
		for _, st := range rp.Stages {
			for _, role := range []string{manifest.RoleStdout, manifest.RoleStderr} {
				b, ok := vf.trusted[st.Evidence[role]]
				if !ok {
					continue
				}
				field := func() string { return repField(i+1, st.Stage, "evidence", role) } // for a finding only
				found := fingerprintPrinted().read(b)
				for _, v := range found[0] {
					if v != fp.PNPM {
						bad("fingerprint", "DSHIO/T 21 5.2", "pnpm=%s, but %s (%s) shows pnpm %s running", fp.PNPM, field(), st.Evidence[role], v)
					}
				}
				for _, v := range found[1] {
					if v != fp.Node {
						bad("fingerprint", "DSHIO/T 21 5.2", "node=%s, but %s (%s) shows node %s running", fp.Node, field(), st.Evidence[role], v)
					}
				}
				for _, v := range found[2] {
					if v != fp.DSH {
						bad("fingerprint", "DSHIO/T 21 5.2", "dsh=%s, but %s (%s) shows dsh %s installed", fp.DSH, field(), st.Evidence[role], v)
					}
				}
			}
		}
	}
	return &fp
}

// printed is every distinct version the patterns find in b, in the order
// of the patterns and, for each, of the lines (versionKinds.read).
func printed(b []byte, pats []versionPattern) []string {
	return newVersionKinds(pats).read(b)[0]
}

// versionKinds is kinds of versionPattern, flattened for one reading of
// a stream: every pattern, the index of its kind, and their needles as
// one literal set.
type versionKinds struct {
	pats []versionPattern
	kind []int
	n    int
	lits *rules.Literals
}

func newVersionKinds(kinds ...[]versionPattern) *versionKinds {
	vk := &versionKinds{n: len(kinds)}
	var needles []string
	for k, pats := range kinds {
		for _, p := range pats {
			vk.pats = append(vk.pats, p)
			vk.kind = append(vk.kind, k)
			needles = append(needles, p.needle)
		}
	}
	vk.lits = rules.NewLiterals(needles...)
	return vk
}

// fingerprintPrinted is the kinds checkFingerprint reads from every
// stream (pnpm, node, dsh), made once.
var fingerprintPrinted = sync.OnceValue(func() *versionKinds {
	return newVersionKinds(pnpmPrinted, nodePrinted, dshPrinted)
})

// read returns, for each kind, every distinct version its patterns find
// in b, in the order of the patterns and, for each, of the lines, in one
// reading of b. Each line is read as SPEC.md "Output lines" cleans it,
// with its surrounding white space trimmed (an escape sequence before
// Node's version line hid it from the cross-check, which read raw
// lines); only the lines holding a pattern's needle once cleaned are
// cleaned and matched. Which versions are found already is a set, not a
// search of out: an output can print as many distinct versions as it has
// lines (40,000 took 1.5 s, issue 48).
func (vk *versionKinds) read(b []byte) [][]string {
	found := make([][]string, len(vk.pats))
	seen := make([]map[string]bool, len(vk.pats))
	rules.EachCleanLineHolding(b, vk.lits, func(l string) bool {
		l = strings.TrimFunc(l, unicode.IsSpace)
		for i, p := range vk.pats {
			if !strings.Contains(l, p.needle) {
				continue
			}
			for _, m := range p.re.FindAllStringSubmatch(l, -1) {
				if v := m[1]; !seen[i][v] {
					if seen[i] == nil {
						seen[i] = map[string]bool{}
					}
					seen[i][v] = true
					found[i] = append(found[i], v)
				}
			}
		}
		return true
	})
	out := make([][]string, vk.n)
	inSet := make([]map[string]bool, vk.n)
	for i, vs := range found {
		k := vk.kind[i]
		for _, v := range vs {
			if !inSet[k][v] {
				if inSet[k] == nil {
					inSet[k] = map[string]bool{}
				}
				inSet[k][v] = true
				out[k] = append(out[k], v)
			}
		}
	}
	return out
}
