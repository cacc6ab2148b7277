package verify

//go:generate go run ../internal/vectorgen -evidence ../testdata/dsh-evidence -out ../testdata/vectors
