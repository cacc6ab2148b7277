package bundle

// ReadTar exposes readTar to the external tests of this directory
// (tarnames_diff_test.go, which imports internal/e2etest, which imports
// this package).
var ReadTar = readTar
