package bundle

import (
	"maps"
	"slices"
	"strings"
)

func cmpString(a, b string) int { return strings.Compare(a, b) }

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
