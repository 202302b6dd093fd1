package render

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files of TestRenderGolden")

// A real bundle rendered the way a plan shows it; a change to Render that
// changes these files must be a change someone meant.
func TestRenderGolden(t *testing.T) {
	patterns := func(t *testing.T) *Bundle {
		return realBundle(t, patternsCatalog, patternsPackage, patternsBundle)
	}
	etcd := func(t *testing.T) *Bundle {
		return realBundle(t, exampleCatalogs+"/operatorhub/etcd", "etcd", "etcdoperator.v0.9.4")
	}
	config := map[string]any{
		"env":          []any{map[string]any{"name": "ANALYTICS", "value": "false"}, map[string]any{"name": "HTTPS_PROXY", "value": "http://proxy.internal:3128"}},
		"tolerations":  []any{map[string]any{"key": "node-role.kubernetes.io/infra", "operator": "Exists", "effect": "NoSchedule"}},
		"nodeSelector": map[string]any{"node-role.kubernetes.io/infra": ""},
		"resources":    map[string]any{"requests": map[string]any{"cpu": "50m", "memory": "128Mi"}, "limits": map[string]any{"memory": "1Gi"}},
		"volumes":      []any{map[string]any{"name": "trusted-ca", "configMap": map[string]any{"name": "trusted-ca"}}},
		"volumeMounts": []any{map[string]any{"name": "trusted-ca", "mountPath": "/etc/pki/ca-trust/extracted/pem", "readOnly": true}},
		"annotations":  map[string]any{"example.com/team": "platform"},
	}
	tests := []struct {
		name   string
		bundle func(*testing.T) *Bundle
		opts   Options
	}{
		{"patterns-operator-own-namespace", patterns, Options{Namespace: "patterns", TargetNamespaces: []string{"patterns"}}},
		{"patterns-operator-all-namespaces-config", patterns, Options{Namespace: "openshift-operators", OperatorGroup: "global-operators", Config: config}},
		{"etcd-own-namespace", etcd, Options{Namespace: "etcd-system", TargetNamespaces: []string{"etcd-system"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.bundle(t)
			res := mustRender(t, b, tt.opts)
			got, err := goldenText(b, tt.opts, res)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", tt.name+".yaml")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestRenderGolden -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("rendering differs from %s (run go test -run TestRenderGolden -update and review the diff):\n%s", path, firstDifference(got, want))
			}
		})
	}
}

// goldenText is a rendering as one YAML stream, its options and warnings
// in comments at the top.
func goldenText(b *Bundle, opts Options, res *Result) ([]byte, error) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# Render of bundle %s (package %s) into namespace %s, target namespaces %q.\n", b.Name, b.Package, opts.Namespace, opts.TargetNamespaces)
	if len(opts.Config) > 0 {
		cfg, err := yaml.Marshal(opts.Config)
		if err != nil {
			return nil, err
		}
		buf.WriteString("# Subscription config:\n")
		for _, l := range strings.Split(strings.TrimSpace(string(cfg)), "\n") {
			buf.WriteString("#   " + l + "\n")
		}
	}
	for _, w := range res.Warnings {
		buf.WriteString("# Warning: " + w + "\n")
	}
	for _, o := range res.Objects {
		data, err := yaml.Marshal(o.Object)
		if err != nil {
			return nil, err
		}
		buf.WriteString("---\n")
		buf.Write(data)
	}
	return buf.Bytes(), nil
}

func firstDifference(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got: %s\nwant: %s", i+1, gl, wl)
		}
	}
	return "no line differs"
}
