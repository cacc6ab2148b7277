package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/dshaudit/dshaudit/internal/doccheck"
)

// repoRoot is the module root, two directories up from this package.
const repoRoot = "../.."

// documents are the Markdown files whose flags must exist and whose
// headings code may cite. The dated records of docs/measurements/ are
// checked for flags too (measurementDocs), but need not name any.
var documents = []string{"README.md", "CONTRIBUTING.md", "SPEC.md", "SPEC-CHANGELOG.md", "DESIGN.md", "docs/batch.md", "docs/github-actions.md"}

// measurementDocs lists docs/measurements/*.md.
func measurementDocs(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "measurements", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("docs/measurements/*.md: %v (found %d)", err, len(docs))
	}
	for i, d := range docs {
		rel, err := filepath.Rel(repoRoot, d)
		if err != nil {
			t.Fatal(err)
		}
		docs[i] = filepath.ToSlash(rel)
	}
	return docs
}

// TestDocsNameOnlyExistingFlags fails for every --flag that a document
// (README.md, SPEC.md, DESIGN.md, …, docs/measurements/) names and the
// CLI lacks: on the command the text
// names (`dshaudit run … --flag`), or on any command when it names none.
// A document naming a flag the code lacks is a bug.
func TestDocsNameOnlyExistingFlags(t *testing.T) {
	root := newRootCmd(strings.NewReader(""), io.Discard, io.Discard)
	measurements := measurementDocs(t)
	for i, doc := range append(append([]string{}, documents...), measurements...) {
		raw, err := os.ReadFile(filepath.Join(repoRoot, doc))
		if err != nil {
			t.Fatal(err)
		}
		refs := doccheck.Flags(doc, raw)
		if len(refs) == 0 && i < len(documents) {
			t.Errorf("%s: no --flag found; the extraction is broken", doc)
		}
		for _, r := range refs {
			if r.Words == nil {
				if !anyCommandHas(root, r.Flag) {
					t.Errorf("%s:%d: --%s is not a flag of any dshaudit command", r.File, r.Line, r.Flag)
				}
				continue
			}
			cmd := walk(root, r.Words)
			if !hasFlag(cmd, r.Flag) {
				t.Errorf("%s:%d: --%s is not a flag of %q", r.File, r.Line, r.Flag, cmd.CommandPath())
			}
		}
	}
}

// walk descends from root along the words that name subcommands.
func walk(root *cobra.Command, words []string) *cobra.Command {
	cmd := root
	for _, w := range words {
		next := (*cobra.Command)(nil)
		for _, c := range cmd.Commands() {
			if c.Name() == w || c.HasAlias(w) {
				next = c
			}
		}
		if next == nil {
			break
		}
		cmd = next
	}
	return cmd
}

func hasFlag(c *cobra.Command, name string) bool {
	if name == "help" || c.Flags().Lookup(name) != nil || c.InheritedFlags().Lookup(name) != nil {
		return true
	}
	return c == c.Root() && name == "version"
}

func anyCommandHas(c *cobra.Command, name string) bool {
	if hasFlag(c, name) {
		return true
	}
	for _, sub := range c.Commands() {
		if anyCommandHas(sub, name) {
			return true
		}
	}
	return false
}

// TestCodeCitesExistingHeadings fails for every `SPEC.md "Heading"` or
// `DESIGN.md "Heading"` citation in Go code whose heading does not exist,
// and for citations by section number, which name no heading.
func TestCodeCitesExistingHeadings(t *testing.T) {
	headings := map[string][]string{}
	for _, doc := range []string{"SPEC.md", "DESIGN.md"} {
		raw, err := os.ReadFile(filepath.Join(repoRoot, doc))
		if err != nil {
			t.Fatal(err)
		}
		headings[doc] = doccheck.Headings(raw)
	}
	n := 0
	for _, path := range trackedFiles(t, "*.go") {
		if strings.HasPrefix(path, "internal/doccheck/") || path == "cmd/dshaudit/docs_test.go" {
			continue // their examples of citations are not citations
		}
		src, err := os.ReadFile(filepath.Join(repoRoot, path))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range doccheck.Citations(path, src) {
			n++
			switch {
			case c.Heading == "":
				t.Errorf("%s:%d: %s cites a section by number; cite its heading, %s \"Heading\"", c.File, c.Line, c.Text, c.Doc)
			case !doccheck.HasHeading(headings[c.Doc], c.Heading):
				t.Errorf("%s:%d: %s %q: no such heading in %s", c.File, c.Line, c.Doc, c.Heading, c.Doc)
			}
		}
	}
	if n == 0 {
		t.Error("no citation found in the Go code; the extraction is broken")
	}
}

// TestDocsCiteExistingHeadings is TestCodeCitesExistingHeadings for the
// rest of what the repository tracks as text — documents, shell
// scripts, page templates: every `SPEC.md "Heading"` or `DESIGN.md
// "Heading"` (straight or typographic quotes, also over "#" comment
// lines) must name an existing heading, so that a section that moves
// takes its citations with it. A citation by version or number ("SPEC
// 1.9") names no heading and is not checked here.
func TestDocsCiteExistingHeadings(t *testing.T) {
	headings := map[string][]string{}
	for _, doc := range []string{"SPEC.md", "DESIGN.md"} {
		raw, err := os.ReadFile(filepath.Join(repoRoot, doc))
		if err != nil {
			t.Fatal(err)
		}
		headings[doc] = doccheck.Headings(raw)
	}
	quotes := strings.NewReplacer("\u201c", `"`, "\u201d", `"`)
	shellComment := regexp.MustCompile(`\n[ \t]*#[ \t]?`)
	n := 0
	for _, path := range trackedFiles(t, "*.md", "*.sh", "*.tmpl") {
		raw, err := os.ReadFile(filepath.Join(repoRoot, path))
		if err != nil {
			t.Fatal(err)
		}
		text := quotes.Replace(string(raw))
		if strings.HasSuffix(path, ".sh") {
			text = shellComment.ReplaceAllString(text, "\n// ")
		}
		for _, c := range doccheck.Citations(path, []byte(text)) {
			switch c.Heading {
			case "", "Heading", "…": // a number, or an example of the form
				continue
			}
			n++
			if !doccheck.HasHeading(headings[c.Doc], c.Heading) {
				t.Errorf("%s:%d: %s %q: no such heading in %s", c.File, c.Line, c.Doc, c.Heading, c.Doc)
			}
		}
	}
	if n == 0 {
		t.Error("no citation found in the documents; the extraction is broken")
	}
}

// TestTrackedFilesBelong fails for a tracked build output (a test
// binary, an executable) anywhere, and for a tracked file over 1 MiB
// outside testdata/.
func TestTrackedFilesBelong(t *testing.T) {
	for _, path := range trackedFiles(t) {
		full := filepath.Join(repoRoot, path)
		st, err := os.Lstat(full)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if !st.Mode().IsRegular() {
			continue
		}
		head := make([]byte, 8)
		f, err := os.Open(full)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		k, _ := io.ReadFull(f, head)
		f.Close()
		if p := doccheck.FileProblem(doccheck.TrackedFile{Path: path, Size: st.Size(), Head: head[:k]}); p != "" {
			t.Errorf("%s: tracked, but %s", path, p)
		}
	}
}

// trackedFiles lists the files git tracks (matching patterns, if any).
// The repository must be a git checkout: without git the check cannot
// run, and it fails rather than pass silently.
func trackedFiles(t *testing.T, patterns ...string) []string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"ls-files", "-z", "--"}, patterns...)...)
	cmd.Dir = repoRoot
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files (the check needs git and a git checkout): %v: %s", err, stderr.String())
	}
	var files []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		t.Fatal("git ls-files listed no file")
	}
	return files
}
