package plan

import (
	"fmt"
	"strings"
	"testing"
)

// aliasBomb is a manifest whose aliases expand it by about 200,000 nodes
// while enough of it is written out that sigs.k8s.io/yaml's own ratio
// check lets it through.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\n")
	b.WriteString("padding: [" + strings.Repeat("1, ", 3000) + "1]\n")
	b.WriteString("a0: &a0 [" + strings.Repeat("x, ", 99) + "x]\n")
	b.WriteString("a1: &a1 [" + strings.Repeat("*a0, ", 39) + "*a0]\n")
	b.WriteString("a2: [" + strings.Repeat("*a1, ", 49) + "*a1]\n")
	return b.String()
}

func TestTargetManifests(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n"
	tests := []struct {
		name    string
		files   map[string][]byte
		want    []string // names, in order
		wantErr string
	}{
		{name: "only the manifests folder, every document", files: map[string][]byte{
			"installplan.yaml":        []byte("kind: InstallPlan\n"),
			"manifests/a.yaml":        []byte(fmt.Sprintf(cm, "a") + "---\n" + fmt.Sprintf(cm, "b")),
			"manifests/c.yaml":        []byte(fmt.Sprintf(cm, "c")),
			"hops/x/manifests/d.yaml": []byte(fmt.Sprintf(cm, "d")),
		}, want: []string{"a", "b", "c"}},
		{name: "an alias bomb is refused at its line", files: map[string][]byte{
			"manifests/bomb.yaml": []byte(aliasBomb()),
		}, wantErr: "manifests/bomb.yaml:8: YAML aliases expand the document"},
		{name: "a duplicate key is refused", files: map[string][]byte{
			"manifests/a.yaml": []byte(fmt.Sprintf(cm, "a") + "kind: Secret\n"),
		}, wantErr: "manifests/a.yaml:5:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := TargetManifests(tt.files)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range objs {
				got = append(got, o.GetName())
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("names = %v, want %v", got, tt.want)
			}
		})
	}
}
