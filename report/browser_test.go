package report

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dshaudit/dshaudit/internal/testutil/e2etest"
)

// The browser tests load the pages in a real headless Chromium (Debian's
// chromium; scripts/setup-chromium.sh installs it). They fail when it is
// missing: a report no browser has opened is not tested.

// chromiumFlags are the launch flags for a headless run as root in a
// container, with nothing running in the background that would reach the
// network on its own.
var chromiumFlags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--disable-extensions", "--hide-scrollbars", "--mute-audio",
}

func chromiumPath(t *testing.T) string {
	t.Helper()
	e2etest.Require(t) // a real browser: on under DSHAUDIT_E2E=1, then a missing one fails
	if p := os.Getenv("DSHAUDIT_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium is not installed: run scripts/setup-chromium.sh (or set DSHAUDIT_CHROMIUM); the report tests need a real browser")
	return ""
}

// browse runs Chromium on one file with a fresh profile and returns its
// stdout (the DOM, with --dump-dom).
func browse(t *testing.T, file string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	all := append(append(append([]string{}, chromiumFlags...), "--user-data-dir="+t.TempDir(), "--virtual-time-budget=3000"), args...)
	all = append(all, "file://"+file)
	cmd := exec.CommandContext(ctx, chromiumPath(t), all...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", filepath.Base(file), err, errOut.String())
	}
	return out.String()
}

// hitCounter is a loopback HTTP server that records every request: a
// page that fetched anything shows up here.
type hitCounter struct {
	*httptest.Server
	mu   sync.Mutex
	hits []string
}

func newHitCounter(t *testing.T) *hitCounter {
	h := &hitCounter{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.hits = append(h.hits, r.URL.Path)
		h.mu.Unlock()
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hitCounter) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.hits
	h.hits = nil
	return out
}

func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const pwned = "data-pwned"

// TestBrowserControl proves the method can fail: without the page's
// policy, this Chromium runs an inline script and fetches from the
// loopback server.
func TestBrowserControl(t *testing.T) {
	srv := newHitCounter(t)
	page := `<!DOCTYPE html><html><body><img src="` + srv.URL + `/control.png"><script>document.documentElement.dataset.pwned="control"</script></body></html>`
	dom := browse(t, writeFile(t, "control.html", []byte(page)), "--dump-dom")
	if !strings.Contains(dom, pwned+`="control"`) {
		t.Errorf("the control script did not run: the test could not see a script run\n%s", dom)
	}
	if hits := srv.take(); len(hits) == 0 {
		t.Error("the control page made no request: the test could not see a fetch")
	}
}

// TestBrowserHostile loads a page made from a bundle, a claim and a
// replay result with script and fetch payloads in every free-text field,
// then the same page with raw markup spliced in (as an escaping bug
// would): no script runs and nothing is fetched.
func TestBrowserHostile(t *testing.T) {
	srv := newHitCounter(t)
	_, pol := loadVectors(t)
	in := Input{Name: "hostile.dshaudit.tar.zst", Raw: hostileBundle(t, srv.URL), Verify: verifyOptions(pol), Claim: hostileClaim(srv.URL), Replay: hostileReplay(srv.URL)}
	_, html := render(t, in)

	dom := browse(t, writeFile(t, "hostile.html", html), "--dump-dom")
	if strings.Contains(dom, pwned+"=") {
		t.Error("an injected script ran")
	}
	if !strings.Contains(dom, "Evidence not verified") || !strings.Contains(dom, "document.documentElement.dataset.pwned") {
		t.Error("the page did not load with its payloads as text")
	}
	if hits := srv.take(); len(hits) > 0 {
		t.Errorf("the page made %d request(s): %v", len(hits), hits)
	}

	// Escaping alone holds: the same page without its policy.
	noCSP := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>`).ReplaceAllString(string(html), "")
	if noCSP == string(html) {
		t.Fatal("no policy found to remove")
	}
	dom = browse(t, writeFile(t, "nocsp.html", []byte(noCSP)), "--dump-dom")
	if strings.Contains(dom, pwned+"=") {
		t.Error("without the policy, an injected script ran: a payload was not escaped")
	}
	if hits := srv.take(); len(hits) > 0 {
		t.Errorf("without the policy, the page made %d request(s): a payload was not escaped: %v", len(hits), hits)
	}

	raw := `<img src="` + srv.URL + `/raw.png"><script>document.documentElement.dataset.pwned="raw"</script>` +
		`<script src="` + srv.URL + `/raw.js"></script><link rel="stylesheet" href="` + srv.URL + `/raw.css">` +
		`<iframe src="` + srv.URL + `/raw.html"></iframe><object data="` + srv.URL + `/raw.obj"></object>` +
		`<video src="` + srv.URL + `/raw.mp4" autoplay></video><form action="` + srv.URL + `/raw-form"></form>`
	spliced := strings.Replace(string(html), "</body>", raw+"</body>", 1)
	dom = browse(t, writeFile(t, "spliced.html", []byte(spliced)), "--dump-dom")
	if strings.Contains(dom, pwned+"=") {
		t.Error("the policy let an inline script run")
	}
	if hits := srv.take(); len(hits) > 0 {
		t.Errorf("the policy let the page make %d request(s): %v", len(hits), hits)
	}
}

var (
	domVerdict = regexp.MustCompile(`id="verdict-code" data-verified="(true|false)">([^<]*)<`)
	domHit     = regexp.MustCompile(`<mark class="l hit" id="([^"]+)" data-n="(\d+)">([^<]*)</mark>`)
)

// TestBrowserPages loads the boot_failed and pass pages, a page that
// fails verification and an index, and checks what the browser shows;
// with DSHAUDIT_UPDATE_SCREENSHOTS=1 it also rewrites docs/report-*.png.
func TestBrowserPages(t *testing.T) {
	srv := newHitCounter(t)
	vs, pol := loadVectors(t)
	update := os.Getenv("DSHAUDIT_UPDATE_SCREENSHOTS") == "1"

	var entries []Entry
	for _, v := range vs {
		p, _ := render(t, vectorInput(t, v.File, pol))
		entries = append(entries, EntryOf(p, v.Name+".html"))
	}

	for _, tc := range []struct{ vector, verified, verdict, firstError string }{
		{"boot_failed", "true", "boot_failed", "boom from apply"},
		{"pass", "true", "pass", ""},
		{"unstable", "true", "unstable", "exits-dsh: fatal: giving up"},
		{"edited_stdout", "false", "no verified verdict", ""},
		{"unsigned", "false", "no verified verdict", ""},
	} {
		t.Run(tc.vector, func(t *testing.T) {
			p, html := render(t, vectorInput(t, tc.vector+".dshaudit.tar.zst", pol))
			file := writeFile(t, tc.vector+".html", html)
			dom := browse(t, file, "--dump-dom")
			m := domVerdict.FindStringSubmatch(dom)
			if m == nil || m[1] != tc.verified || m[2] != tc.verdict {
				t.Fatalf("verdict shown %q, want data-verified=%s %q", m, tc.verified, tc.verdict)
			}
			if tc.verified == "false" {
				if i, j := strings.Index(dom, "Evidence not verified: "+p.Status), strings.Index(dom, "verdict-code"); i < 0 || i > j {
					t.Error("the browser does not show \"Evidence not verified\" first")
				}
				if strings.Contains(dom, `data-verified="true"`) {
					t.Error("a verdict is shown as verified")
				}
			}
			hits := domHit.FindAllStringSubmatch(dom, -1)
			if tc.firstError == "" && len(hits) > 0 {
				t.Errorf("highlighted lines on a page without first_error: %v", hits)
			}
			if tc.firstError != "" {
				if len(hits) == 0 {
					t.Fatal("no highlighted first_error line in the DOM")
				}
				if !strings.Contains(hits[0][3], tc.firstError) {
					t.Errorf("highlighted line is %q", hits[0][3])
				}
				if !strings.Contains(dom, `<a class="fe" href="#`+hits[0][1]+`">`) {
					t.Errorf("the summary does not link to %s", hits[0][1])
				}
				// The evidence file holding it is open.
				before := dom[:strings.Index(dom, hits[0][1]+`" data-n`)]
				if open := strings.LastIndex(before, `<details class="evidence"`); open < 0 || !strings.Contains(before[open:open+120], " open") {
					t.Error("the evidence holding first_error is not open")
				}
			}
			for _, width := range []int{1280, 390} {
				screenshot(t, html, docsShot[fmt.Sprint(tc.vector, width)], width, 1400, update)
			}
			if got := srv.take(); len(got) > 0 {
				t.Errorf("requests: %v", got)
			}
		})
	}

	t.Run("index", func(t *testing.T) {
		var b strings.Builder
		if err := WriteIndex(&b, NewIndex(entries)); err != nil {
			t.Fatal(err)
		}
		dom := browse(t, writeFile(t, "index.html", []byte(b.String())), "--dump-dom")
		if !strings.Contains(dom, `<svg id="chart"`) || !strings.Contains(dom, "<th scope=\"row\">boot_failed</th><td>3</td>") {
			t.Errorf("the index does not show the distribution")
		}
		for _, width := range []int{1280, 390} {
			screenshot(t, []byte(b.String()), docsShot[fmt.Sprint("index", width)], width, 1400, update)
		}
	})
}

// docsShot names the screenshots README shows (docs/report-*.png), by
// page and window width; the rest are taken and thrown away.
var docsShot = map[string]string{
	"pass1280":          "report-pass.png",
	"boot_failed1280":   "report-boot_failed.png",
	"boot_failed390":    "report-boot_failed-390.png",
	"unstable1280":      "report-unstable.png",
	"edited_stdout1280": "report-not-verified.png",
	"index1280":         "report-index.png",
	"index390":          "report-index-390.png",
}

// screenshot paints page in a viewport width px wide (framed: the
// window itself is at least 500 px) and checks that it painted; with
// update and a name, it writes docs/NAME.
func screenshot(t *testing.T, page []byte, name string, width, height int, update bool) {
	t.Helper()
	png := filepath.Join(t.TempDir(), "shot.png")
	if update && name != "" {
		png = filepath.Join("..", "docs", name)
	}
	browse(t, writeFile(t, "host.html", framed(page, width, height, false)), fmt.Sprintf("--window-size=%d,%d", width, height), "--screenshot="+png)
	if st, err := os.Stat(png); err != nil || st.Size() < 10000 {
		t.Errorf("screenshot %s at %d px: %v (%d bytes): the page did not paint", name, width, err, sizeOf(st))
	}
}

func sizeOf(st os.FileInfo) int64 {
	if st == nil {
		return 0
	}
	return st.Size()
}
