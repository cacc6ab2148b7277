package oracle

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
)

// CanonJS is the JavaScript twin of Canon: a function canon(v) giving
// the same text for a value JSON.parse returned as Canon gives for the
// Go value dshaudit read. Strings are written as their UTF-16 code
// units in hexadecimal, so a lone surrogate (JSON.parse keeps it) and
// U+FFFD (a UTF-8 reader's replacement) never look alike; numbers as
// Number.prototype.toString writes them; member names sorted by those
// code units.
const CanonJS = `
function hex(s) { let o = ''; for (let i = 0; i < s.length; i++) o += s.charCodeAt(i).toString(16).padStart(4, '0'); return o; }
function canon(v) {
  if (v === null) return 'n';
  if (v === true) return 't';
  if (v === false) return 'f';
  if (typeof v === 'number') return 'd' + String(v);
  if (typeof v === 'string') return 's' + hex(v);
  if (Array.isArray(v)) return '[' + v.map(canon).join(',') + ']';
  const keys = Object.keys(v).map(k => [hex(k), k]).sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  return '{' + keys.map(([h, k]) => h + ':' + canon(v[k])).join(',') + '}';
}
`

// Canon writes a decoded JSON value (nil, bool, string, json.Number or
// float64, []any, map[string]any) as CanonJS writes JSON.parse's.
func Canon(v any) string {
	var b strings.Builder
	canon(&b, v)
	return b.String()
}

func canon(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteByte('n')
	case bool:
		if v {
			b.WriteByte('t')
		} else {
			b.WriteByte('f')
		}
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil && !math.IsInf(f, 0) {
			b.WriteString("d?" + string(v))
			return
		}
		b.WriteString("d" + JSNumber(f))
	case float64:
		b.WriteString("d" + JSNumber(v))
	case string:
		b.WriteByte('s')
		b.WriteString(Hex16(v))
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			canon(b, x)
		}
		b.WriteByte(']')
	case map[string]any:
		type kv struct{ h, k string }
		keys := make([]kv, 0, len(v))
		for k := range v {
			keys = append(keys, kv{Hex16(k), k})
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i].h < keys[j].h })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(k.h + ":")
			canon(b, v[k.k])
		}
		b.WriteByte('}')
	default:
		fmt.Fprintf(b, "?%T", v)
	}
}

// Hex16 writes s as CanonJS's hex does: its UTF-16 code units, four
// hexadecimal digits each (a Go string that is not UTF-8 gives U+FFFD
// per bad byte, as converting it to runes does).
func Hex16(s string) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&b, "%04x", u)
	}
	return b.String()
}

// JSNumber formats f as ECMAScript's Number::toString does (ECMA-262
// 6.1.6.1.20): the shortest digits that round-trip, positional notation
// for exponents from -7 to 20, exponential otherwise.
func JSNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case f == 0:
		return "0"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f < 0:
		return "-" + JSNumber(-f)
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1
	switch {
	case k <= n && n <= 21:
		return digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return "0." + strings.Repeat("0", -n) + digits
	}
	sign := "+"
	if n-1 < 0 {
		sign = "-"
	}
	ex := strconv.Itoa(abs(n - 1))
	if k == 1 {
		return digits + "e" + sign + ex
	}
	return digits[:1] + "." + digits[1:] + "e" + sign + ex
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}
