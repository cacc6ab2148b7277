// Package schematest validates dshaudit's JSON result objects against the
// JSON Schemas (draft 2020-12) in the repository's schema/ directory. It
// is imported by tests only.
package schematest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Base is the $id prefix of every schema in schema/.
const Base = "https://github.com/dshaudit/dshaudit/schema/"

// Dir is the repository's schema/ directory.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "schema")
}

var (
	once     sync.Once
	compiler *jsonschema.Compiler
	loadErr  error
	mu       sync.Mutex
)

func load() {
	ents, err := os.ReadDir(Dir())
	if err != nil {
		loadErr = err
		return
	}
	compiler = jsonschema.NewCompiler()
	compiler.DefaultDraft(jsonschema.Draft2020)
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".schema.json") {
			continue
		}
		f, err := os.Open(filepath.Join(Dir(), e.Name()))
		if err != nil {
			loadErr = err
			return
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			loadErr = err
			return
		}
		if err := compiler.AddResource(Base+e.Name(), doc); err != nil {
			loadErr = err
			return
		}
	}
}

// Schema compiles schema/<name>.schema.json, failing t when it does not.
func Schema(t testing.TB, name string) *jsonschema.Schema {
	t.Helper()
	once.Do(load)
	if loadErr != nil {
		t.Fatalf("schema/: %v", loadErr)
	}
	mu.Lock()
	defer mu.Unlock()
	s, err := compiler.Compile(Base + name + ".schema.json")
	if err != nil {
		t.Fatalf("schema %s: %v", name, err)
	}
	return s
}

// Validate checks that data, one JSON document, is valid against
// schema/<name>.schema.json.
func Validate(t testing.TB, name string, data []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not JSON (checking against %s): %v\n%s", name, err, data)
	}
	if err := Schema(t, name).Validate(inst); err != nil {
		t.Errorf("output does not match schema/%s.schema.json: %v\n%s", name, err, clip(data))
	}
}

func clip(b []byte) string {
	if len(b) > 4000 {
		return string(b[:4000]) + "…"
	}
	return string(b)
}

// Raw is schema/<name>.schema.json decoded as plain JSON values.
func Raw(t testing.TB, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Dir(), name+".schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("schema/%s.schema.json: %v", name, err)
	}
	return m
}
