package subscription

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoadDirExamples(t *testing.T) {
	for _, cluster := range []string{"prod-east", "staging"} {
		t.Run(cluster, func(t *testing.T) {
			got, err := LoadDir(t.Context(), os.DirFS("../examples"), "clusters/"+cluster+"/subscriptions")
			if err != nil {
				t.Fatalf("LoadDir: %v", err)
			}
			if len(got) == 0 {
				t.Fatal("LoadDir: no intents")
			}
			for _, in := range got {
				if in.Package == "" || in.Namespace == "" || in.Pos.Line == 0 {
					t.Errorf("incomplete intent %+v", in)
				}
			}
		})
	}
}

func TestLoadDir(t *testing.T) {
	sub := func(name, ns string) string {
		return "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec: {name: " + name + "}\n"
	}
	ce := func(name, ns string) string {
		return "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata: {name: " + name + "}\nspec: {namespace: " + ns + ", source: {sourceType: Catalog, catalog: {packageName: " + name + "}}}\n"
	}
	tests := []struct {
		name    string
		files   map[string]string
		want    []string // namespace/name of the intents, in order
		wantErr string
	}{
		{
			name: "sorted, nested, non-YAML ignored",
			files: map[string]string{
				"subs/z.yaml":         sub("b", "ns2"),
				"subs/a.yml":          sub("a", "ns2") + "---\n" + sub("c", "ns1"),
				"subs/nested/d.json":  `{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "Subscription", "metadata": {"name": "d", "namespace": "ns1"}, "spec": {"name": "d"}}`,
				"subs/README.md":      "not yaml: [",
				"other/ignored.yaml":  "kind: Deployment\n",
				"subs/ext/ce.yaml":    ce("e", "ns3"),
				"subs/kustom/x.yamlx": "nope",
			},
			want: []string{"ns1/c", "ns1/d", "ns2/a", "ns2/b", "ns3/e"},
		},
		{
			name: "duplicate namespace/name across files",
			files: map[string]string{
				"subs/a.yaml": sub("etcd", "ns"),
				"subs/b.yaml": "# second\n" + sub("etcd", "ns"),
			},
			wantErr: "subs/b.yaml:2: Subscription ns/etcd is already defined at subs/a.yaml:1",
		},
		{
			name: "ClusterExtension names are cluster-wide",
			files: map[string]string{
				"subs/a.yaml": ce("etcd", "ns1"),
				"subs/b.yaml": ce("etcd", "ns2"),
			},
			wantErr: "subs/b.yaml:1: ClusterExtension etcd is already defined at subs/a.yaml:1 (ClusterExtensions are cluster-scoped)",
		},
		{
			name: "errors of every file",
			files: map[string]string{
				"subs/a.yaml": "kind: Pod\n",
				"subs/b.yaml": sub("ok", "ns") + "---\nkind: Service\n",
			},
			wantErr: "subs/a.yaml:1: kind \"Pod\" is not Subscription or ClusterExtension\nsubs/b.yaml:6: kind \"Service\" is not Subscription or ClusterExtension",
			want:    []string{"ns/ok"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for p, s := range tt.files {
				fsys[p] = &fstest.MapFile{Data: []byte(s)}
			}
			got, err := LoadDir(t.Context(), fsys, "subs")
			if tt.wantErr == "" && err != nil {
				t.Fatalf("LoadDir: %v", err)
			}
			if tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr) {
				t.Fatalf("LoadDir error = %v, want %s", err, tt.wantErr)
			}
			if tt.want == nil {
				return
			}
			var names []string
			for _, in := range got {
				names = append(names, in.Namespace+"/"+in.Name)
			}
			if strings.Join(names, " ") != strings.Join(tt.want, " ") {
				t.Errorf("LoadDir = %v, want %v", names, tt.want)
			}
		})
	}
}

func TestLoadDirMissing(t *testing.T) {
	if _, err := LoadDir(t.Context(), fstest.MapFS{}, "nope"); err == nil {
		t.Fatal("LoadDir of a missing directory: no error")
	}
}
