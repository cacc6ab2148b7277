package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dshaudit/dshaudit/attest"
)

// keyGenerateOptions are the flags of `dshaudit key generate`.
type keyGenerateOptions struct {
	OutDir string
	Name   string
	Type   string
	JSON   bool
}

// KeyMediaType identifies the --json object of `dshaudit key generate`.
const KeyMediaType = "application/vnd.dshaudit.key-result.v1+json"

// keyResult is key generate --json (schema/key-result.schema.json).
type keyResult struct {
	MediaType     string `json:"media_type"`
	SchemaVersion int    `json:"schema_version"`
	PrivateKey    string `json:"private_key"`
	PublicKey     string `json:"public_key"`
	Type          string `json:"type"`
	Fingerprint   string `json:"fingerprint"`
}

func newKeyCmd(s *streams) *cobra.Command {
	c := &cobra.Command{
		Use:   "key",
		Short: "Manage signing keys for evidence bundles",
		Long: `key manages the key pairs that sign evidence bundles (SPEC.md "Signature").
A bundle signed with a key is verified offline with the public key alone:
dshaudit verify --key NAME.pub, or cosign verify-blob-attestation.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return fmt.Errorf("%w: missing subcommand (see %s --help)", ErrUsage, cmd.CommandPath())
		},
	}
	c.AddCommand(newKeyGenerateCmd(s))
	return c
}

func newKeyGenerateCmd(s *streams) *cobra.Command {
	o := &keyGenerateOptions{}
	c := &cobra.Command{
		Use:   "generate [--out-dir DIR] [--name NAME] [--type ed25519|ecdsa-p256]",
		Short: "Generate a signing key pair: NAME.key (private) and NAME.pub (public)",
		Long: `generate writes a new key pair:

  DIR/NAME.key  private key, PKCS #8 PEM, NOT encrypted, mode 0600
  DIR/NAME.pub  public key, PKIX PEM, mode 0644

and prints both paths, the key type and the public key fingerprint
(sha256 of the DER public key) on stdout. It never overwrites: if either
file exists it stops and writes nothing.

The private key is unencrypted so that unattended runs can sign; protect
it as a secret (file mode, CI secret store). Anyone holding it can sign
bundles that verify with NAME.pub.

Key types (--type):
  ed25519     default. Ed25519 signatures are deterministic, so a bundle
              built twice from the same content with the same key is
              byte-identical, signature included.
  ecdsa-p256  ECDSA P-256 with SHA-256, cosign's default key type.
              Signatures are randomised: the signature file differs on
              every signing.
Both verify with dshaudit and with cosign (verify-blob-attestation --key).

Exit codes:
  0  key pair written
  2  usage error: bad flag, unknown --type, bad --name, missing --out-dir,
     or NAME.key / NAME.pub already exists
  3  could not write the files (permissions, disk full)`,
		Example: `  # dshaudit.key and dshaudit.pub in the current directory
  dshaudit key generate

  # a named key in a directory, ECDSA P-256 like cosign
  dshaudit key generate --out-dir keys --name release --type ecdsa-p256

  # then sign runs with it and let anyone verify with the public key
  dshaudit verify bundle.tar.zst --key keys/release.pub`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runKeyGenerate(o, s)
		},
	}
	f := c.Flags()
	f.StringVar(&o.OutDir, "out-dir", ".", "existing directory to write the key files into")
	f.StringVar(&o.Name, "name", "dshaudit", "base name of the key files (NAME.key, NAME.pub)")
	f.StringVar(&o.Type, "type", string(attest.DefaultKeyType), "key type: "+keyTypeList())
	f.BoolVar(&o.JSON, "json", false, "print the paths, type and fingerprint as one object ("+KeyMediaType+")")
	return c
}

func keyTypeList() string {
	var names []string
	for _, kt := range attest.KeyTypes {
		names = append(names, string(kt))
	}
	return strings.Join(names, " or ")
}

func runKeyGenerate(o *keyGenerateOptions, s *streams) error {
	kt, err := attest.ParseKeyType(o.Type)
	if err != nil {
		return fmt.Errorf("%w: --type: %w", ErrUsage, err)
	}
	if st, err := os.Stat(o.OutDir); err != nil {
		return fmt.Errorf("%w: --out-dir: %w", ErrUsage, err)
	} else if !st.IsDir() {
		return fmt.Errorf("%w: --out-dir %q is not a directory", ErrUsage, o.OutDir)
	}
	kf, err := attest.WriteKeyPair(o.OutDir, o.Name, kt)
	if err != nil {
		if errors.Is(err, attest.ErrKey) {
			return fmt.Errorf("%w: %w", ErrUsage, err)
		}
		return fmt.Errorf("%w: %w", ErrCouldNotRun, err)
	}
	if o.JSON {
		if err := writeJSON(s.Out, keyResult{KeyMediaType, 1, kf.PrivatePath, kf.PublicPath, string(kt), kf.Fingerprint}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(s.Out, "private key: %s\npublic key:  %s\ntype:        %s\nfingerprint: %s\n",
			kf.PrivatePath, kf.PublicPath, kt, kf.Fingerprint)
	}
	fmt.Fprintf(s.ErrOut, "dshaudit: %s is not encrypted (mode 0600): keep it secret\n", kf.PrivatePath)
	return nil
}
