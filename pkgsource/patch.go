package pkgsource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// DefaultCDNTemplates are the public CDNs DSHIO/T 10 5.1.2 names (unpkg,
// jsdelivr, npmmirror), tried in this order. {name}, {version} and
// {path} are replaced; {path} is URL-escaped segment by segment.
var DefaultCDNTemplates = []string{
	"https://unpkg.com/{name}@{version}/{path}",
	"https://cdn.jsdelivr.net/npm/{name}@{version}/{path}",
	"https://registry.npmmirror.com/{name}/{version}/files/{path}",
}

// DeclaredPatch reads $.dsh.bundle.patch from package.json bytes. ok is
// false when the field is absent, not a string or empty (DSHIO/T 10
// 5.1.1 then fails; the static rules say so, not this package); why says
// which in words.
func DeclaredPatch(pkgJSON []byte) (value string, ok bool, why string) {
	if err := checkJSON(pkgJSON); err != nil {
		return "", false, "package.json cannot be read as npm reads it: " + err.Error()
	}
	var top, dsh, bundle map[string]json.RawMessage
	if json.Unmarshal(pkgJSON, &top) != nil || top == nil {
		return "", false, "package.json is not a JSON object"
	}
	raw, found := top["dsh"]
	if !found {
		return "", false, "package.json has no dsh field"
	}
	if json.Unmarshal(raw, &dsh) != nil || dsh == nil {
		return "", false, "dsh is not an object"
	}
	if raw, found = dsh["bundle"]; !found {
		return "", false, "package.json has no dsh.bundle field"
	}
	if json.Unmarshal(raw, &bundle) != nil || bundle == nil {
		return "", false, "dsh.bundle is not an object"
	}
	if raw, found = bundle["patch"]; !found {
		return "", false, "package.json has no dsh.bundle.patch field"
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false, "dsh.bundle.patch is not a string"
	}
	if s == "" {
		return "", false, "dsh.bundle.patch is empty"
	}
	return s, true, ""
}

// expandCDN fills a CDN template.
func expandCDN(tmpl, name, version, rel string) (string, error) {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	u := strings.NewReplacer("{name}", name, "{version}", url.PathEscape(version), "{path}", strings.Join(segs, "/")).Replace(tmpl)
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "https" && pu.Scheme != "http") || pu.Host == "" {
		return "", fmt.Errorf("CDN template %q does not give an http(s) URL", tmpl)
	}
	return u, nil
}

// ValidateCDNTemplate checks a template names {name}, {version} and
// {path} and expands to an http(s) URL.
func ValidateCDNTemplate(tmpl string) error {
	for _, ph := range []string{"{name}", "{version}", "{path}"} {
		if !strings.Contains(tmpl, ph) {
			return fmt.Errorf("CDN template %q lacks %s", tmpl, ph)
		}
	}
	_, err := expandCDN(tmpl, "x", "1.0.0", "p")
	return err
}

// CDNAttempt is one CDN's answer for the patch file.
type CDNAttempt struct {
	URL string `json:"url"`
	// Outcome is "ok", "empty", "HTTP 404", "unreachable: …" or
	// "refused: …" (too large).
	Outcome string `json:"outcome"`
	Body    []byte `json:"-"`
}

// Answered is true when the CDN gave an HTTP answer.
func (a CDNAttempt) Answered() bool {
	return !strings.HasPrefix(a.Outcome, "unreachable")
}

// FetchFromCDNs GETs the patch from every template at once, each with
// its own timeout, and returns the attempts in template order.
func FetchFromCDNs(ctx context.Context, client *http.Client, templates []string, name, version, rel string, timeout time.Duration, limit int64) []CDNAttempt {
	out := make([]CDNAttempt, len(templates))
	var wg sync.WaitGroup
	for i, t := range templates {
		u, err := expandCDN(t, name, version, rel)
		if err != nil {
			out[i] = CDNAttempt{URL: t, Outcome: "refused: " + err.Error()}
			continue
		}
		wg.Add(1)
		go func(i int, u string) {
			defer wg.Done()
			out[i] = cdnGet(ctx, client, u, timeout, limit)
		}(i, u)
	}
	wg.Wait()
	return out
}

func cdnGet(ctx context.Context, client *http.Client, u string, timeout time.Duration, limit int64) CDNAttempt {
	res, err := getBounded(ctx, client, u, "", limit, timeout)
	var te *transportError
	switch {
	case errors.As(err, &te):
		return CDNAttempt{URL: u, Outcome: "unreachable: " + te.Class()}
	case err != nil:
		return CDNAttempt{URL: u, Outcome: "refused: " + err.Error()}
	case res.Status != http.StatusOK:
		return CDNAttempt{URL: u, Outcome: fmt.Sprintf("HTTP %d", res.Status)}
	case len(res.Body) == 0:
		return CDNAttempt{URL: u, Outcome: "empty", Body: []byte{}}
	default:
		return CDNAttempt{URL: u, Outcome: "ok", Body: res.Body}
	}
}

// summarizeAttempts renders attempts as "host: outcome; …".
func summarizeAttempts(as []CDNAttempt) string {
	parts := make([]string, 0, len(as))
	for _, a := range as {
		host := a.URL
		if pu, err := url.Parse(a.URL); err == nil && pu.Host != "" {
			host = pu.Host
		}
		parts = append(parts, host+": "+a.Outcome)
	}
	return strings.Join(parts, "; ")
}
