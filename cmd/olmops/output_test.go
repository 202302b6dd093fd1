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
		if got := strings.Join(complete(t, cmd, "-o", ""), " "); got != want {
			t.Errorf("olmops __complete %s -o: %q; want %q", cmd, got, want)
		}
	}
}

// complete returns the values the shell would offer for args, the last
// being the word under the cursor.
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	out, stderr, code := runCLI(t, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("olmops __complete %v: exit %d: %s", args, code, stderr)
	}
	var got []string
	for _, line := range strings.Split(out, "\n") {
		if line != "" && !strings.HasPrefix(line, ":") && !strings.HasPrefix(line, "Completion") {
			got = append(got, strings.SplitN(line, "\t", 2)[0])
		}
	}
	return got
}

// TestCompletion: packages, channels and clusters complete from what the
// command would read, as kubectl completes resource names.
func TestCompletion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"graph", smallCatalog, ""}, "bar foo"},
		{[]string{"graph", smallCatalog, "foo", "--channel", ""}, "beta stable"},
		{[]string{"catalog", "list", ""}, strings.Join(listKinds, " ")},
		{[]string{"catalog", "list", "bundles", smallCatalog, ""}, "bar foo"},
		{[]string{"resolve", "--catalog", operatorhub + ":5", "--package", ""}, "etcd memcached-operator"},
		{[]string{"resolve", "--catalog", operatorhub, "--package", "etcd", "--channel", ""}, "fast stable"},
		{[]string{"plan", "--repo", examplesDir, "--cluster", ""}, "prod-east staging"},
		{[]string{"apply", "--repo", examplesDir, "--cluster", ""}, "prod-east staging"},
		{[]string{"diff", "--repo", examplesDir, "--cluster", ""}, "prod-east staging"},
		{[]string{"plan", "--repo", t.TempDir(), "--cluster", ""}, ""},
	} {
		if handsOver && (tc.args[0] == "apply" || tc.args[0] == "diff") {
			continue // olmops-controller completes them
		}
		if got := strings.Join(complete(t, tc.args...), " "); got != tc.want {
			t.Errorf("olmops %s<TAB> offers %q, want %q", strings.Join(tc.args, " "), got, tc.want)
		}
	}
}
