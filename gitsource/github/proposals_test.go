package github

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/olmops/olmops/gitsource"
)

// writes counts the requests after the first skip that change something,
// by method and path below the repository.
func writes(fx *fixture, skip int) map[string]int {
	out := map[string]int{}
	prefix := "/repos/" + testOwner + "/" + fx.repo
	for _, r := range fx.gh.Requests()[skip:] {
		if r.Method != http.MethodGet {
			out[r.Method+" "+strings.TrimPrefix(strings.TrimPrefix(r.Path, "/api/v3"), prefix)]++
		}
	}
	return out
}

func TestPropose(t *testing.T) {
	fx := newFixture(t)
	head := fx.push(t, "olmops/etcd", "plan.yaml", "etcd 0.9.4\n")
	base := gitsource.ProposalRequest{Head: "olmops/etcd", Base: "main", Title: "etcd 0.9.2 → 0.9.4", Body: "upgrade path"}
	with := func(change func(*gitsource.ProposalRequest)) gitsource.ProposalRequest {
		r := base
		change(&r)
		return r
	}
	steps := []struct {
		name       string
		req        gitsource.ProposalRequest
		wantLabels []string
		wantWrites map[string]int
	}{
		{"opens with sorted labels", with(func(r *gitsource.ProposalRequest) { r.Labels = []string{"olmops", "approval/manual", "olmops"} }),
			[]string{"approval/manual", "olmops"}, map[string]int{"POST /pulls": 1, "POST /issues/1/labels": 1}},
		{"sends nothing when unchanged", with(func(r *gitsource.ProposalRequest) { r.Labels = []string{"approval/manual", "olmops"} }),
			[]string{"approval/manual", "olmops"}, map[string]int{}},
		{"labels compare as sets ignoring case", with(func(r *gitsource.ProposalRequest) { r.Labels = []string{"OLMOPS", "approval/manual"} }),
			[]string{"approval/manual", "olmops"}, map[string]int{}},
		{"updates title and body", with(func(r *gitsource.ProposalRequest) {
			r.Title, r.Body, r.Labels = "etcd 0.9.2 → 0.9.5", "", []string{"approval/manual", "olmops"}
		}), []string{"approval/manual", "olmops"}, map[string]int{"PATCH /pulls/1": 1}},
		{"replaces labels", with(func(r *gitsource.ProposalRequest) {
			r.Title, r.Body, r.Labels = "etcd 0.9.2 → 0.9.5", "", []string{"olmops"}
		}),
			[]string{"olmops"}, map[string]int{"PUT /issues/1/labels": 1}},
		{"removes every label", with(func(r *gitsource.ProposalRequest) { r.Title, r.Body = "etcd 0.9.2 → 0.9.5", "" }),
			nil, map[string]int{"PUT /issues/1/labels": 1}},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			before := len(fx.gh.Requests())
			p, err := fx.forge.Propose(t.Context(), step.req)
			if err != nil {
				t.Fatalf("Propose: %v", err)
			}
			want := gitsource.Proposal{Number: 1, URL: p.URL, Head: step.req.Head, Base: "main", HeadCommit: head,
				Title: step.req.Title, Body: step.req.Body, Labels: step.wantLabels, State: gitsource.ProposalOpen}
			if !proposalEqual(*p, want) || !strings.HasSuffix(p.URL, "/pull/1") {
				t.Errorf("Propose = %+v, want %+v", *p, want)
			}
			if got := writes(fx, before); !maps.Equal(got, step.wantWrites) {
				t.Errorf("writes = %v, want %v", got, step.wantWrites)
			}
			pr, _ := fx.gh.PR(1)
			if labels := normalize(pr.Labels); pr.Title != step.req.Title || pr.Body != step.req.Body || !slices.Equal(labels, step.wantLabels) {
				t.Errorf("GitHub has %q %q %v", pr.Title, pr.Body, labels)
			}
		})
	}
}

func proposalEqual(a, b gitsource.Proposal) bool {
	return slices.Equal(a.Labels, b.Labels) && fmt.Sprint(a) == fmt.Sprint(b)
}

// TestProposeFollowsPushes checks the head commit reported after a new
// push to the head branch, and a base change.
func TestProposeFollowsPushes(t *testing.T) {
	fx := newFixture(t)
	fx.push(t, "plan", "a", "1")
	fx.push(t, "release", "release.txt", "r")
	req := gitsource.ProposalRequest{Head: "plan", Base: "main", Title: "plan"}
	if _, err := fx.forge.Propose(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	second := fx.push(t, "plan", "a", "2")
	req.Base = "release"
	p, err := fx.forge.Propose(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if p.HeadCommit != second || p.Base != "release" || p.Number != 1 {
		t.Errorf("Propose = %+v, want head %s into release", *p, second)
	}
	ps, err := fx.forge.Proposals(t.Context(), "plan")
	if err != nil || len(ps) != 1 || ps[0].HeadCommit != second {
		t.Errorf("Proposals = %+v, %v; want one at %s", ps, err, second)
	}
}

func TestProposalStates(t *testing.T) {
	tests := []struct {
		name         string
		act          func(t *testing.T, fx *fixture, p *gitsource.Proposal)
		want         gitsource.ProposalState
		wantComments []string
	}{
		{"open", func(*testing.T, *fixture, *gitsource.Proposal) {}, gitsource.ProposalOpen, nil},
		{"merged", func(t *testing.T, fx *fixture, p *gitsource.Proposal) { fx.gh.Merge(t, p.Number) }, gitsource.ProposalMerged, nil},
		{"closed on GitHub", func(t *testing.T, fx *fixture, p *gitsource.Proposal) { fx.gh.ClosePR(t, p.Number) }, gitsource.ProposalClosed, nil},
		{"closed with a comment", func(t *testing.T, fx *fixture, p *gitsource.Proposal) {
			if err := fx.forge.Close(t.Context(), p, "superseded by #2"); err != nil {
				t.Fatal(err)
			}
		}, gitsource.ProposalClosed, []string{"superseded by #2"}},
		{"closed twice without a comment", func(t *testing.T, fx *fixture, p *gitsource.Proposal) {
			for range 2 {
				if err := fx.forge.Close(t.Context(), p, ""); err != nil {
					t.Fatal(err)
				}
			}
		}, gitsource.ProposalClosed, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t)
			head := fx.push(t, "plan", "plan.yaml", "x")
			p, err := fx.forge.Propose(t.Context(), gitsource.ProposalRequest{Head: "plan", Base: "main", Title: "plan"})
			if err != nil {
				t.Fatal(err)
			}
			tt.act(t, fx, p)
			ps, err := fx.forge.Proposals(t.Context(), "plan")
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != 1 || ps[0].State != tt.want || ps[0].HeadCommit != head {
				t.Fatalf("Proposals = %+v, want one %s at %s", ps, tt.want, head)
			}
			if pr, _ := fx.gh.PR(p.Number); !slices.Equal(pr.Comments, tt.wantComments) {
				t.Errorf("comments = %q, want %q", pr.Comments, tt.wantComments)
			}
		})
	}
}

func TestCloseMerged(t *testing.T) {
	fx := newFixture(t)
	fx.push(t, "plan", "plan.yaml", "x")
	p, err := fx.forge.Propose(t.Context(), gitsource.ProposalRequest{Head: "plan", Base: "main", Title: "plan"})
	if err != nil {
		t.Fatal(err)
	}
	fx.gh.Merge(t, p.Number)
	err = fx.forge.Close(t.Context(), p, "rejected")
	if !errors.Is(err, gitsource.ErrForge) || !strings.Contains(err.Error(), "#1 was merged") {
		t.Errorf("Close(merged) = %v, want an ErrForge saying it was merged", err)
	}
	if pr, _ := fx.gh.PR(1); len(pr.Comments) != 0 {
		t.Errorf("a merged pull request got comments %q", pr.Comments)
	}
}

// TestProposalsNewestFirst re-proposes a closed plan: both are listed, the
// new one first, and another head's pull request is not.
func TestProposalsNewestFirst(t *testing.T) {
	fx := newFixture(t)
	fx.push(t, "plan", "plan.yaml", "x")
	fx.push(t, "plan-other", "other.yaml", "y")
	ctx := t.Context()
	if none, err := fx.forge.Proposals(ctx, "plan"); err != nil || len(none) != 0 {
		t.Fatalf("Proposals before any = %v, %v; want none", none, err)
	}
	for _, head := range []string{"plan", "plan-other"} {
		if _, err := fx.forge.Propose(ctx, gitsource.ProposalRequest{Head: head, Base: "main", Title: head}); err != nil {
			t.Fatal(err)
		}
	}
	first := proposals(t, fx.forge, "plan")
	if err := fx.forge.Close(ctx, &first[0], "superseded"); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.forge.Propose(ctx, gitsource.ProposalRequest{Head: "plan", Base: "main", Title: "again"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range proposals(t, fx.forge, "plan") {
		got = append(got, fmt.Sprintf("#%d %s %s", p.Number, p.Head, p.State))
	}
	if want := []string{"#3 plan open", "#1 plan closed"}; !slices.Equal(got, want) {
		t.Errorf("Proposals = %q, want %q", got, want)
	}
}

// TestProposalsPagination lists more pull requests than GitHub's default
// page of 30, with several page sizes.
func TestProposalsPagination(t *testing.T) {
	fx := newFixture(t)
	fx.push(t, "plan", "plan.yaml", "x")
	const total = 35
	for i := range total {
		p, err := fx.forge.Propose(t.Context(), gitsource.ProposalRequest{Head: "plan", Base: "main", Title: fmt.Sprint("plan ", i)})
		if err != nil {
			t.Fatal(err)
		}
		if i < total-1 {
			fx.gh.ClosePR(t, p.Number)
		}
	}
	for _, tt := range []struct{ perPage, wantRequests int }{{100, 1}, {30, 2}, {10, 4}, {7, 5}} {
		t.Run(fmt.Sprint("per page ", tt.perPage), func(t *testing.T) {
			f := *fx.forge
			f.perPage = tt.perPage
			path := "/repos/" + testOwner + "/" + fx.repo + "/pulls"
			before := fx.gh.CountRequests(http.MethodGet, path)
			ps, err := f.Proposals(t.Context(), "plan")
			if err != nil {
				t.Fatal(err)
			}
			if n := fx.gh.CountRequests(http.MethodGet, path) - before; n != tt.wantRequests {
				t.Errorf("%d requests, want %d", n, tt.wantRequests)
			}
			if len(ps) != total || ps[0].State != gitsource.ProposalOpen {
				t.Fatalf("%d proposals, first %+v; want %d, the first open", len(ps), ps[0], total)
			}
			for i, p := range ps {
				if p.Number != total-i {
					t.Fatalf("proposal %d is #%d, want #%d (newest first)", i, p.Number, total-i)
				}
			}
		})
	}
}

func proposals(t *testing.T, f *Forge, head string) []gitsource.Proposal {
	t.Helper()
	ps, err := f.Proposals(t.Context(), head)
	if err != nil {
		t.Fatalf("Proposals(%s): %v", head, err)
	}
	return ps
}
