package planning

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	gh "github.com/google/go-github/v62/github"
	"k8s.io/client-go/tools/events"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/plan"
	"github.com/olmops/olmops/planner"
)

func proposed(ns, name, to, commit string, number int) planner.PlanReport {
	return planner.PlanReport{Key: plan.Key{Namespace: ns, Name: name}, Action: planner.ActionProposed, To: to, Commit: commit,
		Branch: "olmops/c/" + ns + "/" + name, Proposal: &gitsource.Proposal{Number: number, State: gitsource.ProposalOpen}}
}

func entry(cluster, ns, name, to, commit string, number int) v1alpha1.ProposalStatus {
	return v1alpha1.ProposalStatus{Branch: "olmops/c/" + ns + "/" + name, Cluster: cluster, Namespace: ns, Name: name,
		TargetBundle: to, Number: number, State: "open", Commit: commit}
}

func TestRecordProposals(t *testing.T) {
	a1 := entry("a", "ns", "etcd", "etcd.v1", "c1", 1)
	b2 := entry("b", "ns", "db", "db.v2", "c2", 2)
	tests := []struct {
		name     string
		prev     []v1alpha1.ProposalStatus
		report   *planner.Report
		complete bool
		want     []v1alpha1.ProposalStatus
		events   []string // reasons, in order
	}{
		{name: "opened", report: &planner.Report{Clusters: []planner.ClusterReport{{Name: "a", Plans: []planner.PlanReport{proposed("ns", "etcd", "etcd.v1", "c1", 1)}}}},
			complete: true, want: []v1alpha1.ProposalStatus{a1}, events: []string{"ProposalOpened"}},
		{name: "unchanged", prev: []v1alpha1.ProposalStatus{a1},
			report:   &planner.Report{Clusters: []planner.ClusterReport{{Name: "a", Plans: []planner.PlanReport{proposed("ns", "etcd", "etcd.v1", "c1", 1)}}}},
			complete: true, want: []v1alpha1.ProposalStatus{a1}},
		{name: "updated", prev: []v1alpha1.ProposalStatus{a1},
			report:   &planner.Report{Clusters: []planner.ClusterReport{{Name: "a", Plans: []planner.PlanReport{proposed("ns", "etcd", "etcd.v2", "c3", 1)}}}},
			complete: true, want: []v1alpha1.ProposalStatus{entry("a", "ns", "etcd", "etcd.v2", "c3", 1)}, events: []string{"ProposalUpdated"}},
		{name: "merged: gone", prev: []v1alpha1.ProposalStatus{a1},
			report: &planner.Report{Clusters: []planner.ClusterReport{{Name: "a"}}}, complete: true},
		{name: "a broken cluster keeps its proposals", prev: []v1alpha1.ProposalStatus{a1, b2},
			report: &planner.Report{Clusters: []planner.ClusterReport{{Name: "a", Err: errors.New("x.yaml:3: bad")}, {Name: "b"}}},
			want:   []v1alpha1.ProposalStatus{a1}},
		{name: "a cluster no longer selected", prev: []v1alpha1.ProposalStatus{a1, b2},
			report: &planner.Report{Clusters: []planner.ClusterReport{{Name: "b", Plans: []planner.PlanReport{proposed("ns", "db", "db.v2", "c2", 2)}}}}, complete: true,
			want: []v1alpha1.ProposalStatus{b2}},
		{name: "an interrupted run keeps the rest", prev: []v1alpha1.ProposalStatus{a1, b2},
			report: &planner.Report{Clusters: []planner.ClusterReport{{Name: "b", Plans: []planner.PlanReport{proposed("ns", "db", "db.v2", "c2", 2)}}}},
			want:   []v1alpha1.ProposalStatus{b2, a1}},
		{name: "no report: as before", prev: []v1alpha1.ProposalStatus{a1}, want: []v1alpha1.ProposalStatus{a1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := events.NewFakeRecorder(10)
			r := &Reconciler{Recorder: rec}
			p := &pass{obj: &v1alpha1.Planner{Status: v1alpha1.PlannerStatus{Proposals: slices.Clone(tt.prev)}}, report: tt.report}
			r.recordProposals(p, tt.complete)
			if !slices.Equal(p.obj.Status.Proposals, tt.want) {
				t.Errorf("proposals\n got %+v\nwant %+v", p.obj.Status.Proposals, tt.want)
			}
			close(rec.Events)
			var got []string
			for e := range rec.Events {
				got = append(got, strings.Fields(e)[1])
			}
			if !slices.Equal(got, tt.events) {
				t.Errorf("events %q, want reasons %q", got, tt.events)
			}
		})
	}
}

func TestRetryWait(t *testing.T) {
	now := time.Now()
	limited := func(reset time.Time) error {
		return fmt.Errorf("propose: %w", &gh.RateLimitError{Rate: gh.Rate{Reset: gh.Timestamp{Time: reset}}})
	}
	tests := []struct {
		name    string
		backoff time.Duration
		err     error
		want    time.Duration
	}{
		{"not a limit", 2 * time.Second, errors.New("connection refused"), 2 * time.Second},
		{"a limit that resets later", 2 * time.Second, limited(now.Add(time.Minute)), time.Minute},
		{"a limit that resets sooner", 2 * time.Minute, limited(now.Add(time.Minute)), 2 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := retryWait(tt.backoff, tt.err, now); got != tt.want {
				t.Errorf("retryWait = %v, want %v", got, tt.want)
			}
		})
	}
}
