package main

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestOutputYAML: every command with -o json has -o yaml, the same
// document with the same field names, as kubectl and flux offer both.
func TestOutputYAML(t *testing.T) {
	for _, args := range [][]string{
		{"version"},
		{"catalog", "list", "bundles", smallCatalog, "foo"},
		{"validate", smallCatalog},
		{"resolve", "--catalog", operatorhub, "--package", "etcd"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			jsonOut, stderr, code := runCLI(t, append(slices.Clone(args), "-o", "json")...)
			if code != 0 {
				t.Fatalf("-o json: exit %d: %s", code, stderr)
			}
			yamlOut, stderr, code := runCLI(t, append(slices.Clone(args), "-o", "yaml")...)
			if code != 0 {
				t.Fatalf("-o yaml: exit %d: %s", code, stderr)
			}
			if strings.HasPrefix(strings.TrimSpace(yamlOut), "{") || strings.HasPrefix(strings.TrimSpace(yamlOut), "[") {
				t.Fatalf("-o yaml printed JSON:\n%s", yamlOut)
			}
			converted, err := yaml.YAMLToJSON([]byte(yamlOut))
			if err != nil {
				t.Fatalf("-o yaml is not YAML: %v\n%s", err, yamlOut)
			}
			var fromJSON, fromYAML any
			if err := json.Unmarshal([]byte(jsonOut), &fromJSON); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(converted, &fromYAML); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fromJSON, fromYAML) {
				t.Errorf("-o yaml differs from -o json:\n%s\n---\n%s", yamlOut, jsonOut)
			}
		})
	}
}

// TestOutputCompletion: the shell completes -o with the command's formats.
func TestOutputCompletion(t *testing.T) {
	for cmd, want := range map[string]string{
		"plan":   "text json yaml",
		"graph":  "mermaid dot",
		"review": "text json yaml github markdown",
	} {
		out, _, code := runCLI(t, "__complete", cmd, "-o", "")
		var got []string
		for _, line := range strings.Split(out, "\n") {
			if line != "" && !strings.HasPrefix(line, ":") && !strings.HasPrefix(line, "Completion") {
				got = append(got, line)
			}
		}
		if code != 0 || strings.Join(got, " ") != want {
			t.Errorf("olmops __complete %s -o: exit %d, %q; want %q", cmd, code, got, want)
		}
	}
}
