package pkgsource

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"
)

// DefaultRegistry is npm's built-in registry, used when neither the
// caller, npm's configuration nor the environment names one.
const DefaultRegistry = "https://registry.npmjs.org/"

// NPMConfig is the part of npm's configuration T0 follows.
type NPMConfig struct {
	// Registry is the registry base URL, ending in "/".
	Registry string
	// RegistryFrom says where Registry came from: "npm config",
	// "environment npm_config_registry" or "npm default".
	RegistryFrom string
	// CAFile is npm's cafile setting, "" when unset.
	CAFile string
	// ExtraCAFile is NODE_EXTRA_CA_CERTS, "" when unset.
	ExtraCAFile string
}

// ReadNPMConfig asks npm for its registry and cafile settings
// (`npm config get registry cafile`), so every npm configuration layer
// (environment, project and user .npmrc, global npmrc) counts exactly as
// npm counts it. When npm is not installed it falls back to the
// environment (npm_config_registry, npm_config_cafile) and then to
// DefaultRegistry. NODE_EXTRA_CA_CERTS is read from the environment.
// DESIGN.md "T0 inputs".
func ReadNPMConfig(ctx context.Context, npm string) (NPMConfig, error) {
	if npm == "" {
		npm = "npm"
	}
	cfg := NPMConfig{ExtraCAFile: os.Getenv("NODE_EXTRA_CA_CERTS")}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "config", "get", "registry", "cafile")
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	switch {
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist):
		cfg.Registry, cfg.RegistryFrom = envOr("npm_config_registry", ""), "environment npm_config_registry"
		if cfg.Registry == "" {
			cfg.Registry, cfg.RegistryFrom = DefaultRegistry, "npm default (npm not installed)"
		}
		cfg.CAFile = envOr("npm_config_cafile", "")
	case err != nil:
		return NPMConfig{}, fmt.Errorf("npm config get registry cafile: %w: %s", err, firstLine(stderr.String()))
	default:
		kv := parseNPMConfigGet(out)
		cfg.Registry, cfg.RegistryFrom = kv["registry"], "npm config"
		if cfg.Registry == "" {
			cfg.Registry, cfg.RegistryFrom = DefaultRegistry, "npm default"
		}
		cfg.CAFile = kv["cafile"]
	}
	reg, err := normalizeRegistry(cfg.Registry)
	if err != nil {
		return NPMConfig{}, fmt.Errorf("registry from %s: %w", cfg.RegistryFrom, err)
	}
	cfg.Registry = reg
	return cfg, nil
}

// envOr reads an npm_config_* variable the way npm does: either case.
func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	if v := os.Getenv(strings.ToUpper(key)); v != "" {
		return v
	}
	return def
}

// parseNPMConfigGet reads `npm config get a b` output: key=value lines.
// npm prints "null" or "undefined" for unset keys.
func parseNPMConfigGet(out []byte) map[string]string {
	kv := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if v == "null" || v == "undefined" {
			v = ""
		}
		kv[strings.TrimSpace(k)] = v
	}
	return kv
}

// normalizeRegistry checks a registry base URL and gives it a trailing
// slash, as npm does.
func normalizeRegistry(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return "", fmt.Errorf("registry URL %q: %v", s, err)
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("registry URL %q: expected http(s)://host/", s)
	}
	if u.User != nil {
		return "", fmt.Errorf("registry URL %q: credentials in the URL are refused", u.Redacted())
	}
	u.RawQuery, u.Fragment = "", ""
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u.String(), nil
}

// NewHTTPClient builds the client T0 uses: the system certificate pool
// plus npm's cafile and NODE_EXTRA_CA_CERTS, proxies from the
// environment, TLS 1.2 or newer. Redirects are followed at most 5 times.
func NewHTTPClient(cfg NPMConfig) (*http.Client, error) {
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	for _, f := range []struct{ name, path string }{{"npm cafile", cfg.CAFile}, {"NODE_EXTRA_CA_CERTS", cfg.ExtraCAFile}} {
		if f.path == "" {
			continue
		}
		pem, err := readBoundedFile(f.path, 16<<20)
		if err != nil {
			return nil, fmt.Errorf("%w: %s %q: %w", ErrRegistryUnreachable, f.name, f.path, err)
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%w: %s %q: no PEM certificates in it", ErrRegistryUnreachable, f.name, f.path)
		}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return fmt.Errorf("more than 5 redirects")
			}
			return nil
		},
	}, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
