package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/claim"
)

var headlineRe = regexp.MustCompile(`<div class="headline k-([a-z-]+)" id="verification-status"[^>]*>\n<p class="hl"><span class="hl-icon" aria-hidden="true">[^<]*</span> <span class="hl-ev">([^<]*)</span> <span class="hl-sep" aria-hidden="true">·</span> <span class="hl-verdict">verdict <strong class="hl-code">([^<]*)</strong>`)

var verdictRe = regexp.MustCompile(`<p class="verdict[^"]*" id="verdict-code" data-verified="(true|false)">([^<]*)</p>`)

// TestVectorPages renders every test vector and checks the top of the
// page against the vector's expected status and verdict: a verified
// vector shows its verdict as verified, any other says "Not verified"
// before anything else and shows no verdict as verified.
func TestVectorPages(t *testing.T) {
	vs, pol := loadVectors(t)
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			p, html := render(t, vectorInput(t, v.File, pol))
			s := string(html)
			m := verdictRe.FindStringSubmatch(s)
			if m == nil {
				t.Fatal("no verdict element")
			}
			if v.Status == "verified" {
				if !p.Verified || m[1] != "true" {
					t.Fatalf("verified vector shown as data-verified=%s", m[1])
				}
				want := v.Verdict
				if want == "" {
					want = "static only"
				}
				if m[2] != want {
					t.Errorf("verdict shown %q, want %q", m[2], want)
				}
				head := headlineRe.FindStringSubmatch(s)
				if head == nil || head[2] != "Evidence verified" || head[3] != want || head[1] != p.Headline.Kind {
					t.Errorf("headline %q, want kind %s, \"Evidence verified\" and verdict %q", head, p.Headline.Kind, want)
				}
				if strings.Contains(s, "not verified") {
					t.Error("a verified page says not verified")
				}
				if strings.Contains(s, "badge unverified") {
					t.Error("a verified page labels something unverified")
				}
				return
			}
			if p.Verified || m[1] != "false" || strings.Contains(s, `data-verified="true"`) {
				t.Fatalf("a %s vector shows a verified verdict", v.Status)
			}
			banner := strings.Index(s, `<span class="hl-ev">Evidence not verified: `+v.Status+`</span>`)
			if banner < 0 || banner > strings.Index(s, `id="verdict-code"`) || banner > strings.Index(s, "<h1>") || p.Headline.Kind != KindNotVerified {
				t.Errorf("the page does not say %q first", "Evidence not verified: "+v.Status)
			}
			if !strings.Contains(s, `<span class="hl-verdict">no verified verdict</span>`) {
				t.Error("the headline of a page that did not verify names a verdict")
			}
			for _, c := range v.Classes {
				if !strings.Contains(s, "<th scope=\"row\">"+c+"</th>") {
					t.Errorf("finding class %s not listed", c)
				}
			}
			captions := regexp.MustCompile(`<caption>Repetition [^\n]*</caption>`).FindAllString(s, -1)
			for _, c := range captions {
				if !strings.Contains(c, `<span class="badge unverified">unverified</span>`) {
					t.Errorf("repetition verdict not labelled unverified: %s", c)
				}
			}
			if strings.Contains(s, "The declaration this verified result supports") {
				t.Error("a declaration is shown for a bundle that did not verify")
			}
		})
	}
}

// TestFirstErrorHighlighted: the boot_failed page marks the T4
// first_error line in the merged output and links it from the summary.
func TestFirstErrorHighlighted(t *testing.T) {
	_, pol := loadVectors(t)
	p, html := render(t, vectorInput(t, "boot_failed.dshaudit.tar.zst", pol))
	s := string(html)
	if len(p.Verdict.FirstErrors) != 2 {
		t.Fatalf("%d first errors, want 2 (one per repetition)", len(p.Verdict.FirstErrors))
	}
	for _, fe := range p.Verdict.FirstErrors {
		if fe.Anchor == "" {
			t.Fatalf("repetition %d %s: first_error line not found", fe.Repetition, fe.Stage)
		}
		if !strings.Contains(s, `<a class="fe" href="#`+fe.Anchor+`">`) {
			t.Errorf("summary does not link %s", fe.Anchor)
		}
		mark := regexp.MustCompile(`<mark class="l hit" id="` + regexp.QuoteMeta(fe.Anchor) + `" data-n="\d+">([^<]*)</mark>`).FindStringSubmatch(s)
		if mark == nil {
			t.Fatalf("no highlighted line %s", fe.Anchor)
		}
		if !strings.Contains(mark[1], "boom from apply") {
			t.Errorf("highlighted line is %q", mark[1])
		}
	}
	if !strings.HasPrefix(p.Verdict.FirstErrors[0].Anchor, p.Repetitions[0].Stages[3].ID) {
		t.Errorf("anchor %s is not in repetition 1 T4", p.Verdict.FirstErrors[0].Anchor)
	}
}

// TestDeterministic: the same bundle and flags give the same bytes.
func TestDeterministic(t *testing.T) {
	vs, pol := loadVectors(t)
	var entries []Entry
	for _, v := range vs {
		in := vectorInput(t, v.File, pol)
		p, a := render(t, in)
		_, b := render(t, in)
		if !bytes.Equal(a, b) {
			t.Fatalf("%s: two renders differ", v.Name)
		}
		entries = append(entries, EntryOf(p, v.Name+".html"))
	}
	var a, b bytes.Buffer
	if err := WriteIndex(&a, NewIndex(entries)); err != nil {
		t.Fatal(err)
	}
	if err := WriteIndex(&b, NewIndex(entries)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two index renders differ")
	}
}

// TestCSP: every page carries the policy, and the policy's style hash is
// that of the <style> element as written (a template that altered the
// sheet would leave the page unstyled).
func TestCSP(t *testing.T) {
	_, pol := loadVectors(t)
	_, page := render(t, vectorInput(t, "pass.dshaudit.tar.zst", pol))
	s := html.UnescapeString(string(page))
	for _, want := range []string{"default-src 'none'", "base-uri 'none'", "form-action 'none'"} {
		if !strings.Contains(s, want) {
			t.Errorf("CSP lacks %s", want)
		}
	}
	m := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(s)
	if m == nil {
		t.Fatal("no <style>")
	}
	sum := sha256.Sum256([]byte(m[1]))
	if h := "sha256-" + base64.StdEncoding.EncodeToString(sum[:]); !strings.Contains(s, h) {
		t.Errorf("CSP does not allow the page's own style (%s)", h)
	}
	for _, banned := range []string{"<script", "<link", "<img", "<iframe", "src=", `href="http`, " style=\""} {
		if strings.Contains(s, banned) {
			t.Errorf("page contains %q", banned)
		}
	}
}

// TestHostileEscaped: payloads in every free-text field come out as
// text: no tag or attribute of theirs survives in the markup.
func TestHostileEscaped(t *testing.T) {
	_, pol := loadVectors(t)
	base := "http://127.0.0.1:9"
	in := Input{Name: "hostile.dshaudit.tar.zst", Raw: hostileBundle(t, base), Verify: verifyOptions(pol), Claim: hostileClaim(base), Replay: hostileReplay(base)}
	p, html := render(t, in)
	s := strings.ReplaceAll(string(html), "<wbr>", "") // the report's own break points
	if p.Verified {
		t.Fatal("the hostile bundle verified")
	}
	for _, bad := range []string{"<script", "<img", "<iframe", "<link", "<style>@import", `<a href="javascript`, "\x1b"} {
		if strings.Contains(s, bad) {
			t.Errorf("unescaped %q in the page", bad)
		}
	}
	// Every field's payload is on the page, as text.
	for _, tag := range []string{"version", "spec", "integrity", "image", "digest", "fingerprint", "baseline", "date", "tool",
		"condname", "condvalue", "what", "changedto", "why", "argv", "network", "role", "stage", "evidence-T4-merged", "ansi",
		"claimname", "outcome", "rowstage", "difference", "diff", "changed", "writtenpath"} {
		if !strings.Contains(s, "dataset.pwned=&#34;"+tag+"&#34;") {
			t.Errorf("payload %q is not shown as text", tag)
		}
	}
}

func TestClaimAndReplay(t *testing.T) {
	_, pol := loadVectors(t)
	in := vectorInput(t, "pass.dshaudit.tar.zst", pol)
	p0, _ := render(t, in)
	in.Claim = &ClaimInput{Name: "README.md", Text: []byte("# hello\n\n" + p0.Declaration)}
	in.Replay = []byte(`{"media_type":"` + ReplayMediaType + `","outcome":"reproduced","original_sha256":"` + p0.BundleSHA256 +
		`","comparison":{"outcome":"reproduced","old_verdict":"pass","new_verdict":"pass","fingerprints_equal":true,"stages":[{"repetition":1,"stage":"T1","old_status":"passed","new_status":"passed","old_exit_code":0,"new_exit_code":0,"same":true}]}}`)
	p, html := render(t, in)
	s := string(html)
	if p.Claim == nil || p.Claim.Result.Outcome != claim.Backed {
		t.Fatalf("claim outcome %+v", p.Claim)
	}
	if !strings.Contains(s, `<strong>claim backed</strong>`) {
		t.Error("claim outcome not shown")
	}
	if p.Replay == nil || !p.Replay.ForThisBundle || !strings.Contains(s, `<strong id="replay-outcome">REPRODUCED</strong>`) {
		t.Error("replay not shown as this bundle's")
	}
	in.Replay = []byte(`{"media_type":"something/else"}`)
	if _, err := Build(t.Context(), in); err == nil {
		t.Error("a non-replay file was accepted")
	}
}

func TestEvidenceBlocks(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 100; i++ {
		if i == 50 {
			b.WriteString("  Error: boom  \n")
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	ev := evidenceReader{files: map[string][]byte{"f": []byte(b.String())}, untrusted: map[string]bool{}, sizes: map[string]int64{}}
	shape := func(e Evidence) string {
		var out []string
		for _, b := range e.Blocks {
			hit := ""
			for _, l := range b.Lines {
				if l.Hit {
					hit = fmt.Sprintf(" hit %d", l.N)
				}
			}
			out = append(out, fmt.Sprintf("%v %d-%d+%d%s", b.Open, b.From, b.To, b.Omitted, hit))
		}
		return strings.Join(out, "; ")
	}
	for _, c := range []struct {
		maxLines, ctx int
		firstError    string
		want          string
	}{
		{1000, 5, "Error: boom", "false 1-44+0; true 45-55+0 hit 50; false 56-100+0"},
		{1000, 5, "", "true 1-100+0"},
		{1000, 60, "Error: boom", "true 1-100+0 hit 50"},
		// The lines around first_error are shown whatever the budget;
		// the budget goes to the lines before, then after.
		{20, 5, "Error: boom", "false 1-20+24; true 45-55+0 hit 50; false 56-55+45"},
		{50, 5, "Error: b…", "false 1-44+0; true 45-55+0 hit 50; false 56-61+39"},
		{100, 5, "Error: boom", "false 1-44+0; true 45-55+0 hit 50; false 56-100+0"},
		{10, 5, "", "true 1-10+90"},
	} {
		ev.lay = Layout{MaxLines: c.maxLines, Context: c.ctx}
		if got := shape(ev.file("x", "merged", "merged", "f", c.firstError)); got != c.want {
			t.Errorf("max %d, context %d, %q:\n got %s\nwant %s", c.maxLines, c.ctx, c.firstError, got, c.want)
		}
	}
}

// TestHeadlineKinds: the five outcomes a reader must tell apart at a
// glance get five kinds (five looks), and the verdict is in the
// headline beside the verification.
func TestHeadlineKinds(t *testing.T) {
	_, pol := loadVectors(t)
	kinds := map[string]string{}
	for name, want := range map[string]string{
		"pass":           KindNotUsable, // the vectors' pass declares deviations
		"boot_failed":    KindFailed,
		"install_failed": KindFailed,
		"unstable":       KindUnstable,
		"static_only":    KindStatic,
		"edited_stdout":  KindNotVerified,
		"unsigned":       KindNotVerified,
	} {
		p, _ := render(t, vectorInput(t, name+".dshaudit.tar.zst", pol))
		if p.Headline.Kind != want {
			t.Errorf("%s: headline kind %q, want %q (%+v)", name, p.Headline.Kind, want, p.Headline)
		}
		kinds[p.Headline.Kind] = p.Headline.Icon
	}
	// A verified, usable pass: the same page without the reasons.
	p, _ := render(t, vectorInput(t, "pass.dshaudit.tar.zst", pol))
	p.Verdict.Usable, p.Verdict.NotUsable = true, nil
	if h := headline(p); h.Kind != KindPass || h.Verdict != "pass" {
		t.Errorf("usable pass: %+v", h)
	} else {
		kinds[h.Kind] = h.Icon
	}
	icons := map[string]bool{}
	for _, icon := range kinds {
		icons[icon] = true
	}
	if len(kinds) != 6 || len(icons) != 6 {
		t.Errorf("kinds %v: want six kinds with six icons", kinds)
	}
	css := string(style)
	for k := range kinds {
		if !strings.Contains(css, ".k-"+k+"{") {
			t.Errorf("no style for headline kind %s", k)
		}
	}
}

// TestPageNotes: a T0 table with no clause says why, and a T4 exit code
// of a process the observer stopped says so.
func TestPageNotes(t *testing.T) {
	_, pol := loadVectors(t)
	_, page := render(t, vectorInput(t, "lie_unresolvable_read.dshaudit.tar.zst", pol))
	if s := string(page); !strings.Contains(s, `<p class="note" id="t0-none">No clause was evaluated: the package metadata could not be judged (package metadata unresolvable: package.json could not be fetched)`) || strings.Contains(s, `id="t0-clauses"`) {
		t.Error("an unresolvable T0 shows an empty table, or does not say why")
	}
	const note = "the observer stopped it at the end of the window; the exit code is not read"
	p, page := render(t, vectorInput(t, "pass.dshaudit.tar.zst", pol))
	if t4 := p.Repetitions[0].Stages[3]; t4.ExitCode != "137" || t4.ExitNote != note || !strings.Contains(string(page), `137<span class="note">`+note+`</span>`) {
		t.Errorf("pass T4: exit %s, note %q", t4.ExitCode, t4.ExitNote)
	}
	if p, _ := render(t, vectorInput(t, "boot_failed.dshaudit.tar.zst", pol)); p.Repetitions[0].Stages[3].ExitNote != "" {
		t.Error("a T4 that exited by itself has the observer's note")
	}
}
