package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"time"
)

// issuer signs ES256 ID tokens with a key made at start.
type issuer struct {
	url    string
	key    *ecdsa.PrivateKey
	kid    string
	secret string
}

// Defaults are a tag push's release workflow in GitHub Actions, as
// GitHub's token holds them (docs "About security hardening with OpenID
// Connect"). Every one can be overridden by a query parameter.
var defaultClaims = map[string]string{
	"repository":            "dshaudit-e2e/hello-plugin",
	"repository_owner":      "dshaudit-e2e",
	"repository_id":         "100001",
	"repository_owner_id":   "100000",
	"repository_visibility": "public",
	"ref":                   "refs/tags/v1.0.0",
	"ref_type":              "tag",
	"sha":                   "0123456789abcdef0123456789abcdef01234567",
	"workflow":              "release",
	"workflow_ref":          "dshaudit-e2e/hello-plugin/.github/workflows/release.yml@refs/tags/v1.0.0",
	"workflow_sha":          "0123456789abcdef0123456789abcdef01234567",
	"job_workflow_ref":      "dshaudit-e2e/hello-plugin/.github/workflows/release.yml@refs/tags/v1.0.0",
	"job_workflow_sha":      "0123456789abcdef0123456789abcdef01234567",
	"event_name":            "push",
	"run_id":                "4242",
	"run_attempt":           "1",
	"run_number":            "7",
	"runner_environment":    "github-hosted",
	"actor":                 "release-bot",
	"sub":                   "repo:dshaudit-e2e/hello-plugin:ref:refs/tags/v1.0.0",
}

func runOIDC(args []string) error {
	fs := flag.NewFlagSet("oidc", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address (loopback)")
	secret := fs.String("actions-secret", "", "bearer token GET /actions requires (empty: /actions disabled)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-addr %q: want a loopback IP address", *addr)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	der, _ := key.PublicKey.ECDH()
	sum := sha256.Sum256(der.Bytes())
	is := &issuer{url: "http://" + ln.Addr().String(), key: key, kid: base64.RawURLEncoding.EncodeToString(sum[:8]), secret: *secret}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", is.discovery)
	mux.HandleFunc("GET /jwks", is.jwks)
	mux.HandleFunc("GET /token", is.token)
	mux.HandleFunc("GET /actions", is.actions)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	fmt.Fprintf(os.Stderr, "sigstore-e2e oidc: issuer %s\n", is.url)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	return srv.Serve(ln)
}

func (is *issuer) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{
		"issuer":                                is.url,
		"jwks_uri":                              is.url + "/jwks",
		"token_endpoint":                        is.url + "/token",
		"response_types_supported":              []string{"id_token"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"ES256"},
		"claims_supported":                      claimNames(),
	})
}

func claimNames() []string {
	out := []string{"iss", "aud", "exp", "iat", "nbf", "jti"}
	for k := range defaultClaims {
		out = append(out, k)
	}
	return out
}

func (is *issuer) jwks(w http.ResponseWriter, _ *http.Request) {
	pad := func(b *big.Int) string { return base64.RawURLEncoding.EncodeToString(b.FillBytes(make([]byte, 32))) }
	writeJSON(w, map[string]any{"keys": []map[string]string{{
		"kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": is.kid,
		"x": pad(is.key.X), "y": pad(is.key.Y),
	}}})
}

// token answers GET /token?CLAIM=VALUE…: a signed ID token, the default
// claims overridden by the query; aud defaults to sigstore, ttl (a Go
// duration, default 10m) sets exp, and iat_offset (a Go duration) moves
// iat, nbf and exp.
func (is *issuer) token(w http.ResponseWriter, r *http.Request) {
	tok, err := is.mint(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/jwt")
	fmt.Fprint(w, tok)
}

// actions is the GitHub Actions token request: bearer secret, audience
// from the query, the answer {"value": JWT}.
func (is *issuer) actions(w http.ResponseWriter, r *http.Request) {
	if is.secret == "" || r.Header.Get("Authorization") != "bearer "+is.secret && r.Header.Get("Authorization") != "Bearer "+is.secret {
		http.Error(w, "bad bearer token", http.StatusUnauthorized)
		return
	}
	q := r.URL.Query()
	q.Set("aud", q.Get("audience"))
	q.Del("audience")
	q.Del("api-version")
	r.URL.RawQuery = q.Encode()
	tok, err := is.mint(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	writeJSON(w, map[string]string{"value": tok})
}

func (is *issuer) mint(r *http.Request) (string, error) {
	q := r.URL.Query()
	ttl, offset := 10*time.Minute, time.Duration(0)
	var err error
	if v := q.Get("ttl"); v != "" {
		if ttl, err = time.ParseDuration(v); err != nil {
			return "", fmt.Errorf("ttl: %w", err)
		}
	}
	if v := q.Get("iat_offset"); v != "" {
		if offset, err = time.ParseDuration(v); err != nil {
			return "", fmt.Errorf("iat_offset: %w", err)
		}
	}
	now := time.Now().Add(offset)
	claims := map[string]any{
		"iss": is.url, "aud": "sigstore",
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(ttl).Unix(),
		"jti": fmt.Sprintf("%d", time.Now().UnixNano()),
	}
	for k, v := range defaultClaims {
		claims[k] = v
	}
	for k, vs := range q {
		if k == "ttl" || k == "iat_offset" {
			continue
		}
		claims[k] = vs[0]
	}
	if claims["aud"] == "" {
		return "", fmt.Errorf("empty audience")
	}
	return is.sign(claims)
}

func (is *issuer) sign(claims map[string]any) (string, error) {
	hdr, _ := json.Marshal(map[string]string{"alg": "ES256", "typ": "JWT", "kid": is.kid})
	body, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	input := base64.RawURLEncoding.EncodeToString(hdr) + "." + base64.RawURLEncoding.EncodeToString(body)
	digest := sha256.Sum256([]byte(input))
	rr, ss, err := ecdsa.Sign(rand.Reader, is.key, digest[:])
	if err != nil {
		return "", err
	}
	sig := append(rr.FillBytes(make([]byte, 32)), ss.FillBytes(make([]byte, 32))...)
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
