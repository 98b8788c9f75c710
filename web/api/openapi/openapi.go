// Package openapi holds the API contract: YAML fragments merged into one
// OpenAPI 3.1 document, served at /api/v0/openapi.json and enforced by the
// contract tests.
package openapi

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"sync"

	"github.com/oasdiff/yaml"
)

//go:embed *.yaml
var fragments embed.FS

var (
	once sync.Once
	doc  []byte
	err  error
)

// JSON returns the merged document as JSON (built once).
func JSON() ([]byte, error) {
	once.Do(func() { doc, err = build() })
	return doc, err
}

// build merges base.yaml with every other fragment: their paths, their
// webhooks (the requests Konvoj sends, OpenAPI 3.1) and their components
// (schemas, parameters, responses, headers) are added; a name defined twice
// is an error, so fragments cannot silently override each other.
func build() ([]byte, error) {
	names, err := fs.Glob(fragments, "*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var root map[string]any
	if root, err = load("base.yaml"); err != nil {
		return nil, err
	}
	for _, name := range names {
		if name == "base.yaml" {
			continue
		}
		frag, err := load(name)
		if err != nil {
			return nil, err
		}
		for _, section := range []string{"paths", "webhooks"} {
			if err := mergeSection(root, frag, name, section); err != nil {
				return nil, err
			}
		}
		fc, _ := frag["components"].(map[string]any)
		rc, _ := root["components"].(map[string]any)
		for section := range fc {
			if _, ok := rc[section]; !ok {
				rc[section] = map[string]any{}
			}
			if err := mergeSection(rc, fc, name, section); err != nil {
				return nil, err
			}
		}
		if tags, ok := frag["tags"].([]any); ok {
			existing, _ := root["tags"].([]any)
			root["tags"] = append(existing, tags...)
		}
	}
	idempotentPosts(root)
	return json.MarshalIndent(root, "", "  ")
}

// idempotentPosts gives every POST the Idempotency-Key header
// (docs/idempotency.md), which the server accepts on every POST, and the
// answers it may bring: 409 while the first request runs, 422 for a bad or
// reused key.
func idempotentPosts(root map[string]any) {
	paths, _ := root["paths"].(map[string]any)
	for _, item := range paths {
		post, _ := item.(map[string]any)["post"].(map[string]any)
		if post == nil {
			continue
		}
		params, _ := post["parameters"].([]any)
		post["parameters"] = append(params, map[string]any{"$ref": "#/components/parameters/IdempotencyKey"})
		responses, _ := post["responses"].(map[string]any)
		if responses == nil {
			continue
		}
		for status, ref := range map[string]string{"409": "Conflict", "422": "ValidationError"} {
			if _, ok := responses[status]; !ok {
				responses[status] = map[string]any{"$ref": "#/components/responses/" + ref}
			}
		}
	}
}

func load(name string) (map[string]any, error) {
	raw, err := fragments.ReadFile(name)
	if err != nil {
		return nil, err
	}
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("openapi fragment %s: %w", name, err)
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		return nil, fmt.Errorf("openapi fragment %s: %w", name, err)
	}
	return m, nil
}

func mergeSection(dst, src map[string]any, file, section string) error {
	s, _ := src[section].(map[string]any)
	if len(s) == 0 {
		return nil
	}
	d, _ := dst[section].(map[string]any)
	if d == nil {
		d = map[string]any{}
		dst[section] = d
	}
	for k, v := range s {
		if _, dup := d[k]; dup {
			return fmt.Errorf("openapi fragment %s: %s %q is defined twice", file, section, k)
		}
		d[k] = v
	}
	return nil
}
