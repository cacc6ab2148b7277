// Command startfloor starts and exits: it links only sigstore-go's
// verifier and bundle packages, the signature library `dshaudit verify`
// uses, so its start-up is the floor of any process that verifies with
// sigstore-go. scripts/bench-verify.sh times it beside `dshaudit
// --version` and the pass bundle's verification (DESIGN.md "Start-up
// cost").
package main

import (
	"fmt"
	"os"

	_ "github.com/sigstore/sigstore-go/pkg/bundle"
	_ "github.com/sigstore/sigstore-go/pkg/verify"
)

func main() {
	fmt.Fprintln(os.Stdout, "startfloor")
}
