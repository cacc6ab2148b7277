package attest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Where an OIDC identity token comes from (SPEC.md "Signing").
const (
	// IDTokenEnv holds the token itself, as cosign and sigstore-python
	// read it.
	IDTokenEnv = "SIGSTORE_ID_TOKEN"
	// ActionsRequestURLEnv and ActionsRequestTokenEnv are what GitHub
	// Actions sets in a job with "permissions: id-token: write".
	ActionsRequestURLEnv   = "ACTIONS_ID_TOKEN_REQUEST_URL"
	ActionsRequestTokenEnv = "ACTIONS_ID_TOKEN_REQUEST_TOKEN"
	// IDTokenAudience is the audience Fulcio accepts.
	IDTokenAudience = "sigstore"
)

// maxIDTokenSize bounds a token file or answer; real tokens are 1–3 KiB.
const maxIDTokenSize = 64 << 10

// IDTokenSource says how IDToken got the token, for messages: "file F",
// "$SIGSTORE_ID_TOKEN" or "GitHub Actions".
type IDTokenSource string

// IDToken finds the OIDC identity token: the file given, else
// $SIGSTORE_ID_TOKEN, else the GitHub Actions token request
// ($ACTIONS_ID_TOKEN_REQUEST_URL with bearer
// $ACTIONS_ID_TOKEN_REQUEST_TOKEN, audience sigstore). getenv is
// os.Getenv in the program. None of them is ErrKeylessConfig; a failed
// request to GitHub is ErrKeyless.
func IDToken(ctx context.Context, file string, getenv func(string) string, client *http.Client) (string, IDTokenSource, error) {
	if file != "" {
		b, err := readBounded(file, maxIDTokenSize)
		if err != nil {
			return "", "", fmt.Errorf("%w: --identity-token: %w", ErrKeylessConfig, err)
		}
		tok, err := checkJWT(string(b))
		if err != nil {
			return "", "", fmt.Errorf("%w: --identity-token %s: %w", ErrKeylessConfig, file, err)
		}
		return tok, IDTokenSource("file " + file), nil
	}
	if v := getenv(IDTokenEnv); v != "" {
		tok, err := checkJWT(v)
		if err != nil {
			return "", "", fmt.Errorf("%w: $%s: %w", ErrKeylessConfig, IDTokenEnv, err)
		}
		return tok, "$" + IDTokenEnv, nil
	}
	reqURL, reqTok := getenv(ActionsRequestURLEnv), getenv(ActionsRequestTokenEnv)
	if reqURL == "" || reqTok == "" {
		return "", "", fmt.Errorf("%w: no OIDC identity token: give --identity-token FILE, set $%s, or run in GitHub Actions with permissions id-token: write ($%s and $%s)",
			ErrKeylessConfig, IDTokenEnv, ActionsRequestURLEnv, ActionsRequestTokenEnv)
	}
	tok, err := actionsToken(ctx, reqURL, reqTok, client)
	if err != nil {
		return "", "", err
	}
	return tok, "GitHub Actions", nil
}

// actionsToken is GitHub's documented token request: GET the request URL
// with audience added, bearer the request token; the answer is
// {"value": "<JWT>"}.
func actionsToken(ctx context.Context, reqURL, reqTok string, client *http.Client) (string, error) {
	u, err := url.Parse(reqURL)
	if err != nil {
		return "", fmt.Errorf("%w: $%s: %w", ErrKeylessConfig, ActionsRequestURLEnv, err)
	}
	q := u.Query()
	q.Set("audience", IDTokenAudience)
	u.RawQuery = q.Encode()
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", fmt.Errorf("%w: $%s: %w", ErrKeylessConfig, ActionsRequestURLEnv, err)
	}
	req.Header.Set("Authorization", "bearer "+reqTok)
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("%w: GitHub Actions token request: %w", ErrKeyless, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxIDTokenSize+1))
	if err != nil {
		return "", fmt.Errorf("%w: GitHub Actions token request: %w", ErrKeyless, err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%w: GitHub Actions token request: %s", ErrKeyless, resp.Status)
	}
	if len(body) > maxIDTokenSize {
		return "", fmt.Errorf("%w: GitHub Actions token request: answer larger than %d bytes", ErrKeyless, maxIDTokenSize)
	}
	var v struct {
		Value string `json:"value"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return "", fmt.Errorf("%w: GitHub Actions token request: answer is not {\"value\": …}: %w", ErrKeyless, err)
	}
	tok, err := checkJWT(v.Value)
	if err != nil {
		return "", fmt.Errorf("%w: GitHub Actions token request: %w", ErrKeyless, err)
	}
	return tok, nil
}

// checkJWT trims s and checks it has the three dot-separated parts of a
// compact JWS; Fulcio checks everything else.
func checkJWT(s string) (string, error) {
	s = strings.TrimSpace(s)
	if strings.Count(s, ".") != 2 || strings.ContainsAny(s, " \t\r\n") {
		return "", fmt.Errorf("not a JWT (want three base64url parts separated by dots)")
	}
	return s, nil
}
