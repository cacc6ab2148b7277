// Package doccheck finds what the project's documents and code name —
// command-line flags in Markdown, `SPEC.md "Heading"` citations in Go
// source, Markdown headings — and which tracked files do not belong in
// the repository, so that tests can hold each against the code. It reads
// bytes and returns references with file and line; it knows nothing of
// the CLI, which the caller walks.
package doccheck
