package render

import "testing"

func TestChangesSummary(t *testing.T) {
	tests := []struct {
		name          string
		before, after []string
		max           int
		want          string
	}{
		{name: "nothing", before: []string{serviceYAML}, after: []string{serviceYAML}, max: 5, want: ""},
		{name: "an image", before: []string{deploymentYAML("etcd:v1")}, after: []string{deploymentYAML("etcd:v2")}, max: 5,
			want: "Deployment/etcd-operator image"},
		{name: "an image and an env var", before: []string{deploymentYAML("etcd:v1")}, after: []string{deploymentYAML("etcd:v2", "DEBUG")}, max: 5,
			want: "Deployment/etcd-operator env image"},
		{name: "rules gained and lost", before: []string{roleYAML("Role", "etcd-operator", rulesBefore)}, after: []string{roleYAML("Role", "etcd-operator", rulesAfter)}, max: 5,
			want: "Role/etcd-operator +3 rules -1 rule"},
		{name: "a CRD version", before: []string{crdYAML("v1beta1:sS")}, after: []string{crdYAML("v1beta1:s", "v1:sS")}, max: 5,
			want: "CustomResourceDefinition/etcdclusters.etcd.database.coreos.com +v1"},
		{name: "added and removed", before: []string{serviceYAML}, after: []string{roleYAML("ClusterRole", "etcd-admin", rulesAdmin)}, max: 5,
			want: "+ClusterRole/etcd-admin, -Service/etcd-metrics"},
		{name: "capped", before: []string{serviceYAML, deploymentYAML("etcd:v1")}, after: []string{roleYAML("ClusterRole", "etcd-admin", rulesAdmin), deploymentYAML("etcd:v2")}, max: 1,
			want: "+ClusterRole/etcd-admin, 2 more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Compare(mustCompareObjects(t, tt.before...), mustCompareObjects(t, tt.after...))
			if got := c.Summary(tt.max); got != tt.want {
				t.Errorf("Summary = %q, want %q", got, tt.want)
			}
		})
	}
}

// A name with a line break stays on one line: a commit subject cannot be
// forged from a bundle.
func TestChangesSummaryOneLine(t *testing.T) {
	c := Changes{Added: []ObjectRef{{Kind: "ConfigMap", Name: "x\n\nSigned-off-by: someone"}}}
	if got, want := c.Summary(3), "+ConfigMap/xSigned-off-by: someone"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
}
