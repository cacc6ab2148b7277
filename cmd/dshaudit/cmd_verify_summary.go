package main

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/dshaudit/dshaudit/attest"
	"github.com/dshaudit/dshaudit/internal/termtext"
	"github.com/dshaudit/dshaudit/vsa"
)

// SummaryCheckMediaType is the media type of verify-summary --json.
const SummaryCheckMediaType = "application/vnd.dshaudit.summary-check-result.v1+json"

// Outcomes of verify-summary (lower-kebab-case, SPEC.md "Result objects").
const (
	summaryAccepted         = "accepted"
	summaryNotAccepted      = "not-accepted"
	summarySignatureInvalid = "signature-invalid"
)

// verifySummaryOptions are the flags of `dshaudit verify-summary`.
type verifySummaryOptions struct {
	File string
	trustFlags
	Artifacts      []string
	SubjectDigests []string
	ResourceURI    string
	Levels         []string
	VerifierID     string
	JSON           bool
}

// summaryCheckResult is the --json object.
type summaryCheckResult struct {
	MediaType     string `json:"media_type"`
	SchemaVersion int    `json:"schema_version"`
	File          string `json:"file"`
	Status        string `json:"status"`
	// Signer is who signed, when the signature verified; Error why it
	// did not.
	Signer string `json:"signer,omitempty"`
	Error  string `json:"error,omitempty"`
	// Statement is the authenticated statement (null before the
	// signature verified).
	Statement *vsa.Statement `json:"statement"`
	Steps     []vsa.Step     `json:"steps"`
}

func newVerifySummaryCmd(s *streams) *cobra.Command {
	o := &verifySummaryOptions{}
	c := &cobra.Command{
		Use:   "verify-summary FILE (--key PUB | --trusted-root FILE ...) (--artifact FILE | --subject-digest ALG:HEX)... [--resource-uri PURL] [--level L]...",
		Short: "Check a signed verification summary (SLSA VSA) as its consumer must",
		Long: `verify-summary checks a verification summary that dshaudit verify --summary
wrote (a SLSA Verification Summary Attestation v1 in a Sigstore bundle),
offline, by the "How to verify" steps of the VSA specification: the
signature by the trusted key or identity (1, 4), a subject with the digest
of the artifact in hand (2: --artifact FILE hashes a package tarball or an
evidence bundle, --subject-digest gives a digest), the statement and
predicate types (3), verifier.id (4: --verifier-id, default ` + vsa.DefaultVerifierID + `),
resourceUri (5: --resource-uri, e.g. pkg:npm/NAME@VERSION), verificationResult
PASSED (6), and every --level in verifiedLevels (7). Every step is printed.

Trust is explicit: give exactly one of --key (a public key) or
--trusted-root (keyless, with an identity rule or --insecure-any-identity).

Exit codes:
  0  accepted: signature valid and every step passed
  1  not accepted: a step failed, or the signature did not verify
  2  usage error or unreadable input`,
		Example: `  # a registry's summary of hello-dsh-plugin 1.0.0, checked against the tarball
  dshaudit verify-summary hello.vsa.sigstore.json --key registry.pub \
      --artifact hello-dsh-plugin-1.0.0.tgz \
      --resource-uri pkg:npm/hello-dsh-plugin@1.0.0 --level DSHIO_DYNAMIC_PASS

  # machine-readable
  dshaudit verify-summary hello.vsa.sigstore.json --key registry.pub \
      --subject-digest sha256:0123… --json | jq .status`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.File = args[0]
			return runVerifySummary(o, s)
		},
	}
	f := c.Flags()
	o.trustFlags.register(f)
	f.StringArrayVar(&o.Artifacts, "artifact", nil, "a file the summary must name by digest: the package tarball or the evidence bundle (repeatable)")
	f.StringArrayVar(&o.SubjectDigests, "subject-digest", nil, "a digest ALG:HEX the summary must name (repeatable)")
	f.StringVar(&o.ResourceURI, "resource-uri", "", "the resourceUri required, e.g. pkg:npm/NAME@VERSION")
	f.StringArrayVar(&o.Levels, "level", nil, "a level verifiedLevels must hold, e.g. DSHIO_DYNAMIC_PASS (repeatable)")
	f.StringVar(&o.VerifierID, "verifier-id", vsa.DefaultVerifierID, "the verifier.id required")
	f.BoolVar(&o.JSON, "json", false, "print the result object ("+SummaryCheckMediaType+")")
	return c
}

func runVerifySummary(o *verifySummaryOptions, s *streams) error {
	pol, err := o.policy()
	if err != nil {
		return err
	}
	e := vsa.Expect{ResourceURI: o.ResourceURI, Levels: o.Levels, VerifierID: o.VerifierID}
	for _, d := range o.SubjectDigests {
		dg, err := vsa.ParseDigest(d)
		if err != nil {
			return fmt.Errorf("%w: --subject-digest: %w", ErrUsage, err)
		}
		e.Subjects = append(e.Subjects, dg)
	}
	for _, a := range o.Artifacts {
		art, err := fileArtifact(a)
		if err != nil {
			return fmt.Errorf("%w: --artifact: %w", ErrUsage, err)
		}
		e.Subjects = append(e.Subjects, art)
	}
	if len(e.Subjects) == 0 {
		return fmt.Errorf("%w: give the artifact the summary must be about: --artifact FILE or --subject-digest ALG:HEX (VSA \"How to verify\" step 2)", ErrUsage)
	}
	raw, err := readBoundedFile(o.File, vsa.MaxSummarySize)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	res := summaryCheckResult{MediaType: SummaryCheckMediaType, SchemaVersion: 1, File: o.File, Steps: []vsa.Step{}}
	payload, signer, err := attest.VerifyPayload(raw, pol)
	switch {
	case errors.Is(err, attest.ErrAmbiguousPolicy):
		return fmt.Errorf("%w: %w", ErrUsage, err)
	case err != nil:
		res.Status, res.Error = summarySignatureInvalid, err.Error()
		res.Steps = append(res.Steps, vsa.Step{Name: "signature", Outcome: vsa.StepFailed, Detail: err.Error()})
	default:
		res.Signer = signer.Signer
		res.Steps = append(res.Steps, vsa.Step{Name: "signature", Outcome: vsa.StepPassed, Detail: "signed by " + signer.Signer})
		st, derr := vsa.Decode(payload)
		if derr != nil {
			res.Status, res.Error = summaryNotAccepted, derr.Error()
			res.Steps = append(res.Steps, vsa.Step{Name: "statement-type", Outcome: vsa.StepFailed, Detail: derr.Error()})
			break
		}
		res.Statement = st
		res.Steps = append(res.Steps, vsa.Check(st, e)...)
		if signer.AuditWorkflow != "" {
			res.Steps = append(res.Steps, auditWorkflowStep(st, signer.AuditWorkflow))
		}
		res.Status = summaryNotAccepted
		if vsa.Accepted(res.Steps) {
			res.Status = summaryAccepted
		}
	}
	if o.JSON {
		if err := writeJSON(s.Out, res); err != nil {
			return err
		}
	} else {
		printSummaryCheck(s.Out, s.style(), &res)
	}
	if res.Status != summaryAccepted {
		return silentError{ErrFindings}
	}
	return nil
}

// auditWorkflowStep holds a summary the runner policy's audit workflow
// signed to that workflow's release: the summary's verifier version is
// the tag's, and its levels carry vsa.AuditWorkflow (SPEC.md
// "Runner policy").
func auditWorkflowStep(st *vsa.Statement, workflow string) vsa.Step {
	_, tag, _ := attest.SplitAuditWorkflow(workflow)
	got := st.Predicate.Verifier.Version[vsa.VerifierComponent]
	switch {
	case !attest.SameVersion(tag, got):
		return vsa.Step{Name: "audit-workflow", Outcome: vsa.StepFailed, Detail: fmt.Sprintf("the audit workflow %s signed, want verifier version %s, the summary says %q", workflow, tag, got)}
	case !slices.Contains(st.Predicate.VerifiedLevels, vsa.AuditWorkflow):
		return vsa.Step{Name: "audit-workflow", Outcome: vsa.StepFailed, Detail: fmt.Sprintf("the audit workflow %s signed, want %s in verifiedLevels, the summary has %q", workflow, vsa.AuditWorkflow, st.Predicate.VerifiedLevels)}
	}
	return vsa.Step{Name: "audit-workflow", Outcome: vsa.StepPassed, Detail: "produced by the audit workflow " + workflow + " on a GitHub-hosted runner"}
}

// printSummaryCheck prints the check for a person; every value from the
// summary goes through st.Field (SPEC.md "Output safety").
func printSummaryCheck(w io.Writer, st termtext.Style, r *summaryCheckResult) {
	fmt.Fprintf(w, "summary:      %s\n", st.Field(r.File))
	if r.Signer != "" {
		fmt.Fprintf(w, "signer:       %s\n", st.Field(r.Signer))
	}
	if s := r.Statement; s != nil {
		fmt.Fprintf(w, "resource:     %s\n", st.Field(s.Predicate.ResourceURI))
		fmt.Fprintf(w, "verifier:     %s\n", st.Field(s.Predicate.Verifier.ID))
		fmt.Fprintf(w, "policy:       %s\n", st.Field(s.Predicate.Policy.URI))
		if s.Predicate.TimeVerified != "" {
			fmt.Fprintf(w, "verified at:  %s\n", st.Field(s.Predicate.TimeVerified))
		}
		fmt.Fprintf(w, "result:       %s %s\n", st.Field(s.Predicate.VerificationResult), st.Field(fmt.Sprint(s.Predicate.VerifiedLevels)))
	}
	tb := termtext.NewTable("  ", "STEP", "OUTCOME", "DETAIL")
	for _, s := range r.Steps {
		tb.Row(s.Name, s.Outcome, s.Detail)
	}
	tb.Write(w, st.Width)
	text := map[string]string{summaryAccepted: "accepted", summaryNotAccepted: "not accepted", summarySignatureInvalid: "signature invalid"}[r.Status]
	fmt.Fprintf(w, "RESULT: %s\n", text)
}

// fileArtifact is a file with its sha256 and sha512: a summary names a
// tarball by sha512 (npm's integrity) and a bundle by sha256.
func fileArtifact(path string) (vsa.Artifact, error) {
	f, err := os.Open(path)
	if err != nil {
		return vsa.Artifact{}, err
	}
	defer f.Close()
	h256, h512 := sha256.New(), sha512.New()
	if _, err := io.Copy(io.MultiWriter(h256, h512), f); err != nil {
		return vsa.Artifact{}, fmt.Errorf("%s: %w", path, err)
	}
	return vsa.Artifact{Name: path, Digests: map[string]string{
		"sha256": hex.EncodeToString(h256.Sum(nil)),
		"sha512": hex.EncodeToString(h512.Sum(nil)),
	}}, nil
}

// readBoundedFile reads a regular file of at most limit bytes.
func readBoundedFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than the %d-byte limit", path, limit)
	}
	return b, nil
}
