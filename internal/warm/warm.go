package warm

import (
	_ "github.com/sigstore/sigstore-go/pkg/sign"
	_ "github.com/sigstore/sigstore-go/pkg/verify"
	_ "github.com/sigstore/sigstore-go/pkg/testing/ca"
	_ "github.com/google/go-containerregistry/pkg/v1/mutate"
	_ "github.com/google/go-containerregistry/pkg/registry"
	_ "github.com/google/go-containerregistry/pkg/v1/layout"
	_ "github.com/google/go-containerregistry/pkg/v1/remote"
	_ "github.com/klauspost/compress/zstd"
	_ "github.com/spf13/cobra"
	_ "gopkg.in/yaml.v3"
	_ "github.com/Masterminds/semver/v3"
)
