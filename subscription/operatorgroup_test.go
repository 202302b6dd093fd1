package subscription

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoadObjectsOperatorGroups(t *testing.T) {
	sub := "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: etcd, namespace: ops}\nspec: {name: etcd}\n"
	og := func(name, ns, targets string) string {
		return "apiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec: {targetNamespaces: [" + targets + "]}\n"
	}
	tests := []struct {
		name    string
		files   map[string]string
		targets map[string][]string
		err     string
	}{
		{name: "one per namespace", files: map[string]string{"s/a.yaml": sub + "---\n" + og("og", "ops", "ops, apps")},
			targets: map[string][]string{"ops": {"ops", "apps"}}},
		{name: "all namespaces", files: map[string]string{"s/a.yaml": sub, "s/og.yaml": og("global", "ops", "")},
			targets: map[string][]string{"ops": nil}},
		{name: "two in a namespace", files: map[string]string{"s/a.yaml": og("a", "ops", ""), "s/b.yaml": og("b", "ops", "")},
			err: "s/b.yaml:1: namespace ops already has OperatorGroup a at s/a.yaml:1"},
		{name: "selector refused", files: map[string]string{"s/a.yaml": "apiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata: {name: a, namespace: ops}\nspec:\n  selector: {matchLabels: {a: b}}\n"},
			err: "s/a.yaml:5: OperatorGroup spec.selector is not supported"},
		{name: "unknown field", files: map[string]string{"s/a.yaml": "apiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata: {name: a, namespace: ops}\nspec:\n  targetNamespace: [x]\n"},
			err: "s/a.yaml:5:"},
		{name: "no namespace", files: map[string]string{"s/a.yaml": "apiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata: {name: a}\n"},
			err: "s/a.yaml:1: OperatorGroup metadata.namespace is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for p, d := range tt.files {
				fsys[p] = &fstest.MapFile{Data: []byte(d)}
			}
			objs, err := LoadObjects(t.Context(), fsys, "s")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for ns, want := range tt.targets {
				g := objs.OperatorGroup(ns)
				if g == nil || strings.Join(g.TargetNamespaces, ",") != strings.Join(want, ",") {
					t.Errorf("OperatorGroup(%s) = %+v, want targets %v", ns, g, want)
				}
			}
		})
	}
	// Parse alone still refuses what is not intent.
	if _, err := Parse("x.yaml", []byte(og("a", "ops", ""))); err == nil || !strings.Contains(err.Error(), `kind "OperatorGroup" is not Subscription or ClusterExtension`) {
		t.Errorf("Parse(OperatorGroup) err = %v", err)
	}
}
