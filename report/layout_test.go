package report

import (
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// framed is a host page holding page in an iframe width px wide (srcdoc:
// the page keeps its own policy and the host can read its layout).
// Headless Chromium's window is at least 500 px wide; the frame is the
// viewport the page sees, so 390 px is measured and shot as a phone sees
// it. With probe, the host's script (the page runs none) opens every
// disclosure of the page and writes what layoutProbe measured into an
// attribute of the host's <body>.
func framed(page []byte, width, height int, probe bool) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html><html><head><meta charset="utf-8"><style>html,body{margin:0;padding:0;overflow:hidden}iframe{border:0;display:block}</style></head><body>`)
	fmt.Fprintf(&b, `<iframe id="f" width="%d" height="%d" srcdoc="%s"></iframe>`, width, height, html.EscapeString(string(page)))
	if probe {
		b.WriteString(layoutProbe)
	}
	b.WriteString(`</body></html>`)
	return []byte(b.String())
}

// layoutProbe measures the framed page: how wide the document is against
// its viewport, and every place a table cell's text breaks a line inside
// a run of non-space characters.
const layoutProbe = `<script>window.onload=function(){
var d=document.getElementById('f').contentDocument;
var out={window:d.documentElement.clientWidth,scroll:0,breaks:[],wide:[],gutter:[],wrapped:0};
d.querySelectorAll('details').forEach(function(x){x.open=true});
d.querySelectorAll('th,td').forEach(function(cell){
 var w=d.createTreeWalker(cell,NodeFilter.SHOW_TEXT|NodeFilter.SHOW_ELEMENT),acc='',prevTop=null,prevCh='';
 for(var n=w.nextNode();n;n=w.nextNode()){
  if(n.nodeType===1){if(n.tagName==='BR'||getComputedStyle(n).display!=='inline'){prevCh='\n';acc+='\n'}continue}
  var t=n.data;
  for(var i=0;i<t.length;i++){
   var r=d.createRange();r.setStart(n,i);r.setEnd(n,i+1);
   var rs=r.getClientRects();
   if(rs.length){
    var top=rs[0].top;
    if(prevTop!==null&&top>prevTop+2&&/\S/.test(t[i])&&/\S/.test(prevCh)){out.breaks.push(acc.slice(-12)+'|'+(t.slice(i)+' ').slice(0,12))}
    prevTop=top;prevCh=t[i];
   }
   acc+=t[i];
  }
 }
});
d.querySelectorAll('pre.log .l').forEach(function(l){
 var n=l.firstChild;if(!n||n.nodeType!==3||!n.data.length)return;
 var r=d.createRange();r.selectNodeContents(n);var rs=r.getClientRects();
 for(var i=1;i<rs.length;i++){if(rs[i].left<rs[0].left-1){out.gutter.push(l.id+' '+Math.round(rs[i].left)+'<'+Math.round(rs[0].left));break}}
 if(rs.length>1)out.wrapped++;
});
d.querySelectorAll('table').forEach(function(tb){var b=tb.getBoundingClientRect();if(b.right>out.window+1){out.wide.push((tb.id||tb.className||'table')+' '+Math.round(b.width)+'px')}});
out.scroll=d.documentElement.scrollWidth;
document.body.setAttribute('data-layout',JSON.stringify(out));
}</script>`

// layoutResult is what layoutProbe reports.
type layoutResult struct {
	Window int      `json:"window"`
	Scroll int      `json:"scroll"`
	Breaks []string `json:"breaks"` // "before|after" around each break
	Wide   []string `json:"wide"`   // tables wider than the window
	// Gutter lists evidence lines whose wrapped part starts left of
	// their first line's text (under the line numbers); Wrapped counts
	// the evidence lines that wrap.
	Gutter  []string `json:"gutter"`
	Wrapped int      `json:"wrapped"`
}

var (
	layoutAttr = regexp.MustCompile(`data-layout="([^"]*)"`)
)

// layout loads page in Chromium at the given window width and returns
// what layoutProbe measured.
func layout(t *testing.T, name string, page []byte, width int) layoutResult {
	t.Helper()
	dom := browse(t, writeFile(t, name, framed(page, width, 900, true)), fmt.Sprintf("--window-size=%d,900", max(width, 500)), "--dump-dom")
	m := layoutAttr.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("%s at %d px: the layout probe did not run", name, width)
	}
	var r layoutResult
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &r); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// midWord reports whether a line break between before and after splits
// a word: a letter or digit on both sides, and not inside a long run of
// hexadecimal digits (a digest, which has no word to keep).
func midWord(brk string) bool {
	before, after, _ := strings.Cut(brk, "|")
	if before == "" || after == "" {
		return false
	}
	b, a := before[len(before)-1], after[0]
	if !alnum(b) || !alnum(a) {
		return false
	}
	return !hexRun.MatchString(before+after) || !(hexDigit(b) && hexDigit(a))
}

var hexRun = regexp.MustCompile(`[0-9a-f]{12,}`)

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func hexDigit(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

// TestBrowserLayout loads the pages and the site index at 1280, 1024
// and 390 px: no table breaks a word, and at 1024 px and more nothing is
// wider than the window (at 390 px a wide table scrolls in its own box).
func TestBrowserLayout(t *testing.T) {
	vs, pol := loadVectors(t)
	var entries []Entry
	pages := map[string][]byte{}
	for _, v := range vs {
		p, html := render(t, vectorInput(t, v.File, pol))
		entries = append(entries, EntryOf(p, v.Name+".html"))
		pages[v.Name] = html
	}
	// Control: the probe sees a table that breaks words (the old sheet's
	// word-break:break-all in a narrow column).
	control := `<!DOCTYPE html><html><head><style>td{word-break:break-all}</style></head><body><table style="width:120px"><tr><td>repetitions/1/T1/stdout hello-dsh-plugin@1.0.0</td></tr></table></body></html>`
	if r := layout(t, "control.html", []byte(control), 1024); !slices.ContainsFunc(r.Breaks, midWord) {
		t.Fatalf("the probe does not see a word broken by break-all: %q", r.Breaks)
	}
	var ix strings.Builder
	if err := WriteIndex(&ix, NewIndex(entries)); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index", "pass", "boot_failed", "unstable", "edited_stdout", "static_only"} {
		page := pages[name]
		if name == "index" {
			page = []byte(ix.String())
		}
		for _, width := range []int{1280, 1024, 390} {
			r := layout(t, name+".html", page, width)
			for _, b := range r.Breaks {
				if midWord(b) {
					t.Errorf("%s at %d px: a table breaks a word: %q", name, width, b)
				}
			}
			if len(r.Gutter) > 0 {
				t.Errorf("%s at %d px: wrapped evidence lines run under the line numbers: %v", name, width, r.Gutter)
			}
			if name == "boot_failed" && r.Wrapped == 0 {
				t.Errorf("%s at %d px: no evidence line wraps: the gutter check saw nothing", name, width)
			}
			if r.Scroll > r.Window {
				t.Errorf("%s at %d px: the page is %d px wide in a %d px window (tables %v)", name, width, r.Scroll, r.Window, r.Wide)
			}
			t.Logf("%s at %d px: %d line breaks inside non-space runs, page %d px in %d px", name, width, len(r.Breaks), r.Scroll, r.Window)
		}
	}
}

func TestBreakable(t *testing.T) {
	for in, want := range map[string]string{
		"repetitions/1/T1/stdout": "repetitions/<wbr>1/<wbr>T1/<wbr>stdout",
		"@fx/badyaml-dsh@1.0.0":   "@fx/<wbr>badyaml-<wbr>dsh<wbr>@1.0.0",
		"a.dshaudit.tar.zst":      "a<wbr>.dshaudit<wbr>.tar<wbr>.zst",
		"a<b>/c&d":                "a&lt;b&gt;/<wbr>c&amp;d",
		"sha256:" + strings.Repeat("0123456789abcdef", 2) + "01": "sha256:<wbr>0123456789abcdef<wbr>0123456789abcdef01",
		"/":  "/",
		".x": ".x",
	} {
		if got := string(breakable(in)); got != want {
			t.Errorf("breakable(%q) = %q, want %q", in, got, want)
		}
	}
}
