// Package lazyregexp is a thin wrapper over regexp that compiles a
// package-level pattern on its first use instead of at package
// initialisation, so that a command pays only for the patterns it uses
// (DESIGN.md "Start-up cost"). It follows the Go toolchain's own
// internal/lazyregexp. A pattern that does not compile panics on first
// use, as regexp.MustCompile would at start-up; every pattern a program
// holds is listed by All, and cmd/dshaudit's TestLazyPatternsCompile
// compiles them all.
package lazyregexp

import (
	"regexp"
	"sync"
)

// Regexp is a regexp.Regexp compiled on first use.
type Regexp struct {
	expr string
	once sync.Once
	rx   *regexp.Regexp
}

var (
	mu  sync.Mutex
	all []*Regexp
)

// New returns a Regexp for expr, not yet compiled.
func New(expr string) *Regexp {
	r := &Regexp{expr: expr}
	mu.Lock()
	all = append(all, r)
	mu.Unlock()
	return r
}

// All returns every Regexp made by New so far, in order.
func All() []*Regexp {
	mu.Lock()
	defer mu.Unlock()
	return append([]*Regexp(nil), all...)
}

// Re returns the compiled expression, compiling it on the first call.
func (r *Regexp) Re() *regexp.Regexp {
	r.once.Do(func() { r.rx = regexp.MustCompile(r.expr) })
	return r.rx
}

// String returns the source text.
func (r *Regexp) String() string { return r.expr }

// The methods of regexp.Regexp that dshaudit calls, compiling on first
// use; add one when a caller needs it (Re gives the rest).

func (r *Regexp) FindStringSubmatch(s string) []string { return r.Re().FindStringSubmatch(s) }

func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.Re().FindStringSubmatchIndex(s)
}

func (r *Regexp) FindSubmatch(b []byte) [][]byte { return r.Re().FindSubmatch(b) }

func (r *Regexp) MatchString(s string) bool { return r.Re().MatchString(s) }

func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Re().ReplaceAllString(src, repl)
}

func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Re().FindAllStringSubmatch(s, n)
}

func (r *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte {
	return r.Re().FindAllSubmatch(b, n)
}

func (r *Regexp) Match(b []byte) bool { return r.Re().Match(b) }

func (r *Regexp) ReplaceAll(src, repl []byte) []byte { return r.Re().ReplaceAll(src, repl) }

func (r *Regexp) ReplaceAllLiteral(src, repl []byte) []byte {
	return r.Re().ReplaceAllLiteral(src, repl)
}
