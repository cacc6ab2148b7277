package attest_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshaudit/dshaudit/attest"
)

const fakeJWT = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestIDTokenSources(t *testing.T) {
	var gotAuth, gotAud string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth, gotAud = r.Header.Get("Authorization"), r.URL.Query().Get("audience")
		if r.URL.Query().Get("api-version") != "2.0" {
			http.Error(w, "api-version lost", 400)
			return
		}
		w.Write([]byte(`{"count":1,"value":"` + fakeJWT + `"}`))
	}))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "tok")
	os.WriteFile(file, []byte("  "+fakeJWT+"\n"), 0o600)
	actions := map[string]string{attest.ActionsRequestURLEnv: srv.URL + "/token?api-version=2.0", attest.ActionsRequestTokenEnv: "req-secret"}
	both := map[string]string{attest.IDTokenEnv: fakeJWT + "\n"}
	for k, v := range actions {
		both[k] = v
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		file string
		env  map[string]string
		src  attest.IDTokenSource
	}{
		{"file first", file, both, attest.IDTokenSource("file " + file)},
		{"env before actions", "", both, "$" + attest.IDTokenEnv},
		{"actions", "", actions, "GitHub Actions"},
	} {
		tok, src, err := attest.IDToken(ctx, tc.file, envOf(tc.env), nil)
		if err != nil || tok != fakeJWT || src != tc.src {
			t.Errorf("%s: %q from %q, %v; want the token from %q", tc.name, tok, src, err, tc.src)
		}
	}
	if gotAuth != "bearer req-secret" || gotAud != attest.IDTokenAudience {
		t.Errorf("token request: Authorization %q audience %q", gotAuth, gotAud)
	}
}

func TestIDTokenErrors(t *testing.T) {
	ctx := context.Background()
	bad := filepath.Join(t.TempDir(), "tok")
	os.WriteFile(bad, []byte("not a token"), 0o600)
	for _, tc := range []struct {
		name string
		file string
		env  map[string]string
		want error
		text string
	}{
		{"none", "", nil, attest.ErrKeylessConfig, "no OIDC identity token"},
		{"missing file", "/nonexistent/tok", nil, attest.ErrKeylessConfig, "/nonexistent/tok"},
		{"not a JWT", bad, nil, attest.ErrKeylessConfig, "not a JWT"},
		{"env not a JWT", "", map[string]string{attest.IDTokenEnv: "x y"}, attest.ErrKeylessConfig, attest.IDTokenEnv},
		{"request URL without token", "", map[string]string{attest.ActionsRequestURLEnv: "http://127.0.0.1:1/"}, attest.ErrKeylessConfig, attest.ActionsRequestTokenEnv},
		{"unreachable", "", map[string]string{attest.ActionsRequestURLEnv: "http://127.0.0.1:1/", attest.ActionsRequestTokenEnv: "s"}, attest.ErrKeyless, "token request"},
	} {
		_, _, err := attest.IDToken(ctx, tc.file, envOf(tc.env), nil)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: %v, want %v naming %q", tc.name, err, tc.want, tc.text)
		}
	}
	for _, body := range []string{`{"value":"x"}`, `[]`, strings.Repeat("a", 70<<10)} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(body)) }))
		_, _, err := attest.IDToken(ctx, "", envOf(map[string]string{attest.ActionsRequestURLEnv: srv.URL, attest.ActionsRequestTokenEnv: "s"}), nil)
		srv.Close()
		if !errors.Is(err, attest.ErrKeyless) {
			t.Errorf("answer %.20q: %v, want ErrKeyless", body, err)
		}
	}
}

func TestNewKeylessSignerConfig(t *testing.T) {
	tok := func(context.Context) (string, error) { return fakeJWT, nil }
	for _, tc := range []struct {
		name          string
		fulcio, rekor string
		tsas          []string
		want          string
	}{
		{"no fulcio", "", "", []string{"http://127.0.0.1:2/t"}, "Fulcio"},
		{"no timestamp authority", "http://127.0.0.1:1", "", nil, "timestamp"},
	} {
		sc, err := attest.NewSigningConfig(tc.fulcio, tc.tsas, tc.rekor, 2)
		if err != nil {
			t.Fatal(err)
		}
		_, err = attest.NewKeylessSigner(attest.KeylessOptions{SigningConfig: sc, IDToken: tok})
		if !errors.Is(err, attest.ErrKeylessConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	sc, _ := attest.NewSigningConfig("http://127.0.0.1:1", []string{"http://127.0.0.1:2/t", "http://127.0.0.1:3/t"}, "http://127.0.0.1:4", 2)
	ks, err := attest.NewKeylessSigner(attest.KeylessOptions{SigningConfig: sc, IDToken: tok})
	if err != nil {
		t.Fatal(err)
	}
	if s := ks.Services(); s.Fulcio != "http://127.0.0.1:1" || len(s.TSAs) != 2 || s.Rekor != "http://127.0.0.1:4" || s.RekorVersion != 2 {
		t.Errorf("services %+v", s)
	}
	// A service that is not there: ErrKeyless, no bundle.
	if _, err := attest.Sign(context.Background(), testManifest, testPredicate, ks); !errors.Is(err, attest.ErrKeyless) {
		t.Errorf("sign with nothing listening: %v", err)
	}
	if _, err := attest.NewKeylessSigner(attest.KeylessOptions{SigningConfig: sc}); !errors.Is(err, attest.ErrKeylessConfig) {
		t.Errorf("no token source: %v", err)
	}
}
