package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"flag"
	"fmt"
	"os"
)

func runKeygen(args []string) error {
	fs := flag.NewFlagSet("keygen", flag.ContinueOnError)
	out := fs.String("out", "", "private key file to write (PKCS #8 PEM); FILE.pub gets the public key")
	sec1 := fs.Bool("sec1", false, "write the private key as SEC 1 (EC PRIVATE KEY), as TesseraCT reads it")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("want -out FILE")
	}
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	pub := priv.Public()
	blockType := "PRIVATE KEY"
	p8, err := x509.MarshalPKCS8PrivateKey(priv)
	if *sec1 {
		blockType = "EC PRIVATE KEY"
		p8, err = x509.MarshalECPrivateKey(priv)
	}
	if err != nil {
		return err
	}
	pk, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: p8}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(*out+".pub", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pk}), 0o644)
}
