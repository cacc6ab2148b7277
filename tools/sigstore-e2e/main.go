// Command sigstore-e2e is test infrastructure for the keyless end-to-end
// tests, run by scripts/setup-sigstore.sh; it is not part of dshaudit.
//
//	sigstore-e2e oidc    -addr 127.0.0.1:PORT [-actions-secret S]
//	sigstore-e2e forward -netns /run/netns/NAME ADDR...
//	sigstore-e2e wait    [-timeout 60s] URL...
//	sigstore-e2e keygen  -out FILE
//	sigstore-e2e config  -fulcio URL -tsa URL -rekor URL -rekor-key PUB -ct URL -ct-key PUB -oidc URL -out DIR
//	sigstore-e2e config  -fulcio URL -fulcio-roots FILE
//
// oidc is an OpenID Connect issuer for Fulcio: discovery, JWKS, and ID
// tokens whose claims are shaped like GitHub Actions' (sub, repository,
// ref, job_workflow_ref, workflow_ref, run_id, …), each overridable by a
// query parameter of GET /token. GET /actions emulates the GitHub Actions
// token request (ACTIONS_ID_TOKEN_REQUEST_URL, bearer
// ACTIONS_ID_TOKEN_REQUEST_TOKEN, &audience=…) and answers {"value": JWT}.
//
// forward listens on each loopback ADDR of this network namespace and
// connects every connection to the same ADDR inside the namespace -netns:
// the Sigstore services run in a namespace of their own, where their
// metrics listeners (which bind every interface, with no setting for the
// host) see only that namespace's loopback.
//
// wait polls each URL until it answers 200; keygen writes an ECDSA P-256
// PKCS #8 (or, -sec1, SEC 1) PEM private key and its public key (the Rekor
// v2 and CT log keys: for ECDSA a log's ID is the sha256 of the public
// key, as a trusted root's logId). config asks the running Fulcio and timestamp authority
// for their certificate chains and writes DIR/trusted_root.json and
// DIR/signing_config.json for the services (with -fulcio-roots, only
// Fulcio's chain as PEM, the roots the CT log accepts).
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: sigstore-e2e oidc|forward|wait|keygen|config [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "oidc":
		err = runOIDC(os.Args[2:])
	case "forward":
		err = runForward(os.Args[2:])
	case "wait":
		err = runWait(os.Args[2:])
	case "keygen":
		err = runKeygen(os.Args[2:])
	case "config":
		err = runConfig(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: want oidc, forward, wait, keygen or config", os.Args[1])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "sigstore-e2e %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
