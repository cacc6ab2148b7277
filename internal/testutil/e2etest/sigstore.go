package e2etest

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Sigstore is the set of real Sigstore services scripts/setup-sigstore.sh
// runs on loopback (Fulcio, the timestamp authority, Rekor v2, an OIDC
// issuer), as its sigstore.env describes them.
type Sigstore struct {
	// Issuer is the OIDC issuer URL; TokenURL mints tokens, ActionsURL
	// and ActionsToken emulate the GitHub Actions token request.
	Issuer, TokenURL, ActionsURL, ActionsToken string
	FulcioURL, TSAURL, RekorURL                string
	// TrustedRoot and SigningConfig are the files written for them.
	TrustedRoot, SigningConfig string
	// Cosign is the cosign the script installed.
	Cosign string
	// Versions names the services' versions.
	Versions string
}

// SigstoreEnv is the file scripts/setup-sigstore.sh start writes.
func SigstoreEnv() string { return filepath.Join(CacheDir(), "sigstore", "run", "sigstore.env") }

// RequireSigstore marks t as an end-to-end test needing the Sigstore
// services: without DSHAUDIT_E2E it skips; with it, services that are not
// running fail t, saying how to start them.
func RequireSigstore(t testing.TB) *Sigstore {
	t.Helper()
	Require(t)
	s, err := readSigstoreEnv(SigstoreEnv())
	if err != nil {
		t.Fatalf("keyless end-to-end tests need the Sigstore services: run scripts/setup-sigstore.sh start (scripts/test.sh does): %v", err)
	}
	client := &http.Client{Timeout: 5 * time.Second}
	for _, u := range []string{s.Issuer + "/.well-known/openid-configuration", s.FulcioURL + "/api/v2/trustBundle", strings.TrimSuffix(s.TSAURL, "/api/v1/timestamp") + "/ping", s.RekorURL + "/healthz"} {
		resp, err := client.Get(u)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("status %s", resp.Status)
			}
		}
		if err != nil {
			t.Fatalf("Sigstore service %s is not answering (scripts/setup-sigstore.sh start): %v", u, err)
		}
	}
	return s
}

func readSigstoreEnv(path string) (*Sigstore, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	vals := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			vals[strings.TrimPrefix(k, "DSHAUDIT_SIGSTORE_")] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	s := &Sigstore{
		Issuer: vals["OIDC_ISSUER"], TokenURL: vals["TOKEN_URL"], ActionsURL: vals["ACTIONS_URL"], ActionsToken: vals["ACTIONS_TOKEN"],
		FulcioURL: vals["FULCIO_URL"], TSAURL: vals["TSA_URL"], RekorURL: vals["REKOR_URL"],
		TrustedRoot: vals["TRUSTED_ROOT"], SigningConfig: vals["SIGNING_CONFIG"], Cosign: vals["COSIGN"], Versions: vals["VERSIONS"],
	}
	for k, v := range map[string]string{"OIDC_ISSUER": s.Issuer, "FULCIO_URL": s.FulcioURL, "TSA_URL": s.TSAURL, "REKOR_URL": s.RekorURL, "TRUSTED_ROOT": s.TrustedRoot, "SIGNING_CONFIG": s.SigningConfig, "COSIGN": s.Cosign} {
		if v == "" {
			return nil, fmt.Errorf("%s: no DSHAUDIT_SIGSTORE_%s", path, k)
		}
	}
	return s, nil
}

// Token mints an ID token from the test OIDC issuer, with the default
// GitHub-Actions-shaped claims overridden by claims (e.g. "ref",
// "job_workflow_ref").
func (s *Sigstore) Token(t testing.TB, claims map[string]string) string {
	t.Helper()
	q := url.Values{}
	for k, v := range claims {
		q.Set(k, v)
	}
	resp, err := http.Get(s.TokenURL + "?" + q.Encode())
	if err != nil {
		t.Fatalf("OIDC token: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("OIDC token: %v %s %q", err, resp.Status, b)
	}
	return string(b)
}

// TokenFile writes a token to a file in a test directory.
func (s *Sigstore) TokenFile(t testing.TB, claims map[string]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "oidc-token")
	if err := os.WriteFile(p, []byte(s.Token(t, claims)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// The identity and issuer a default token gets from Fulcio.
const (
	DefaultIdentity = "https://github.com/dshaudit-e2e/hello-plugin/.github/workflows/release.yml@refs/tags/v1.0.0"
)
