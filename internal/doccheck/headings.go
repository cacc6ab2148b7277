package doccheck

import "strings"

// Headings returns the text of every ATX heading (# … ######) of a
// Markdown document outside fenced code blocks.
func Headings(markdown []byte) []string {
	var hs []string
	inFence := false
	for _, line := range strings.Split(string(markdown), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		t := strings.TrimLeft(line, "#")
		if len(line)-len(t) > 6 || (t != "" && t[0] != ' ') {
			continue
		}
		hs = append(hs, strings.TrimSpace(t))
	}
	return hs
}

// HasHeading reports whether a citation names one of headings: exactly,
// or without the parenthesised clause reference a heading ends with
// ("T4 command" names "T4 command (DSHIO/T 21 5.1.8)").
func HasHeading(headings []string, cited string) bool {
	for _, h := range headings {
		if h == cited || (strings.HasPrefix(h, cited+" (") && strings.HasSuffix(h, ")")) {
			return true
		}
	}
	return false
}
