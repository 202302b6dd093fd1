package githubtest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/olmops/olmops/internal/gittest"
)

func TestMerge(t *testing.T) {
	tests := []struct {
		name string
		// prepare pushes the pull request's branch "plan" and anything
		// else, and returns the head commit.
		prepare     func(t *testing.T, fx *fixture) string
		fastForward bool
	}{
		{"fast-forward", func(t *testing.T, fx *fixture) string {
			return fx.branch(t, "plan", map[string]string{"plan.yaml": "etcd\n"})
		}, true},
		{"merge commit", func(t *testing.T, fx *fixture) string {
			head := fx.branch(t, "plan", map[string]string{"plan.yaml": "etcd\n"})
			fx.branch(t, "main", map[string]string{"other.yaml": "vault\n"})
			return head
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t)
			head := tt.prepare(t, fx)
			n := fx.openPR(t, "plan")
			base := fx.rev(t, "main")
			merged := fx.srv.Merge(t, n)

			if got := fx.rev(t, "main"); got != merged {
				t.Fatalf("main is at %s, Merge said %s", got, merged)
			}
			if tt.fastForward && merged != head {
				t.Errorf("fast-forward: main at %s, want the head %s", merged, head)
			}
			if !tt.fastForward {
				parents := strings.Fields(gittest.Git(t, fx.dir, "rev-list", "--parents", "-n1", merged))[1:]
				if want := []string{base, head}; strings.Join(parents, " ") != strings.Join(want, " ") {
					t.Errorf("merge commit parents %v, want %v", parents, want)
				}
				if got := gittest.Git(t, fx.dir, "show", "main:other.yaml"); got != "vault\n" {
					t.Errorf("main lost the base's change: %q", got)
				}
			}
			if got := gittest.Git(t, fx.dir, "show", "main:plan.yaml"); got != "etcd\n" {
				t.Errorf("main:plan.yaml = %q, want the head's content", got)
			}
			pr, _ := fx.srv.PR(n)
			if pr.State != "closed" || !pr.Merged || pr.MergeCommitSHA != merged || pr.HeadSHA != head || pr.MergedAt.IsZero() {
				t.Errorf("PR after merge = %+v", pr)
			}
			// The API tells the same: closed, merged_at set, merged.
			r := fx.do(t, http.MethodGet, "/pulls?state=all", nil)
			list := r.body.([]any)
			if len(list) != 1 || list[0].(map[string]any)["merged_at"] == nil || list[0].(map[string]any)["state"] != "closed" {
				t.Errorf("listed after merge: %v", list)
			}
			if _, err := fx.srv.TryMerge(t.Context(), n); err == nil || !strings.Contains(err.Error(), "is closed") {
				t.Errorf("merging twice: %v, want an error", err)
			}
		})
	}
}

func TestMergeConflict(t *testing.T) {
	fx := newFixture(t)
	fx.branch(t, "plan", map[string]string{"README.md": "one\nTWO by plan\nthree\n"})
	base := fx.branch(t, "main", map[string]string{"README.md": "one\nTWO by main\nthree\n"})
	n := fx.openPR(t, "plan")

	_, err := fx.srv.TryMerge(t.Context(), n)
	if err == nil {
		t.Fatal("TryMerge of conflicting branches succeeded")
	}
	for _, want := range []string{"#1", "plan into main", "conflict", "README.md"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if got := fx.rev(t, "main"); got != base {
		t.Errorf("main moved to %s on a failed merge", got)
	}
	if pr, _ := fx.srv.PR(n); pr.State != "open" || pr.Merged {
		t.Errorf("PR after a failed merge = %+v, want still open", pr)
	}
}

func TestClosePRKeepsCommits(t *testing.T) {
	fx := newFixture(t)
	head := fx.branch(t, "plan", map[string]string{"plan.yaml": "1"})
	n := fx.openPR(t, "plan")
	fx.srv.ClosePR(t, n)
	fx.branch(t, "plan", map[string]string{"plan.yaml": "2"})
	pr, _ := fx.srv.PR(n)
	if pr.State != "closed" || pr.Merged || pr.HeadSHA != head || pr.ClosedAt.IsZero() {
		t.Errorf("closed PR = %+v, want closed at head %s", pr, head)
	}
	if _, err := fx.srv.TryMerge(t.Context(), n); err == nil {
		t.Error("merged a closed pull request")
	}
}
