// Package faulttest is the end-to-end fault suite (DESIGN.md "Faults"):
// each fault a long audit meets — dshaudit killed with SIGKILL, two runs
// writing one bundle, a full disk, the container engine's monitor dying
// mid-stage, a registry failing or stalling — is injected for real on
// this machine against the real dshaudit binary, podman and the sandbox
// image, and the test checks the promise for it: the exit code SPEC.md
// documents, one line saying what failed and what to do, no partial
// bundle, nothing left in the engine or the temp directory once the next
// dshaudit command has run. It holds tests only, gated by DSHAUDIT_E2E
// (internal/e2etest.Require).
package faulttest
