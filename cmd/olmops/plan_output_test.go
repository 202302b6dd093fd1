package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/olmops/olmops/plan"
	"github.com/olmops/olmops/planner"
)

// A subscription promotion holds is printed with the reason, by plan and
// plan --check alike.
func TestPlanReportShowsHolds(t *testing.T) {
	r := &planner.Report{Clusters: []planner.ClusterReport{{Name: "prod-east", Holds: []plan.Hold{{
		Key: plan.Key{Namespace: "etcd-system", Name: "etcd"}, Package: "etcd", Target: "etcdoperator.v0.9.4",
		Message: "waiting for promotion: staging has etcdoperator.v0.9.4 healthy since 2026-11-27T11:00:00Z (soak 24h, until 2026-11-28T11:00:00Z)",
	}}}}}
	var out bytes.Buffer
	if err := writePlanReport(&out, "text", r); err != nil {
		t.Fatal(err)
	}
	want := "  etcd-system/etcd: etcd stays: waiting for promotion: staging has etcdoperator.v0.9.4 healthy since 2026-11-27T11:00:00Z (soak 24h, until 2026-11-28T11:00:00Z)\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("output:\n%s\nwant the line\n%s", out.String(), want)
	}
}
