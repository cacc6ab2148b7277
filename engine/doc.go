// Package engine owns the container engine driver: it makes a sandbox image
// pinned by digest present in a container engine (podman or docker), proves
// the engine holds exactly that manifest digest, and runs one command in a
// fresh, limited, network-controlled container under the DSHIO/T 21 clause
// 5.1 conditions, capturing stdout, stderr and their merge in arrival order.
//
// Every rule here is described in DESIGN.md "Sandbox conditions".
//
// The package talks to the engine through its command-line client only (no
// daemon socket), so the same code drives daemonless podman and docker.
package engine
