package jsonwalk

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestKeyIs checks KeyIs against json.Unmarshal on keys written with
// every kind of escape, invalid UTF-8 and non-ASCII text.
func TestKeyIs(t *testing.T) {
	var keys []string
	for _, w := range []string{"name", "version", "nam", "names", "n\tame", `na"me`, `na\me`, "na/me", ""} {
		keys = append(keys, w)
		for i := range len(w) {
			for _, esc := range []string{`\u%04x`, `\u%04X`, `\u%04x\u0000`} {
				keys = append(keys, w[:i]+fmt.Sprintf(esc, w[i])+w[i+1:])
			}
		}
		all := ""
		for i := range len(w) {
			all += fmt.Sprintf(`\u%04x`, w[i])
		}
		keys = append(keys, all, all+" ", `\ud800`+all, all+`\u00e9`)
	}
	keys = append(keys, `\"`, `\\`, `\/`, `\b\f\n\r\t`, `na\/me`, `\u006g`, `\u006`, `\`, `\u0061\u0301`,
		"é", `\u00e9`, "\xff", "\xef\xbf\xbd", `\ufffd`, `\ud800`, "a\xffb", `\ud83d\ude00`, "😀", "e\u0301")
	for _, k := range keys {
		raw := []byte(`"` + strings.ReplaceAll(strings.ReplaceAll(k, "\t", `\t`), `"`, `\"`) + `"`)
		if !json.Valid(raw) {
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"name", "version", s, "é", "\ufffd", "a\ufffdb", "😀"} {
			if got := KeyIs(raw, want); got != (s == want) {
				t.Errorf("KeyIs(%s, %q) = %v, json.Unmarshal reads %q", raw, want, got, s)
			}
		}
	}
}
