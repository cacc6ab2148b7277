package static

import (
	"gopkg.in/yaml.v3"

	"github.com/dshaudit/dshaudit/rules/jsyaml"
	"github.com/dshaudit/dshaudit/rules/yamlmerge"
)

// DefaultBaseline is the DSHIO baseline DSH version (DSHIO/T 10 3.1), used
// when Input.Baseline is empty.
const DefaultBaseline = "0.2.2-rc.1"

// WarningFixFirst is the T 20 5.6 warning printed when a critical clause is
// non-conforming.
const WarningFixFirst = "a critical static clause is non-conforming: the sandbox test (T1–T4) will most likely fail, so fixing it first is advisable (DSHIO/T 20 5.6); T0 does not stop the later stages"

// clauseDef is one row of the T0 checklist.
type clauseDef struct {
	id       string
	title    string
	severity Severity
	run      func(*state) ClauseResult
}

// checklist is the T0 checklist in execution order. DSHIO/T 10 Annex A's
// table was lost in translation; the order is clause order 5.1.1 → 5.5.3.
// 5.4.x (dynamic layer, T1–T4) is not part of T0. SPEC.md "T0 clause order".
var checklist = []clauseDef{
	{"5.1.1", "Plugin declaration", Critical, check511},
	{"5.1.2", "Patch file exists", Critical, check512},
	{"5.1.3", "Patch file is valid YAML", Critical, check513},
	{"5.1.4", "Patch structure", Critical, check514},
	{"5.1.5", "Entry completeness", Critical, check515},
	{"5.1.6", "Optional entry fields", Critical, check516},
	{"5.2.1", "Version range declaration", Recommended, check521},
	{"5.2.2", "Version range includes the baseline version", Critical, check522},
	{"5.2.3", "Code entry point", Critical, check523},
	{"5.2.4", "Module type consistency", Recommended, check524},
	{"5.3.1", "files array completeness", Critical, check531},
	{"5.3.2", "No local-path dependencies", Critical, check532},
	{"5.3.3", "Package size", Recommended, check533},
	{"5.5.1", "Tool description states when to use it", Critical, check551},
	{"5.5.2", "Declared permissions match behaviour", Critical, check552},
	{"5.5.3", "No red-line combination", Critical, check553},
}

// clauseIDs returns the T0 clause numbers in the order Check reports them.
func clauseIDs() []string {
	ids := make([]string, len(checklist))
	for i, c := range checklist {
		ids[i] = c.id
	}
	return ids
}

// state carries what earlier clauses established to the ones that depend
// on it. Each field is set by exactly one clause, but for the two that
// 5.2.1 and 5.2.2 share.
type state struct {
	in  Input
	pkg map[string]any

	// 5.2.1 and 5.2.2 share these, set by whichever asks first: the
	// version range declaration (state.declared) and the quoted ranges
	// (state.quoteRange).
	decl         *declared
	quotedRanges map[string]string

	// 5.1.1
	patchPath string // cleaned; "" when 5.1.1 is non-conforming
	// 5.1.2
	patchOK bool
	// 5.1.3
	doc *yaml.Node // the document's root content node; nil when empty
	// parsed is true when 5.1.3 is conforming.
	parsed bool
	// yr reads the parsed document's mappings through merge keys.
	yr *yamlmerge.Reader
	// jsEntries are the entries of every insert list of the patch as
	// dsh's loader builds them (js-yaml 4.3.1 with dsh's schema,
	// rules/jsyaml), in the order insertEntries lists their nodes (merge
	// keys, the only way the two walks could part, are refused by 5.1.3);
	// set when 5.1.3 is conforming.
	jsEntries []*jsyaml.Value
	// 5.1.4
	insertItems []insertItem // mapping items of the top list that have insert
	// 5.5.3 / 5.5.2
	perms permissionDecl
	// The README exception check for perms' red line (5.5.3), and whether
	// the README has a Permissions section (5.5.2 material), done once.
	exceptionOK      bool
	exceptionMissing []string
	hasPermSection   bool
}

// Check runs the T0 static clauses (DSHIO/T 10 chapter 5, DSHIO/T 20 5) on
// in and returns every clause result in checklist order. It never stops at
// the first non-conformance: a clause whose prerequisite failed is "not
// evaluated" with the reason, every independent clause still runs.
// SPEC.md "T0 static check".
func Check(in Input) Report {
	pkg, err := parsePackageJSON(in.PackageJSON, in.bound(MaxPackageJSONBytes))
	if err != nil {
		return Report{Clauses: []ClauseResult{}, Unresolvable: true, Reason: err.Error()}
	}
	return checkPackage(in, pkg)
}

// checkPackage is Check after package.json is decoded: pkg is
// in.PackageJSON as parsePackageJSON returns it.
func checkPackage(in Input, pkg map[string]any) Report {
	if in.Baseline == "" {
		in.Baseline = DefaultBaseline
	}
	s := &state{in: in, pkg: pkg}
	s.perms = readPermissions(pkg)
	var sections [][]string
	conflict := ""
	if in.README != nil {
		md := string(bounded(in.README))
		if conflict = markdownConflict(md); conflict == "" {
			sections = permissionSections(md)
		}
	}
	s.exceptionOK, s.exceptionMissing = readmeException(in.README, sections, s.perms.redLine())
	if conflict != "" {
		s.exceptionMissing = []string{conflict}
	}
	s.hasPermSection = len(sections) > 0

	rep := Report{Clauses: make([]ClauseResult, 0, len(checklist))}
	conforming := true
	for _, c := range checklist {
		r := c.run(s)
		r.Clause, r.Title, r.Severity = c.id, c.title, c.severity
		if r.Severity == Critical && r.Status == NonConforming {
			conforming = false
		}
		rep.Clauses = append(rep.Clauses, r)
	}
	rep.ConformingStatic = &conforming
	if !conforming {
		rep.Warnings = append(rep.Warnings, WarningFixFirst)
	}
	return rep
}

// notEvaluated is the result of a clause whose prerequisite failed.
func notEvaluated(reason string) ClauseResult {
	return ClauseResult{Status: NotEvaluated, Message: reason}
}
