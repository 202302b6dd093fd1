package plan

import (
	"slices"
	"testing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/property"
)

func TestApproveTogether(t *testing.T) {
	etcdAPI := []Need{{Name: "etcd", What: []string{"EtcdCluster (etcd.database.coreos.com/v1beta2)"}}}
	pl := func(name string, st State, approval v1alpha1.Approval, needs []Need) Plan {
		return Plan{Key: Key{"ns", name}, State: st, Group: name, Needs: needs,
			File: &v1alpha1.InstallPlan{Spec: v1alpha1.InstallPlanSpec{Approval: approval, InputsDigest: "sha256:" + name}}}
	}
	dep := pl("db-dep", Install, v1alpha1.ApprovalAutomatic, nil)
	dep.Group = "db"
	for _, tc := range []struct {
		name  string
		plans []Plan
		// groups by plan name after the rule
		groups map[string]string
		waits  bool
	}{
		{"Automatic waits with the Manual install it needs",
			[]Plan{pl("db", Install, v1alpha1.ApprovalAutomatic, etcdAPI), pl("etcd", Install, v1alpha1.ApprovalManual, nil)},
			map[string]string{"db": "etcd", "etcd": "etcd"}, true},
		{"its dependencies ride along",
			[]Plan{pl("db", Install, v1alpha1.ApprovalAutomatic, etcdAPI), pl("etcd", Upgrade, v1alpha1.ApprovalManual, nil), dep},
			map[string]string{"db": "etcd", "etcd": "etcd", "db-dep": "etcd"}, true},
		{"a Manual provider already approved holds nothing",
			[]Plan{pl("db", Install, v1alpha1.ApprovalAutomatic, etcdAPI), pl("etcd", UpToDate, v1alpha1.ApprovalManual, nil)},
			map[string]string{"db": "db", "etcd": "etcd"}, false},
		{"an Automatic provider holds nothing",
			[]Plan{pl("db", Install, v1alpha1.ApprovalAutomatic, etcdAPI), pl("etcd", Install, v1alpha1.ApprovalAutomatic, nil)},
			map[string]string{"db": "db", "etcd": "etcd"}, false},
		{"an independent Automatic neighbour goes alone",
			[]Plan{pl("cache", Install, v1alpha1.ApprovalAutomatic, nil), pl("etcd", Install, v1alpha1.ApprovalManual, nil)},
			map[string]string{"cache": "cache", "etcd": "etcd"}, false},
		{"an unchanged dependent stays put",
			[]Plan{pl("db", UpToDate, v1alpha1.ApprovalAutomatic, etcdAPI), pl("etcd", Upgrade, v1alpha1.ApprovalManual, nil)},
			map[string]string{"db": "db", "etcd": "etcd"}, false},
		{"waiting is transitive",
			[]Plan{pl("app", Install, v1alpha1.ApprovalAutomatic, []Need{{Name: "db", What: []string{"Database (acme.example.com/v1)"}}}),
				pl("db", Install, v1alpha1.ApprovalManual, etcdAPI), pl("etcd", Install, v1alpha1.ApprovalManual, nil)},
			map[string]string{"app": "etcd", "db": "etcd", "etcd": "etcd"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			approveTogether(tc.plans)
			waits := false
			for _, p := range tc.plans {
				if p.Group != tc.groups[p.Name] {
					t.Errorf("%s in group %q, want %q", p.Name, p.Group, tc.groups[p.Name])
				}
				waits = waits || len(p.Waits) > 0
			}
			if waits != tc.waits {
				t.Errorf("waits said = %v, want %v", waits, tc.waits)
			}
		})
	}
}

func TestApproveTogetherSaysWhy(t *testing.T) {
	plans := []Plan{
		{Key: Key{"ns", "acme-db"}, State: Install, Group: "acme-db", File: &v1alpha1.InstallPlan{},
			Needs: []Need{{Name: "etcd", What: []string{"EtcdCluster (etcd.database.coreos.com/v1beta2)"}}}},
		{Key: Key{"ns", "etcd"}, State: Install, Group: "etcd", File: &v1alpha1.InstallPlan{Spec: v1alpha1.InstallPlanSpec{Approval: v1alpha1.ApprovalManual}}},
	}
	approveTogether(plans)
	want := []string{"acme-db waits with etcd: requires etcd's EtcdCluster (etcd.database.coreos.com/v1beta2)"}
	if !slices.Equal(plans[0].Waits, want) {
		t.Errorf("waits = %q, want %q", plans[0].Waits, want)
	}
}

func TestRequirementsFrom(t *testing.T) {
	etcdGVK := property.GVK{Group: "etcd.database.coreos.com", Version: "v1beta2", Kind: "EtcdCluster"}
	other := property.GVK{Group: "acme.example.com", Version: "v1", Kind: "Backup"}
	etcd := &catalog.Bundle{Package: &catalog.Package{Name: "etcd"}, Props: property.Set{GVKs: []property.GVK{etcdGVK}}}
	for _, tc := range []struct {
		name  string
		props property.Set
		want  []string
	}{
		{"olm.gvk.required", property.Set{GVKsRequired: []property.GVK{etcdGVK, other}}, []string{"EtcdCluster (etcd.database.coreos.com/v1beta2)"}},
		{"olm.package.required", property.Set{PackagesRequired: []property.PackageRequired{{PackageName: "etcd", VersionRange: ">=0.9.2"}}}, []string{"package etcd (>=0.9.2)"}},
		{"a gvk under all", property.Set{Constraints: []property.Constraint{{All: &property.Compound{Constraints: []property.Constraint{{GVK: &etcdGVK}}}}}}, []string{"EtcdCluster (etcd.database.coreos.com/v1beta2)"}},
		{"any names no one provider", property.Set{Constraints: []property.Constraint{{Any: &property.Compound{Constraints: []property.Constraint{{GVK: &etcdGVK}}}}}}, nil},
		{"another package", property.Set{PackagesRequired: []property.PackageRequired{{PackageName: "redis"}}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Requires(&catalog.Bundle{Props: tc.props}).From(etcd)
			if !slices.Equal(got, tc.want) {
				t.Errorf("From = %q, want %q", got, tc.want)
			}
		})
	}
}

// A rider's own change alone must update the proposal: the marker's
// inputs cover every plan once someone rides along.
func TestMarkerCoversRiders(t *testing.T) {
	mk := func(riderInputs string) Marker {
		main := Plan{Key: Key{"ns", "etcd"}, File: &v1alpha1.InstallPlan{Spec: v1alpha1.InstallPlanSpec{InputsDigest: "sha256:e", To: v1alpha1.PlanBundle{Name: "etcd.v1"}}}}
		rider := Plan{Key: Key{"ns", "db"}, Waits: []string{"db waits with etcd"}, File: &v1alpha1.InstallPlan{Spec: v1alpha1.InstallPlanSpec{InputsDigest: riderInputs}}}
		return (&Proposal{Main: main, Plans: []Plan{main, rider}}).Marker()
	}
	if mk("sha256:a").Inputs == mk("sha256:b").Inputs {
		t.Error("a rider's new inputs leave the marker as it was: its proposal would not be updated")
	}
	alone := Plan{Key: Key{"ns", "etcd"}, File: &v1alpha1.InstallPlan{Spec: v1alpha1.InstallPlanSpec{InputsDigest: "sha256:e"}}}
	if got := (&Proposal{Main: alone, Plans: []Plan{alone}}).Marker().Inputs; got != "sha256:e" {
		t.Errorf("a proposal without riders has marker inputs %q, want the plan's own", got)
	}
}
