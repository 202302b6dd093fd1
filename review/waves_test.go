package review

import (
	"reflect"
	"testing"

	"github.com/olmops/olmops/api/v1alpha1"
)

func TestWaves(t *testing.T) {
	specs := []v1alpha1.Cluster{
		{Name: "prod", Promotion: &v1alpha1.Promotion{After: []string{"canary"}, Soak: "24h"}},
		{Name: "canary", Promotion: &v1alpha1.Promotion{After: []string{"staging"}, Soak: "1h"}},
		{Name: "staging"},
		{Name: "lab"},
	}
	impact := []Impact{{Cluster: "prod"}, {Cluster: "staging"}, {Cluster: "prod"}, {Cluster: "canary"}}
	got := waves(specs, impact)
	want := []Wave{
		{Number: 1, Clusters: []string{"staging"}},
		{Number: 2, Clusters: []string{"canary"}, Waits: []string{"canary after staging (soak 1h)"}},
		{Number: 3, Clusters: []string{"prod"}, Waits: []string{"prod after canary (soak 24h)"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("waves = %+v\nwant %+v", got, want)
	}
	if s := got[2].Text(); s != "wave 3: prod — prod after canary (soak 24h)" {
		t.Errorf("Text() = %q", s)
	}
	if got := waves(specs, []Impact{{Cluster: "lab"}, {Cluster: "staging"}}); got != nil {
		t.Errorf("no impacted follower: waves = %+v, want none", got)
	}
}
