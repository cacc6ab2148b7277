package rules

import (
	"bytes"
	"slices"
	"strings"
	"sync"

	"github.com/dshaudit/dshaudit/internal/lazyregexp"
)

// The catalogue of what the pinned dsh and pnpm print that states a fact
// about the run, and the one-pass reader that finds those lines in a
// stage's output, cleaned as SPEC.md "Output lines" has it (issue 45).

// FormName names one output form of the catalogue.
type FormName string

// The forms of the catalogue (Catalogue gives each its producer, literal,
// pattern and source).
const (
	// FormProfileInitialized: dsh set up a profile that did not exist
	// ("dsh: initialized profile web at /dsh-home/profiles/web").
	FormProfileInitialized FormName = "dsh-profile-initialized"
	// FormPNPMFailedIn: pnpm exited non-zero in the profile directory.
	FormPNPMFailedIn FormName = "dsh-pnpm-failed"
	// FormProgress: pnpm's store counters ("Progress: resolved 1, reused
	// 0, downloaded 1, added 1, done").
	FormProgress FormName = "pnpm-progress"
	// FormProgressNoAdded: the same counters without "added".
	FormProgressNoAdded FormName = "pnpm-progress-without-added"
	// FormDone: pnpm's summary ("Done in 1.1s using pnpm v9.15.9").
	FormDone FormName = "pnpm-done"
	// FormUpdateAvailable: the update box's line naming the running
	// pnpm's version ("Update available! 9.15.9 → 12.21.0.").
	FormUpdateAvailable FormName = "pnpm-update-available"
	// FormUnsupportedEngine: pnpm's warning that a package's engines do
	// not accept the running node or pnpm, naming both versions.
	FormUnsupportedEngine FormName = "pnpm-unsupported-engine"
	// FormUnsupportedEngineError: the same check as an error (engine-strict
	// or a wanted pnpm version), naming the package.
	FormUnsupportedEngineError FormName = "pnpm-unsupported-engine-error"
	// FormPNPMError: pnpm gives up ("ERR_PNPM_ADDING_TO_ROOT  …").
	FormPNPMError FormName = "pnpm-error"
	// FormListProject: pnpm list's label of a private project, its name,
	// version when it has one, and directory
	// ("dsh-profile-web /dsh-home/profiles/web (PRIVATE)").
	FormListProject FormName = "pnpm-list-project"
	// FormLoaderEntryFailed: cordis's loader gave up on an entry
	// ("failed to apply loader entry hello-dsh (hello-dsh-plugin): boom"),
	// wherever the line holds it (after "Error: ", a logger's prefix or
	// another entry's message).
	FormLoaderEntryFailed FormName = "dsh-loader-entry-failed"
	// FormLoaderEntriesFailed: the loader's aggregate of several entries
	// that failed to apply.
	FormLoaderEntriesFailed FormName = "dsh-loader-entries-failed"
	// FormEntriesNotActivated: dsh's boot audit of entries that never
	// activated ("dsh: 1 entry did not activate").
	FormEntriesNotActivated FormName = "dsh-entries-not-activated"
	// FormPluginTreeFailed: dsh's boot gave up after the config tree
	// began to mount ("dsh: plugin tree failed to load: …").
	FormPluginTreeFailed FormName = "dsh-plugin-tree-failed"
	// FormHostPreparationFailed: dsh's boot gave up before any entry
	// mounted ("dsh: host preparation failed: …").
	FormHostPreparationFailed FormName = "dsh-host-preparation-failed"
	// FormFatalLoadFailure: a plugin's late rejection that dsh turns into
	// exit 1 ("dsh: fatal load failure: …").
	FormFatalLoadFailure FormName = "dsh-fatal-load-failure"
	// FormPortInUse: node could not listen on a port another process
	// holds ("listen EADDRINUSE: address already in use 127.0.0.1:3080").
	FormPortInUse FormName = "node-port-in-use"
	// FormStoreDir: a path into pnpm's virtual store, in a stack trace or
	// any other line ("…/node_modules/.pnpm/hello-dsh-plugin@file+..+..+
	// ..+pkgs+hello-dsh-plugin-1.0.0.tgz/node_modules/hello-dsh-plugin/…"):
	// the directory's name says where the package was installed from.
	FormStoreDir FormName = "pnpm-store-dir"
)

// Producers of the catalogue's forms: the versions the image pins.
const (
	ProducerDSH  = "dsh 0.1.0-rc.8"
	ProducerPNPM = "pnpm 9.15.9"
	ProducerNode = "node 24.11.1"
)

// The files of the image (localhost/dsh-sandbox:0.1.0-rc.8) the forms
// come from.
const (
	SourceDSHPlugin = "/opt/dsh/node_modules/@deepseek-ai/dsh/lib/plugin-9h8shc4d.js"
	SourcePNPM      = "/opt/pnpm/dist/pnpm.cjs"
	SourceLoader    = "/opt/dsh/node_modules/.pnpm/@deepseek-ai+cordis-plugin-loader@1.0.2_@deepseek-ai+cordis@4.0.1_node-addon-require-builtin@0.1.5/node_modules/@deepseek-ai/cordis-plugin-loader/lib/index.js"
	SourceAppBoot   = "/opt/dsh/node_modules/.pnpm/@deepseek-ai+dsh-app-boot@0.1.0-rc.8_jomx2cnmd72d6ftnok25pzsihu/node_modules/@deepseek-ai/dsh-app-boot/lib/index.js"
	// SourceNode is node's binary: its builtin JavaScript and libuv's
	// error names are compiled in.
	SourceNode = "/opt/node/bin/node"
)

// What dsh names a profile's package.json: ProfilePackagePrefix and the
// profile's directory name, SourceAppBoot's ProfileNameSnippet.
const (
	ProfilePackagePrefix = "dsh-profile-"
	ProfileNameSnippet   = "name: `dsh-profile-${basename(dir)}`,"
)

// InBoxBundles are the bundles dsh ships beside itself, the only ones a
// profile lists without installing them: SourceAppBoot's
// PROFILE_TEMPLATES (web, headless), its DEFAULT_PROFILE_BUNDLES and the
// installation-owned tuples it normalises. Every other bundle loadProfile
// resolves from the profile's own node_modules, where only a dependency
// of its package.json stands. InBoxSnippets are the lines of
// SourceAppBoot that say so (TestCatalogueInImage reads them).
var (
	InBoxBundles  = []string{"@deepseek-ai/dsh-base", "@deepseek-ai/dsh-web-app", "@deepseek-ai/dsh-headless"}
	InBoxSnippets = []string{
		`web: ["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-web-app"],`,
		`headless: ["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-headless"]`,
		`const DEFAULT_PROFILE_BUNDLES = ["@deepseek-ai/dsh-base"];`,
	}
)

// Form is one line form the pinned dsh or pnpm prints.
type Form struct {
	Name     FormName
	Producer string
	// Literal is in every line Pattern matches, cleaned or raw (it holds
	// no byte that cleaning changes): the reader looks for it
	// (searcher.index) and gives Pattern only the lines that hold it.
	Literal string
	// Pattern matches one whole cleaned line (SPEC.md "Output lines");
	// its submatches are the facts the line states.
	Pattern *lazyregexp.Regexp
	// Source is the file in the image that prints the form and Snippet
	// the exact text there that prints it (TestCatalogueInImage).
	Source  string
	Snippet string
	// Example is a line the form matches, as dsh or pnpm prints it.
	Example string
	// match, when set, gives what Pattern.FindSubmatch gives, by hand,
	// appending to sm: a form that can fill a 60 MiB log line after line
	// is read without a regexp or an allocation per line
	// (TestReadFormsAsEveryLine holds it to Pattern).
	match func(l []byte, sm [][]byte) [][]byte
	// exclusive: no line this form matches matches a later form (the
	// counter forms with and without "added"), so a match ends the
	// line's reading; TestReadFormsAsEveryLine holds it.
	exclusive bool
}

// submatches is the form's match of the cleaned line l, in scratch when
// the form is matched by hand.
func (f *Form) submatches(l []byte, scratch [][]byte) [][]byte {
	if f.match != nil {
		return f.match(l, scratch[:0])
	}
	return f.Pattern.FindSubmatch(l)
}

// matchProgress is Pattern.FindSubmatch of pnpm's counter forms, with
// or without "added": "Progress: resolved N, reused N, downloaded N[,
// added N][, done]" and trailing spaces (a cleaned line holds no other
// white space RE2's \s matches); an optional group that did not take
// part is nil, as FindSubmatch gives it.
func matchProgress(added bool) func([]byte, [][]byte) [][]byte {
	counters := len(progressSeps)
	if !added {
		counters--
	}
	return func(l []byte, sm [][]byte) [][]byte {
		const head = "Progress: resolved "
		if len(l) < len(head) || string(l[:len(head)]) != head {
			return nil
		}
		sm = append(sm, l)
		i := len(head)
		for k, sep := range progressSeps[:counters] {
			if k > 0 {
				if len(l)-i < len(sep) || string(l[i:i+len(sep)]) != sep {
					return nil
				}
				i += len(sep)
			}
			n := digits(l[i:])
			if n == 0 {
				return nil
			}
			sm = append(sm, l[i:i+n])
			i += n
		}
		var done []byte
		const d = ", done"
		if len(l)-i >= len(d) && string(l[i:i+len(d)]) == d {
			done, i = l[i:i+len(d)], i+len(d)
		}
		for ; i < len(l); i++ {
			if l[i] != ' ' {
				return nil
			}
		}
		return append(sm, done)
	}
}

// progressSeps are what comes before each of pnpm's counters.
var progressSeps = [...]string{"", ", reused ", ", downloaded ", ", added "}

// digits is the length of the run of ASCII digits s starts with.
func digits(s []byte) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// Catalogue lists every form the run model reads, in the order the
// reader tries them on a line.
var Catalogue = []Form{
	{
		Name: FormProfileInitialized, Example: "dsh: initialized profile web at /dsh-home/profiles/web",
		Producer: ProducerDSH,
		Literal:  "dsh: initialized profile ",
		Pattern:  lazyregexp.New(`^dsh: initialized profile (\S+) at (\S+)\s*$`),
		Source:   SourceDSHPlugin,
		Snippet:  "process.stderr.write(`${NAME}: initialized profile ${profile} at ${dir}\\n`);",
	},
	{
		Name: FormPNPMFailedIn, Example: "dsh: pnpm failed in profile directory /dsh-home/profiles/web",
		Producer: ProducerDSH,
		Literal:  "dsh: pnpm failed in profile directory ",
		Pattern:  lazyregexp.New(`^dsh: pnpm failed in profile directory (\S+)\s*$`),
		Source:   SourceDSHPlugin,
		Snippet:  "process.stderr.write(`${NAME}: pnpm failed in profile directory ${dir}\\n`);",
	},
	{
		Name: FormProgress, Example: "Progress: resolved 1, reused 0, downloaded 1, added 1, done",
		Producer: ProducerPNPM,
		Literal:  "Progress: resolved ",
		Pattern:  lazyregexp.New(`^Progress: resolved (\d+), reused (\d+), downloaded (\d+), added (\d+)(, done)?\s*$`),
		match:    matchProgress(true), exclusive: true,
		Source:  SourcePNPM,
		Snippet: "const msg = `Progress: resolved ${(0, outputConstants_1.hlValue)(progress.resolved.toString())}, reused ${(0, outputConstants_1.hlValue)(progress.reused.toString())}, downloaded ${(0, outputConstants_1.hlValue)(progress.fetched.toString())}, added ${(0, outputConstants_1.hlValue)(progress.imported.toString())}`;",
	},
	{
		Name: FormProgressNoAdded, Example: "Progress: resolved 1, reused 0, downloaded 1",
		Producer: ProducerPNPM,
		Literal:  "Progress: resolved ",
		Pattern:  lazyregexp.New(`^Progress: resolved (\d+), reused (\d+), downloaded (\d+)(, done)?\s*$`),
		match:    matchProgress(false),
		Source:   SourcePNPM,
		Snippet:  "const msg = `Progress: resolved ${(0, outputConstants_1.hlValue)(progress.resolved.toString())}, reused ${(0, outputConstants_1.hlValue)(progress.reused.toString())}, downloaded ${(0, outputConstants_1.hlValue)(progress.fetched.toString())}`;",
	},
	{
		// Anchored at the start only, as the time check has always read
		// it: the version is the word after "v".
		Name: FormDone, Example: "Done in 1.1s using pnpm v9.15.9",
		Producer: ProducerPNPM,
		Literal:  "Done in ",
		Pattern:  lazyregexp.New(`^Done in ((?:\d+(?:\.\d+)?(?:ms|s|m|h|d) ?)+) using pnpm v(\S*)`),
		Source:   SourcePNPM,
		Snippet:  "msg: `Done in ${(0, pretty_ms_1.default)(log2.endedAt - log2.startedAt)} using ${cli_meta_1.packageManager.name} v${cli_meta_1.packageManager.version}`",
	},
	{
		// boxen centres the line between the box's borders.
		Name: FormUpdateAvailable, Example: "   │                Update available! 9.15.9 → 12.21.0.                │",
		Producer: ProducerPNPM,
		Literal:  "Update available! ",
		Pattern:  lazyregexp.New(`^[\s\p{Zs}]*│?[\s\p{Zs}]*Update available! (\S+) → (\S+?)\.[\s\p{Zs}]*│?[\s\p{Zs}]*$`),
		Source:   SourcePNPM,
		Snippet:  "msg: (0, boxen_1.default)(`Update available! ${chalk_1.default.red(log2.currentVersion)} \\u2192 ${chalk_1.default.green(log2.latestVersion)}.",
	},
	{
		// formatWarn's " WARN " (thin spaces), after the project's
		// directory when it is not pnpm's working directory.
		Name: FormUnsupportedEngine, Example: "\u2009WARN\u2009 Unsupported engine: wanted: {\"node\":\">=30\"} (current: {\"node\":\"v24.11.1\",\"pnpm\":\"9.15.9\"})",
		Producer: ProducerPNPM,
		Literal:  "Unsupported engine: wanted: ",
		Pattern:  lazyregexp.New(`^.*\bWARN[\s\p{Zs}]+Unsupported engine: wanted: (\{[^{}]*\}) \(current: (\{[^{}]*\})\)\s*$`),
		Source:   SourcePNPM,
		Snippet:  "message: `Unsupported ${err instanceof package_is_installable_1.UnsupportedEngineError ? \"engine\" : \"platform\"}: wanted: ${JSON.stringify(err.wanted)} (current: ${JSON.stringify(err.current)})`,",
	},
	{
		Name: FormUnsupportedEngineError, Example: "\u2009ERR_PNPM_UNSUPPORTED_ENGINE\u2009 Unsupported engine for /dsh-home/profiles/web: wanted: {\"pnpm\":\">=10\"} (current: {\"node\":\"v24.11.1\",\"pnpm\":\"9.15.9\"})",
		Producer: ProducerPNPM,
		Literal:  "Unsupported engine for ",
		Pattern:  lazyregexp.New(`^.*\bUnsupported engine for (.+?): wanted: (\{[^{}]*\}) \(current: (\{[^{}]*\})\)\s*$`),
		Source:   SourcePNPM,
		Snippet:  "super(\"UNSUPPORTED_ENGINE\", `Unsupported engine for ${packageId}: wanted: ${JSON.stringify(wanted)} (current: ${JSON.stringify(current)})`);",
	},
	{
		// formatErrorSummary: the code between thin spaces, then the message.
		Name: FormPNPMError, Example: " ERR_PNPM_ADDING_TO_ROOT  Running this command will add the dependency to the workspace root",
		Producer: ProducerPNPM,
		Literal:  "ERR_PNPM_",
		Pattern:  lazyregexp.New(`^[\s\p{Zs}]*(ERR_PNPM_[A-Z0-9_]+)`),
		Source:   SourcePNPM,
		Snippet:  "return `${chalk_1.default.bgRed.black(`\\u2009${code ?? \"ERROR\"}\\u2009`)} ${chalk_1.default.red(message2)}`;",
	},
	{
		// renderTreeForPackage's label: name, "@version" when the
		// project has one, its directory, " (PRIVATE)".
		Name: FormListProject, Example: "dsh-profile-web /dsh-home/profiles/web (PRIVATE)",
		Producer: ProducerPNPM,
		Literal:  " (PRIVATE)",
		Pattern:  lazyregexp.New(`^((?:@[^\s@/]+/)?[^\s@]+)(?:@(\S+))? (\S+) \(PRIVATE\)\s*$`),
		Source:   SourcePNPM,
		Snippet:  "label += \" (PRIVATE)\";",
	},
}

// The forms that say a dsh plugin entry failed to apply or load, or that
// the port was held (T4FailureForms); SPEC.md "T4 boot", condition 5.
var t4FailureForms = []Form{
	{
		Name: FormLoaderEntryFailed, Example: "2026-12-06 10:00:00 [E] loader Error: failed to apply loader entry hello-dsh (hello-dsh-plugin): boom",
		Producer: ProducerDSH,
		Literal:  " loader entry ",
		Pattern:  lazyregexp.New(`^.*\bfailed to (apply|import|dispose|rollback) loader entry (\S+) \((.*?)\): `),
		Source:   SourceLoader,
		Snippet:  "return new Error(`failed to ${stage} loader entry ${options.id} (${options.name}): ${detail}`, { cause });",
	},
	{
		Name: FormLoaderEntriesFailed, Example: "AggregateError: loader entries failed to apply",
		Producer: ProducerDSH,
		Literal:  "loader entries failed to apply",
		Pattern:  lazyregexp.New(`^.*\bloader entries failed to apply\b`),
		Source:   SourceLoader,
		Snippet:  `throw new AggregateError(failures, "loader entries failed to apply");`,
	},
	{
		Name: FormEntriesNotActivated, Example: "Error: dsh: plugin tree failed to load: dsh: 1 entry did not activate",
		Producer: ProducerDSH,
		Literal:  " did not activate",
		Pattern:  lazyregexp.New(`^.*\bdsh: ([0-9]+) (?:entry|entries) did not activate\b`),
		Source:   SourceAppBoot,
		Snippet:  "${binName}: ${String(failures.length)} ${noun} did not activate",
	},
	{
		Name: FormPluginTreeFailed, Example: "Error: dsh: plugin tree failed to load: dsh: 1 entry did not activate",
		Producer: ProducerDSH,
		Literal:  "plugin tree failed to load",
		Pattern:  lazyregexp.New(`^.*\bdsh: plugin tree failed to load: `),
		Source:   SourceAppBoot,
		Snippet:  `stage = "plugin tree failed to load";`,
	},
	{
		Name: FormHostPreparationFailed, Example: "Error: dsh: host preparation failed: boom",
		Producer: ProducerDSH,
		Literal:  "host preparation failed",
		Pattern:  lazyregexp.New(`^.*\bdsh: host preparation failed: `),
		Source:   SourceAppBoot,
		Snippet:  `let stage = "host preparation failed";`,
	},
	{
		Name: FormFatalLoadFailure, Example: "dsh: fatal load failure: Error: boom",
		Producer: ProducerDSH,
		Literal:  "fatal load failure: ",
		Pattern:  lazyregexp.New(`^.*\bdsh: fatal load failure: `),
		Source:   SourceAppBoot,
		Snippet:  "proc.stderr.write(`${binName}: fatal load failure: ${err instanceof Error ? err.stack ?? err.message : String(err)}",
	},
	{
		// node's uvExceptionWithHostPort: "<syscall> <code>: <libuv's
		// text> <address>:<port>"; the binary holds libuv's text.
		Name: FormPortInUse, Example: "Error: failed to apply loader entry webserver (@deepseek-ai/dsh-host-webserver): listen EADDRINUSE: address already in use 127.0.0.1:3080",
		Producer: ProducerNode,
		Literal:  "EADDRINUSE",
		Pattern:  lazyregexp.New(`^.*\blisten EADDRINUSE: address already in use (\S+)`),
		Source:   SourceNode,
		Snippet:  "address already in use",
	},
}

// storeDirForm is pnpm's virtual store directory of a package,
// depPathToFilename of its dependency path: "NAME@VERSION[_PEERS]" for a
// registry package, "NAME@file+PATH" for a local tarball or directory,
// with "/" and ":" written "+" ("@scope+name"). StorePaths reads every
// one in a line; SPEC.md "The run model".
var storeDirForm = Form{
	Name: FormStoreDir, Example: "    at new apply (file:///dsh-home/profiles/web/node_modules/.pnpm/throws-dsh-plugin@file+..+..+..+pkgs+throws-dsh-plugin-1.0.0.tgz/node_modules/throws-dsh-plugin/lib/index.js:2:36)",
	Producer: ProducerPNPM,
	Literal:  "/node_modules/.pnpm/",
	Pattern:  lazyregexp.New(`^.*?` + storeDirCore),
	Source:   SourcePNPM,
	Snippet:  `let filename = depPathToFilenameUnescaped(depPath).replace(/[\\/:*?"<>|]/g, "+");`,
}

// storeDirCore matches one virtual store path: the escaped name, the
// reference after its "@", and the package's own directory name.
const storeDirCore = `/node_modules/\.pnpm/((?:@[^/+\s]+\+)?[^/@\s]+)@([^/\s]+)/node_modules/((?:@[^/\s]+/)?[^/\s:)]+)`

var storeDirAll = lazyregexp.New(storeDirCore)

func init() {
	Catalogue = append(Catalogue, t4FailureForms...)
	Catalogue = append(Catalogue, storeDirForm)
}

// IsT4FailureForm reports whether a catalogue form says that a dsh
// plugin entry failed to apply or load, or that a port was held: no such
// line stands in a passing T4 (SPEC.md "T4 boot", condition 5).
func IsT4FailureForm(n FormName) bool {
	for _, f := range t4FailureForms {
		if f.Name == n {
			return true
		}
	}
	return false
}

// FormOf returns the catalogue's form of that name.
func FormOf(name FormName) Form {
	for _, f := range Catalogue {
		if f.Name == name {
			return f
		}
	}
	panic("rules: no catalogue form " + string(name))
}

// Reading is one line of a stage's output that a catalogue form matches.
// Line and Sub are valid during the call that gives them only: they may
// be the output's own bytes, or a buffer used again; a caller that keeps
// one copies it.
type Reading struct {
	Form FormName
	// Line is the cleaned line, and Sub the pattern's submatches in it
	// (Sub[0] the whole match, nil for a group that took no part).
	Line []byte
	Sub  [][]byte
}

// ReadForms calls f, in the order of the output, with each line of out
// that a catalogue form matches, once for each form (in catalogue order)
// whose pattern matches it, until f returns false. A line is
// cleaned and matched only when it holds one of the forms' literals, or
// when it holds a byte that cleaning removes (which could split a
// literal in the raw bytes): the lines are found by one search over the
// whole output per distinct literal (eachCandidate), so the cost of an
// output without the forms' lines is close to that of counting its
// bytes (issue 48).
//
// A line that cleaning leaves as it is (printable ASCII after its "\r")
// is read in place: a log of a million counter lines costs no allocation
// per line.
func ReadForms(out []byte, f func(Reading) bool) {
	var scratch [8][]byte
	lits := catalogueBytes()
	eachCandidate(out, func(start, end int, forms uint64) bool {
		l := bytes.TrimSuffix(out[start:end], []byte("\r"))
		if forms == ^uint64(0) && !catalogueLiteralSet().mayHold(l) {
			return true // no literal can be made of its bytes (Literals.mayHold): not cleaned, so not copied
		}
		if !printableASCII(l) {
			l = []byte(cleanLine(l))
		}
		for i := range Catalogue {
			fm := &Catalogue[i]
			// A line found by its literal holds it; a cleaned one is searched.
			if forms&(1<<i) == 0 || forms == ^uint64(0) && !bytes.Contains(l, lits[i]) {
				continue
			}
			if sm := fm.submatches(l, scratch[:]); sm != nil {
				if !f(Reading{Form: fm.Name, Line: l, Sub: sm}) {
					return false
				}
				if fm.exclusive {
					break
				}
			}
		}
		return true
	})
}

// searcher finds, one after another, the lines of out that hold lit:
// next is the start of the next such line (-1 when there is none), off
// where the search goes on, forms the forms a line it finds is read for
// (bit i for Catalogue[i]; every bit for a line that must be cleaned
// before it is searched).
type searcher struct {
	lit       []byte
	forms     uint64
	next, off int
	end       int // the end of the line at next (its "\n", or len(out))
	// anchor is the index in lit of the byte out holds least often;
	// misses counts the anchors found where lit was not, and scanned
	// the bytes searched, to give the anchor up when it is common.
	anchor          int
	misses, scanned int
	plain           bool // search with bytes.Index alone
}

func (s *searcher) advance(out []byte) {
	i := s.index(out[s.off:])
	if i < 0 {
		s.next, s.off = -1, len(out)
		return
	}
	at := s.off + i
	s.next = bytes.LastIndexByte(out[s.off:at], '\n') + 1 + s.off
	s.end, s.off = len(out), len(out)
	if j := bytes.IndexByte(out[at:], '\n'); j >= 0 {
		s.end = at + j
		s.off = s.end + 1
	}
}

// index is bytes.Index(b, s.lit). It looks for the literal's anchor,
// the byte of it the whole output holds least often, with
// bytes.IndexByte, and compares the literal around each one found: most
// literals have a byte an output seldom holds, and bytes.Index, which
// looks for the first byte, is slow when that one is common (a space, or
// "d" in pnpm's counter lines). Once the anchor has been found where the
// literal was not more than once in 256 bytes searched, it is given up
// for bytes.Index.
func (s *searcher) index(b []byte) int {
	if s.plain {
		return bytes.Index(b, s.lit)
	}
	lit, a := s.lit, s.anchor
	for i := a; i < len(b); {
		j := bytes.IndexByte(b[i:], lit[a])
		if j < 0 {
			s.scanned += len(b) - i
			return -1
		}
		s.scanned += j + 1
		i += j
		start := i - a
		if start+len(lit) > len(b) {
			return -1
		}
		if bytes.Equal(b[start:start+len(lit)], lit) {
			return start
		}
		i++
		if s.misses++; s.misses > 16+s.scanned/256 {
			s.plain = true
			if k := bytes.Index(b[start+1:], lit); k >= 0 {
				return start + 1 + k
			}
			return -1
		}
	}
	return -1
}

// eachCandidate calls f, in order and once each, with the start and end
// of each line of out that holds a catalogue literal or a byte that cleaning
// removes, and the forms to read it for, until f returns false. Each
// literal is searched over the whole output by its anchor (searcher.index),
// and not at all when out lacks one of its bytes; the searches are merged
// as they go: nothing is allocated per line.
func eachCandidate(out []byte, f func(start, end int, forms uint64) bool) {
	eachCandidateOf(out, catalogueLiterals(), f)
}

// eachCandidateOf is eachCandidate for the literals lits, each with its
// mask of forms.
func eachCandidateOf(out []byte, lits []catalogueLiteral, f func(start, end int, forms uint64) bool) {
	count := byteCounts(out)
	var room [40]searcher // the catalogue's and a few cleaning bytes', not allocated
	ss := room[:0]
	for _, l := range lits {
		s := searcher{lit: l.lit, forms: l.forms}
		for k, c := range s.lit {
			if count[c] < count[s.lit[s.anchor]] {
				s.anchor = k
			}
		}
		if count[s.lit[s.anchor]] > 0 {
			ss = append(ss, s)
		}
	}
	for c, n := range count {
		if n > 0 && removedByCleaning(byte(c)) {
			ss = append(ss, searcher{lit: cleanedBytes[c : c+1], forms: ^uint64(0)})
		}
	}
	for i := range ss {
		ss[i].advance(out)
	}
	for {
		start, end, forms := -1, 0, uint64(0)
		for i := range ss {
			if s := &ss[i]; s.next >= 0 && (start < 0 || s.next < start) {
				start, end = s.next, s.end
			}
		}
		if start < 0 {
			return
		}
		for i := range ss {
			if s := &ss[i]; s.next == start {
				forms |= s.forms
				s.advance(out)
			}
		}
		if !f(start, end, forms) {
			return
		}
	}
}

// Literals is a set of at most 64 non-empty literals that
// EachCleanLineHolding searches for, made once by NewLiterals.
type Literals struct {
	strs []string
	lits []catalogueLiteral
}

// NewLiterals returns the set of lits. It panics on more than 64 or an
// empty one: both are the caller's mistake.
func NewLiterals(lits ...string) *Literals {
	if len(lits) > 64 || slices.Contains(lits, "") {
		panic("rules: NewLiterals takes at most 64 non-empty literals")
	}
	ls := &Literals{strs: lits}
	for i, l := range lits {
		ls.lits = append(ls.lits, catalogueLiteral{lit: []byte(l), forms: 1 << i})
	}
	return ls
}

// mayHold reports whether raw, a line, has every byte of one of the
// literals, counting a tab as a space: cleaning only removes bytes,
// makes a tab a space and writes U+FFFD for invalid UTF-8, so a line that
// lacks a byte of each literal holds none once cleaned. It spares
// cleaning (a copy) of a long line that could not hold one, such as a
// 15 MiB line of escape bytes.
func (ls *Literals) mayHold(raw []byte) bool {
	var has [256]bool
	for _, c := range raw {
		has[c] = true
	}
	has[' '] = has[' '] || has['\t']
	for _, l := range ls.strs {
		all := true
		for i := 0; i < len(l) && all; i++ {
			all = has[l[i]]
		}
		if all {
			return true
		}
	}
	return false
}

// EachCleanLineHolding calls f, in order, with each line of out that
// holds one of lits once cleaned as SPEC.md "Output lines" cleans it,
// cleaned and not trimmed, until f returns false. Like the catalogue's
// reading, it searches each literal over the whole output and cleans only
// the lines that hold one or a byte cleaning removes.
func EachCleanLineHolding(out []byte, lits *Literals, f func(line string) bool) {
	eachCandidateOf(out, lits.lits, func(start, end int, forms uint64) bool {
		if forms == ^uint64(0) && !lits.mayHold(out[start:end]) {
			return true // no literal can be made of its bytes: not cleaned, so not copied
		}
		l := cleanLine(out[start:end])
		if forms == ^uint64(0) && !slices.ContainsFunc(lits.strs, func(lit string) bool { return strings.Contains(l, lit) }) {
			return true // found for a byte cleaning removes, holding no literal
		}
		return f(l)
	})
}

// catalogueLiteral is one distinct literal of Catalogue and the forms
// that hold it.
type catalogueLiteral struct {
	lit   []byte
	forms uint64
}

// catalogueLiterals are Catalogue's distinct literals, each with the mask
// of the forms that hold it, in the order of their first form.
var catalogueLiterals = sync.OnceValue(func() []catalogueLiteral {
	var out []catalogueLiteral
	for i := range Catalogue {
		mask := uint64(0)
		for k := range Catalogue {
			if Catalogue[k].Literal == Catalogue[i].Literal {
				if k < i {
					mask = 0 // listed already
					break
				}
				mask |= 1 << k
			}
		}
		if mask != 0 {
			out = append(out, catalogueLiteral{lit: []byte(Catalogue[i].Literal), forms: mask})
		}
	}
	return out
})

// catalogueBytes is each form's literal as bytes, by index in Catalogue.
var catalogueBytes = sync.OnceValue(func() [][]byte {
	out := make([][]byte, len(Catalogue))
	for i := range Catalogue {
		out[i] = []byte(Catalogue[i].Literal)
	}
	return out
})

// catalogueLiteralSet is Catalogue's distinct literals as a Literals,
// for mayHold.
var catalogueLiteralSet = sync.OnceValue(func() *Literals {
	var strs []string
	for _, l := range catalogueLiterals() {
		strs = append(strs, string(l.lit))
	}
	return NewLiterals(strs...)
})

// cleanedBytes holds every byte value at its own index, so that a
// one-byte searcher's literal is a slice of it, not an allocation.
var cleanedBytes = func() (b [256]byte) {
	for i := range b {
		b[i] = byte(i)
	}
	return b
}()

// removedByCleaning reports whether c is a byte other than "\n" that
// cleaning removes or replaces (C0 controls, ESC and DEL; a tab becomes a
// space), or 0xC2, the first byte of the C1 controls U+0080–U+009F,
// which cleaning removes too. A catalogue literal is printable ASCII, so
// a line without them holds a literal once cleaned exactly when it holds
// it raw.
func removedByCleaning(c byte) bool {
	return c != '\n' && (c < ' ' || c == 0x7f || c == 0xc2)
}

// byteCounts returns how many times out holds each byte (four tables
// filled in turn, so that one increment need not wait for the last).
func byteCounts(out []byte) [256]int {
	var t [4][256]uint32
	i := 0
	for ; i+4 <= len(out); i += 4 {
		t[0][out[i]]++
		t[1][out[i+1]]++
		t[2][out[i+2]]++
		t[3][out[i+3]]++
	}
	for ; i < len(out); i++ {
		t[0][out[i]]++
	}
	var n [256]int
	for c := range n {
		n[c] = int(t[0][c]) + int(t[1][c]) + int(t[2][c]) + int(t[3][c])
	}
	return n
}
