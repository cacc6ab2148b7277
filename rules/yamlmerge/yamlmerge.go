// Package yamlmerge reads keys of yaml.v3 mapping nodes the way a YAML 1.1
// loader with merge keys (js-yaml, which dsh uses; PyYAML) builds the
// mapping: a key written in the mapping wins, otherwise the key comes from
// the mappings its merge key (`<<`) names, the earlier of a list first.
// SPEC.md "T3 mount" (interpretation — merge keys).
//
// The node tree is walked, never expanded: every (node, key) answer is
// memoised by a Reader, so a document whose merges name the same anchors
// many times (billion-laughs style) costs no more than one walk per key
// looked up.
package yamlmerge

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// Resolve follows an alias node to its anchor (one level; yaml.v3 does not
// let an alias point to another alias).
func Resolve(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// IsMergeKey reports whether k is a merge key: a scalar `<<` that resolves
// to the tag !!merge, plain or tagged `!!merge <<`. A quoted "<<" is an
// ordinary string key (yaml.v3 tags it !!str), as is `!!str <<`; yaml.v3's
// own decoder draws the same line.
func IsMergeKey(k *yaml.Node) bool {
	return k != nil && k.Kind == yaml.ScalarNode && k.Value == "<<" && k.ShortTag() == "!!merge"
}

type memoKey struct {
	n   *yaml.Node
	key string
}

type answer struct {
	v    *yaml.Node
	n    int
	busy bool // being computed: a merge cycle reaching it again finds nothing
}

// Reader answers key lookups in the mappings of one document. Its zero
// value is ready to use.
type Reader struct {
	memo  map[memoKey]*answer
	probs map[*yaml.Node]*problem
	seen  map[*yaml.Node]bool // MergedOnce
}

type problem struct {
	text string
	busy bool
}

// NewReader returns a Reader with empty memos (made on first use).
func NewReader() *Reader {
	return &Reader{}
}

// Get returns the value (alias resolved) of key in the mapping m and how
// many times the mapping has it: the number of times key is written in m
// when it is (an explicit key wins over merged ones and is not a
// duplicate of them), else the count the first merged mapping that has
// the key gives (1, or more when that mapping itself repeats it), else 0.
// Keys are compared as scalars, aliases of scalars resolved. Merge values
// that are not mappings or lists of mappings are skipped here; Problem
// reports them.
func (r *Reader) Get(m *yaml.Node, key string) (*yaml.Node, int) {
	m = Resolve(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, 0
	}
	// The keys written in m need no memo: they are one pass over m.
	// Only a lookup that goes through merges is remembered.
	var v *yaml.Node
	n, merges := 0, false
	for i := 0; i+1 < len(m.Content); i += 2 {
		if IsMergeKey(m.Content[i]) {
			merges = true
			continue
		}
		k := Resolve(m.Content[i])
		if k.Kind == yaml.ScalarNode && k.Value == key {
			if v == nil {
				v = Resolve(m.Content[i+1])
			}
			n++
		}
	}
	if n > 0 || !merges {
		return v, n
	}
	a, done := r.enter(memoKey{m, key})
	if done {
		return a.result()
	}
	for i := 0; i+1 < len(m.Content) && a.n == 0; i += 2 {
		if IsMergeKey(m.Content[i]) {
			a.v, a.n = r.fromSource(Resolve(m.Content[i+1]), key)
		}
	}
	a.busy = false
	return a.v, a.n
}

// enter returns the remembered answer for mk and true, or a new answer,
// marked busy and remembered, and false: a merge cycle that reaches a
// lookup being computed finds it busy.
func (r *Reader) enter(mk memoKey) (*answer, bool) {
	if a, ok := r.memo[mk]; ok {
		return a, true
	}
	if r.memo == nil {
		r.memo = map[memoKey]*answer{}
	}
	a := &answer{busy: true}
	r.memo[mk] = a
	return a, false
}

// result is a remembered answer: nothing while it is still being
// computed (a merge cycle).
func (a *answer) result() (*yaml.Node, int) {
	if a.busy {
		return nil, 0
	}
	return a.v, a.n
}

// fromSource looks key up in a merge value: a mapping, or a list whose
// earlier mappings win over later ones.
func (r *Reader) fromSource(src *yaml.Node, key string) (*yaml.Node, int) {
	switch {
	case src == nil:
		return nil, 0
	case src.Kind == yaml.MappingNode:
		return r.Get(src, key)
	case src.Kind != yaml.SequenceNode:
		return nil, 0
	}
	a, done := r.enter(memoKey{src, key})
	if done {
		return a.result()
	}
	for _, it := range src.Content {
		if it = Resolve(it); it.Kind == yaml.MappingNode {
			if a.v, a.n = r.Get(it, key); a.n > 0 {
				break
			}
		}
	}
	a.busy = false
	return a.v, a.n
}

// Problem describes why the mapping m cannot be built by a YAML 1.1
// loader that supports merge keys, following its merges: a merge value
// that is not a mapping or a list of mappings (js-yaml: "cannot merge
// mappings"; yaml.v3: "map merge requires map or sequence of maps"), two
// merge keys in one mapping (loaders disagree on which wins; yaml.v3
// refuses the duplicate key), or merges that reach back to a mapping
// being merged (yaml.v3: "anchor … value contains itself"). It returns ""
// when there is none.
func (r *Reader) Problem(m *yaml.Node) string {
	m = Resolve(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return ""
	}
	return r.problem(m)
}

// problem is Problem for a mapping or a merge value's list.
func (r *Reader) problem(m *yaml.Node) string {
	if p, ok := r.probs[m]; ok {
		if p.busy {
			return fmt.Sprintf("line %d: merge keys form a cycle (a mapping merges a mapping that merges it)", m.Line)
		}
		return p.text
	}
	if m.Kind == yaml.MappingNode && !hasMergeKey(m) {
		return "" // nothing to follow, nothing to remember
	}
	p := &problem{busy: true}
	if r.probs == nil {
		r.probs = map[*yaml.Node]*problem{}
	}
	r.probs[m] = p
	if m.Kind == yaml.SequenceNode { // a merge value's list
		for _, it := range m.Content {
			it = Resolve(it)
			if it.Kind != yaml.MappingNode {
				p.text = fmt.Sprintf("line %d: a merge key's list holds %s, not a mapping", it.Line, kind(it))
				break
			}
			if p.text = r.problem(it); p.text != "" {
				break
			}
		}
		p.busy = false
		return p.text
	}
	merges := 0
	for i := 0; i+1 < len(m.Content) && p.text == ""; i += 2 {
		if !IsMergeKey(m.Content[i]) {
			continue
		}
		if merges++; merges > 1 {
			p.text = fmt.Sprintf("line %d: a second merge key in one mapping", m.Content[i].Line)
			break
		}
		v := Resolve(m.Content[i+1])
		if v.Kind != yaml.MappingNode && v.Kind != yaml.SequenceNode {
			p.text = fmt.Sprintf("line %d: the merge key's value is %s, not a mapping or a list of mappings", m.Content[i].Line, kind(v))
			break
		}
		p.text = r.problem(v)
	}
	p.busy = false
	return p.text
}

func hasMergeKey(m *yaml.Node) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if IsMergeKey(m.Content[i]) {
			return true
		}
	}
	return false
}

func kind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		return "a scalar"
	case yaml.AliasNode:
		return "an unresolved alias"
	}
	return "an empty node"
}

// MergedOnce returns the mappings m's merge keys bring in, directly or
// through their own merges, in merge order, leaving out every mapping an
// earlier call of this Reader returned: over one document the calls
// together walk each mapping once. Merge values Problem reports are
// skipped.
func (r *Reader) MergedOnce(m *yaml.Node) []*yaml.Node {
	if r.seen == nil {
		r.seen = map[*yaml.Node]bool{}
	}
	var out []*yaml.Node
	var walk func(m *yaml.Node)
	add := func(src *yaml.Node) {
		if src.Kind == yaml.MappingNode && !r.seen[src] {
			r.seen[src] = true
			out = append(out, src)
			walk(src)
		}
	}
	walk = func(m *yaml.Node) {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if !IsMergeKey(m.Content[i]) {
				continue
			}
			switch v := Resolve(m.Content[i+1]); v.Kind {
			case yaml.MappingNode:
				add(v)
			case yaml.SequenceNode:
				if r.seen[v] {
					continue
				}
				r.seen[v] = true
				for _, it := range v.Content {
					add(Resolve(it))
				}
			}
		}
	}
	if m = Resolve(m); m != nil && m.Kind == yaml.MappingNode {
		walk(m)
	}
	return out
}
