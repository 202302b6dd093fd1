package gitsource_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

// pushPlan commits a plan on head from main, as the planner does, and
// force-pushes it when the repository has a remote.
func pushPlan(t *testing.T, repo *gitsource.Repo, head, message, content string) plumbing.Hash {
	t.Helper()
	h, err := repo.Commit(t.Context(), gitsource.CommitRequest{
		Parent: resolve(t, repo, "main"), Branch: head, Message: message, Author: author,
		Files: map[string][]byte{"clusters/prod/plans/ns/etcd/installplan.yaml": []byte(content)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if repo.HasRemote() {
		if err := repo.Push(t.Context(), head, true); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// proposals is Proposals of head, which must be one proposal.
func proposal(t *testing.T, f gitsource.Forge, head string) gitsource.Proposal {
	t.Helper()
	ps, err := f.Proposals(t.Context(), head)
	if err != nil || len(ps) != 1 {
		t.Fatalf("Proposals(%s) = %v, %v; want one", head, ps, err)
	}
	return ps[0]
}

func TestGitForgeLifecycle(t *testing.T) {
	const head = "olmops/prod/etcd"
	rm := newRemote(t, baseFiles)
	repo := rm.open(t)
	f := gitsource.NewGitForge(repo)
	ctx := t.Context()

	h1 := pushPlan(t, repo, head, "etcd 0.9.2 -> 0.9.4\n\nUpgrade path: 0.9.2 -> 0.9.4\n", "v1")
	req := gitsource.ProposalRequest{
		Head: head, Base: "main", Title: "etcd 0.9.2 -> 0.9.4", Body: "Upgrade path: 0.9.2 -> 0.9.4\n",
		Labels: []string{"olmops", "approval", "olmops"},
	}
	p, err := f.Propose(ctx, req)
	if err != nil {
		t.Fatalf("Propose: %v", err)
	}
	want := gitsource.Proposal{
		Head: head, Base: "main", HeadCommit: h1.String(), Title: req.Title, Body: req.Body,
		Labels: []string{"approval", "olmops"}, State: gitsource.ProposalOpen,
	}
	if !reflect.DeepEqual(*p, want) {
		t.Fatalf("Propose =\n%+v\nwant\n%+v", *p, want)
	}
	record := gitsource.ProposalRefPrefix + head
	if got := rm.rev(t, record+"^1"); got != h1 {
		t.Errorf("server record's parent = %s, want the proposed %s", got, h1)
	}
	if got := gittest.Git(t, rm.dir, "log", "-1", "--format=%B", record); got != req.Title+"\n\n"+req.Body+"\n" {
		t.Errorf("record message = %q", got)
	}

	// Another clone reads the same proposal; proposing it again writes nothing.
	other := gitsource.NewGitForge(rm.open(t))
	if got := proposal(t, other, head); !reflect.DeepEqual(got, want) {
		t.Errorf("Proposals from another clone =\n%+v\nwant\n%+v", got, want)
	}
	before := rm.ref(t, record)
	if _, err := f.Propose(ctx, req); err != nil {
		t.Fatal(err)
	}
	if got := rm.ref(t, record); got != before {
		t.Errorf("unchanged Propose rewrote the record: %s -> %s", before, got)
	}

	// A new plan on the head, proposed again, updates the record.
	h2 := pushPlan(t, repo, head, "etcd 0.9.2 -> 0.9.5", "v2")
	req.Title, req.Body, req.Labels = "etcd 0.9.2 -> 0.9.5", "", nil
	if _, err := other.Propose(ctx, req); err != nil {
		t.Fatalf("Propose from the other clone: %v", err)
	}
	want.HeadCommit, want.Title, want.Body, want.Labels = h2.String(), req.Title, "", nil
	if got := proposal(t, f, head); !reflect.DeepEqual(got, want) {
		t.Errorf("updated proposal =\n%+v\nwant\n%+v", got, want)
	}

	mergeOnServer(t, rm, head, "--no-ff", "-m", "merge the plan")
	want.State = gitsource.ProposalMerged
	if got := proposal(t, f, head); !reflect.DeepEqual(got, want) {
		t.Errorf("after the merge =\n%+v\nwant\n%+v", got, want)
	}

	if ps, err := f.Proposals(ctx, "olmops/never-proposed"); err != nil || len(ps) != 0 {
		t.Errorf("Proposals of a head never proposed = %v, %v; want none", ps, err)
	}
	if ps, err := f.Proposals(ctx, "main"); err != nil || len(ps) != 0 {
		t.Errorf("Proposals(main) = %v, %v; want none", ps, err)
	}
}

func TestGitForgeMergeKinds(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		want   gitsource.ProposalState
		delete gitsource.ProposalState // after the head branch is deleted
	}{
		{name: "merge commit", args: []string{"--no-ff", "-m", "merge"}, want: gitsource.ProposalMerged, delete: gitsource.ProposalMerged},
		{name: "fast-forward", args: []string{"--ff-only"}, want: gitsource.ProposalMerged, delete: gitsource.ProposalMerged},
		{name: "squash", args: []string{"--squash"}, want: gitsource.ProposalOpen, delete: gitsource.ProposalClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const head = "olmops/x"
			rm := newRemote(t, baseFiles)
			repo := rm.open(t)
			f := gitsource.NewGitForge(repo)
			pushPlan(t, repo, head, "plan", "x")
			if _, err := f.Propose(t.Context(), gitsource.ProposalRequest{Head: head, Base: "main", Title: "plan"}); err != nil {
				t.Fatal(err)
			}
			mergeOnServer(t, rm, head, tt.args...)
			if got := proposal(t, f, head).State; got != tt.want {
				t.Errorf("after the merge: %s, want %s", got, tt.want)
			}
			gittest.Git(t, rm.dir, "branch", "-D", head)
			if got := proposal(t, f, head).State; got != tt.delete {
				t.Errorf("after deleting the head: %s, want %s", got, tt.delete)
			}
		})
	}
}

func TestGitForgeClose(t *testing.T) {
	const head = "olmops/rejected"
	rm := newRemote(t, baseFiles)
	repo := rm.open(t)
	f := gitsource.NewGitForge(repo)
	ctx := t.Context()
	pushPlan(t, repo, head, "plan", "x")
	p, err := f.Propose(ctx, gitsource.ProposalRequest{Head: head, Base: "main", Title: "plan"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(ctx, p, "superseded by a newer plan"); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got := rm.ref(t, "refs/heads/"+head); !got.IsZero() {
		t.Errorf("server still has the head at %s", got)
	}
	if got := proposal(t, gitsource.NewGitForge(rm.open(t)), head).State; got != gitsource.ProposalClosed {
		t.Errorf("closed proposal reads %s", got)
	}
	if err := f.Close(ctx, p, "again"); err != nil {
		t.Errorf("closing a closed proposal = %v, want nil", err)
	}

	gittest.Git(t, rm.dir, "branch", "feature", "main")
	for _, other := range []string{"main", "feature", "olmopsx"} {
		err := f.Close(ctx, &gitsource.Proposal{Head: other, Base: "main"}, "no")
		if !errors.Is(err, gitsource.ErrForceRefused) {
			t.Errorf("Close(%s) = %v, want ErrForceRefused", other, err)
		}
	}
	if rm.ref(t, "refs/heads/main").IsZero() || rm.ref(t, "refs/heads/feature").IsZero() {
		t.Error("a refused Close deleted the branch")
	}
}

func TestGitForgeProposeErrors(t *testing.T) {
	rm := newRemote(t, baseFiles)
	repo := rm.open(t)
	f := gitsource.NewGitForge(repo)
	pushPlan(t, repo, "olmops/ok", "plan", "x")
	tests := []struct {
		name    string
		req     gitsource.ProposalRequest
		wantErr error
		errText string
	}{
		{name: "head not pushed", req: gitsource.ProposalRequest{Head: "olmops/none", Base: "main", Title: "t"}, wantErr: gitsource.ErrNotFound, errText: "head branch not pushed"},
		{name: "head not olmops'", req: gitsource.ProposalRequest{Head: "main", Base: "main", Title: "t"}, wantErr: gitsource.ErrForceRefused},
		{name: "missing base", req: gitsource.ProposalRequest{Head: "olmops/ok", Base: "nope", Title: "t"}, wantErr: gitsource.ErrNotFound, errText: "base branch"},
		{name: "no base", req: gitsource.ProposalRequest{Head: "olmops/ok", Title: "t"}, errText: "invalid base"},
		{name: "no title", req: gitsource.ProposalRequest{Head: "olmops/ok", Base: "main"}, errText: "title"},
		{name: "two-line title", req: gitsource.ProposalRequest{Head: "olmops/ok", Base: "main", Title: "a\nb"}, errText: "title"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.Propose(t.Context(), tt.req)
			if err == nil || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) || !strings.Contains(err.Error(), tt.errText) {
				t.Fatalf("Propose = %v, want %v %q", err, tt.wantErr, tt.errText)
			}
			if got := rm.ref(t, gitsource.ProposalRefPrefix+tt.req.Head); !got.IsZero() {
				t.Errorf("failed Propose wrote a record")
			}
		})
	}
}

// TestGitForgeLocal uses a repository without a remote: everything is
// written to its own refs.
func TestGitForgeLocal(t *testing.T) {
	const head = "olmops/local"
	rm := newRemote(t, baseFiles)
	repo, err := gitsource.Open(t.Context(), gitsource.Options{Path: rm.dir})
	if err != nil {
		t.Fatal(err)
	}
	f := gitsource.NewGitForge(repo)
	ctx := t.Context()
	h := pushPlan(t, repo, head, "plan", "x")
	p, err := f.Propose(ctx, gitsource.ProposalRequest{Head: head, Base: "main", Title: "plan"})
	if err != nil {
		t.Fatalf("Propose: %v", err)
	}
	if p.State != gitsource.ProposalOpen || rm.rev(t, gitsource.ProposalRefPrefix+head+"^1") != h {
		t.Errorf("Propose = %+v; local record at %s", p, rm.ref(t, gitsource.ProposalRefPrefix+head))
	}
	gittest.Git(t, rm.dir, "update-ref", "refs/heads/main", h.String()) // a fast-forward merge
	if got := proposal(t, f, head).State; got != gitsource.ProposalMerged {
		t.Errorf("after a fast-forward: %s, want merged", got)
	}

	pushPlan(t, repo, "olmops/other", "other", "y")
	p, err = f.Propose(ctx, gitsource.ProposalRequest{Head: "olmops/other", Base: "main", Title: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(ctx, p, "no"); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got := proposal(t, f, "olmops/other").State; got != gitsource.ProposalClosed {
		t.Errorf("after Close: %s, want closed", got)
	}

	st := gitsource.Status{Context: "olmops/prod/ns/etcd", State: gitsource.StatusSuccess, Description: "installed"}
	if err := f.SetStatus(ctx, h.String(), st); err != nil {
		t.Fatalf("SetStatus: %v", err)
	}
	out := gittest.Git(t, rm.dir, "notes", "--ref=olmops", "show", h.String())
	if !strings.Contains(out, `"context": "olmops/prod/ns/etcd"`) {
		t.Errorf("git notes show = %s", out)
	}
}

// TestGitForgePathWithOrigin uses a person's clone opened by Path: it
// fetches from and pushes to its origin like a cache clone.
func TestGitForgePathWithOrigin(t *testing.T) {
	const head = "olmops/from-a-clone"
	rm := newRemote(t, baseFiles)
	work := t.TempDir()
	gittest.Git(t, work, "clone", "--quiet", strings.Replace(rm.url, "://", "://"+testUser+":"+testPassword+"@", 1), ".")
	repo, err := gitsource.Open(t.Context(), gitsource.Options{Path: work, Auth: testAuth})
	if err != nil {
		t.Fatal(err)
	}
	f := gitsource.NewGitForge(repo)
	ctx := t.Context()
	h := pushPlan(t, repo, head, "plan", "x")
	if _, err := f.Propose(ctx, gitsource.ProposalRequest{Head: head, Base: "main", Title: "plan"}); err != nil {
		t.Fatalf("Propose: %v", err)
	}
	if got := rm.rev(t, gitsource.ProposalRefPrefix+head+"^1"); got != h {
		t.Errorf("server record's parent = %s, want %s", got, h)
	}
	st := gitsource.Status{Context: "olmops/prod", State: gitsource.StatusPending}
	if err := f.SetStatus(ctx, h.String(), st); err != nil {
		t.Fatalf("SetStatus: %v", err)
	}
	if got := cliNote(t, rm, h.String()); !reflect.DeepEqual(got, []gitsource.Status{st}) {
		t.Errorf("server note = %+v", got)
	}

	// Deleted on the server, the head is pruned at the next fetch.
	gittest.Git(t, rm.dir, "branch", "-D", head)
	if got := proposal(t, f, head).State; got != gitsource.ProposalClosed {
		t.Errorf("after the server deleted the head: %s, want closed", got)
	}
}
