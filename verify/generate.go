package verify

//go:generate go run ../tools/vectorgen -evidence ../testdata/dsh-evidence -out ../testdata/vectors -kit ../testdata/conformance
