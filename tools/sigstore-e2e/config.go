package main

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
)

func runConfig(args []string) error {
	fs := flag.NewFlagSet("config", flag.ContinueOnError)
	fulcio := fs.String("fulcio", "", "Fulcio base URL")
	tsa := fs.String("tsa", "", "timestamp authority base URL")
	rekor := fs.String("rekor", "", "Rekor v2 base URL (empty: no log)")
	rekorKey := fs.String("rekor-key", "", "Rekor checkpoint public key (PEM)")
	oidc := fs.String("oidc", "", "OIDC issuer URL")
	ct := fs.String("ct", "", "certificate transparency log base URL (empty: none)")
	ctKey := fs.String("ct-key", "", "the CT log's public key (PEM)")
	rootsOut := fs.String("fulcio-roots", "", "only write the Fulcio CA chain as PEM to this file (the CT log's accepted roots) and exit")
	out := fs.String("out", "", "directory for trusted_root.json and signing_config.json")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *fulcio == "" || (*rootsOut == "" && (*tsa == "" || *out == "")) {
		return fmt.Errorf("want -fulcio, and -tsa and -out or -fulcio-roots")
	}
	start := time.Now().UTC().Add(-time.Minute)

	var bundle struct {
		Chains []struct {
			Certificates []string `json:"certificates"`
		} `json:"chains"`
	}
	b, err := get(*fulcio + "/api/v2/trustBundle")
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &bundle); err != nil || len(bundle.Chains) == 0 {
		return fmt.Errorf("fulcio trust bundle: %v %q", err, b)
	}
	var fulcioPEM []byte
	for _, c := range bundle.Chains[0].Certificates {
		fulcioPEM = append(fulcioPEM, c...)
	}
	if *rootsOut != "" {
		return os.WriteFile(*rootsOut, fulcioPEM, 0o644)
	}
	fulcioCA, err := authority(fulcioPEM, *fulcio)
	if err != nil {
		return fmt.Errorf("fulcio chain: %w", err)
	}
	tsaPEM, err := get(*tsa + "/api/v1/timestamp/certchain")
	if err != nil {
		return err
	}
	tsaCA, err := authority(tsaPEM, *tsa+"/api/v1/timestamp")
	if err != nil {
		return fmt.Errorf("timestamp authority chain: %w", err)
	}
	tr := map[string]any{
		"mediaType":              "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
		"tlogs":                  []any{},
		"certificateAuthorities": []any{fulcioCA},
		"ctlogs":                 []any{},
		"timestampAuthorities":   []any{tsaCA},
	}
	svc := func(u string, v uint32) root.Service {
		return root.Service{URL: u, MajorAPIVersion: v, ValidityPeriodStart: start, Operator: "dshaudit-e2e"}
	}
	var logs []root.Service
	if *rekor != "" {
		e, err := logEntry(*rekor, *rekorKey, start)
		if err != nil {
			return err
		}
		tr["tlogs"] = []any{e}
		logs = append(logs, svc(*rekor, 2))
	}
	if *ct != "" {
		e, err := logEntry(*ct, *ctKey, start)
		if err != nil {
			return err
		}
		tr["ctlogs"] = []any{e}
	}
	trJSON, err := json.MarshalIndent(tr, "", "  ")
	if err != nil {
		return err
	}
	if _, err := root.NewTrustedRootFromJSON(trJSON); err != nil {
		return fmt.Errorf("the trusted root written does not parse: %w", err)
	}
	var oidcs []root.Service
	if *oidc != "" {
		oidcs = append(oidcs, svc(*oidc, 1))
	}
	sc, err := root.NewSigningConfig(root.SigningConfigMediaType02,
		[]root.Service{svc(*fulcio, 1)}, oidcs,
		logs, root.ServiceConfiguration{Selector: 2 /* ANY */},
		[]root.Service{svc(*tsa+"/api/v1/timestamp", 1)}, root.ServiceConfiguration{Selector: 2 /* ANY */})
	if err != nil {
		return err
	}
	scJSON, err := sc.MarshalJSON()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, "trusted_root.json"), append(trJSON, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(*out, "signing_config.json"), append(scJSON, '\n'), 0o644)
}

// authority is a trusted root's certificate authority entry for a PEM
// chain (leaf first): its subject, URI, chain and validity.
func authority(chain []byte, uri string) (map[string]any, error) {
	var certs []map[string]string
	var first, last *x509.Certificate
	for rest := chain; ; {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			break
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			return nil, err
		}
		if first == nil {
			first = c
		}
		last = c
		certs = append(certs, map[string]string{"rawBytes": base64.StdEncoding.EncodeToString(blk.Bytes)})
	}
	if first == nil {
		return nil, fmt.Errorf("no certificate in %q", chain)
	}
	org := ""
	if len(last.Subject.Organization) > 0 {
		org = last.Subject.Organization[0]
	}
	return map[string]any{
		"subject":   map[string]string{"organization": org, "commonName": last.Subject.CommonName},
		"uri":       uri,
		"certChain": map[string]any{"certificates": certs},
		"validFor":  map[string]string{"start": first.NotBefore.UTC().Format(time.RFC3339)},
	}, nil
}

func get(u string) ([]byte, error) {
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %q", u, resp.Status, b)
	}
	return b, nil
}

// logEntry is a trusted root's transparency log entry (Rekor or CT) for
// an ECDSA P-256 key: its log ID is the sha256 of the key's DER.
func logEntry(baseURL, keyFile string, start time.Time) (map[string]any, error) {
	pb, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, err
	}
	blk, _ := pem.Decode(pb)
	if blk == nil {
		return nil, fmt.Errorf("%s: no PEM block", keyFile)
	}
	if _, err := x509.ParsePKIXPublicKey(blk.Bytes); err != nil {
		return nil, fmt.Errorf("%s: %w", keyFile, err)
	}
	id := sha256.Sum256(blk.Bytes)
	return map[string]any{
		"baseUrl":       baseURL,
		"hashAlgorithm": "SHA2_256",
		"publicKey": map[string]any{
			"rawBytes":   base64.StdEncoding.EncodeToString(blk.Bytes),
			"keyDetails": "PKIX_ECDSA_P256_SHA_256",
			"validFor":   map[string]string{"start": start.Format(time.RFC3339)},
		},
		"logId": map[string]string{"keyId": base64.StdEncoding.EncodeToString(id[:])},
	}, nil
}
