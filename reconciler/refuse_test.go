package reconciler

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/gitsource/github/githubtest"
	"github.com/olmops/olmops/internal/gittest"
)

// A head the controller refuses carries a failure status saying so, on
// the forge the controller trusts: spec.forge, never one the refused
// commit names. Without spec.forge and before any verified commit, an
// unverified head gets no status at all (no git notes pushed).
func TestRefusedHeadStatus(t *testing.T) {
	release, releasePub := gittest.NewSigningKey(t, "Release")
	l := newLifecycle(t, func(s *v1alpha1.RepositorySpec) {
		s.Verify = &v1alpha1.VerifySpec{Mode: v1alpha1.VerifyModeHead, SecretRef: v1alpha1.LocalObjectReference{Name: "keys"}}
	})
	for _, s := range []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Namespace: l.ns, Name: "keys"}, Data: map[string][]byte{"release.asc": []byte(releasePub)}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: l.ns, Name: "github"}, Data: map[string][]byte{"token": []byte(ghToken)}},
	} {
		if err := l.f.env.Client.Create(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
	head := func() string { return strings.TrimSpace(gittest.Git(t, l.f.dir, "rev-parse", "main")) }
	ctxName := commitstatus.HeadContext("staging")

	t.Run("no trusted forge: nothing posted", func(t *testing.T) {
		obj, _ := l.pass(t)
		if got := condition(obj, v1alpha1.ReadyCondition); got != "False "+v1alpha1.VerificationFailedReason {
			t.Fatalf("Ready = %s", got)
		}
		if note, err := gittest.TryGit(l.f.dir, "notes", "--ref=olmops", "show", head()); err == nil && strings.Contains(note, ctxName) {
			t.Errorf("an unverified head had a status pushed as a git note: %s", note)
		}
	})

	gh := githubtest.NewServer(t, githubtest.Options{Owner: "acme", Repo: "fleet", Token: ghToken, GitDir: l.f.dir})
	l.edit(t, func(s *v1alpha1.RepositorySpec) {
		s.Forge = &v1alpha1.ForgeSpec{Type: v1alpha1.ForgeGitHub, Owner: "acme", Repo: "fleet", BaseURL: gh.URL,
			TokenSecretRef: &v1alpha1.LocalObjectReference{Name: "github"}}
	})
	status := func(t *testing.T, commit string) (githubtest.Status, bool) {
		t.Helper()
		var got githubtest.Status
		found := false
		for _, s := range gh.StatusesFor(commit) {
			if s.Context == ctxName {
				got, found = s, true
			}
		}
		return got, found
	}
	tests := []struct {
		name   string
		change func()
		reason string
		want   string // in the description, after "not applied: REASON: "
	}{
		{"unverified head", nil, v1alpha1.VerificationFailedReason, "commit %s is not verified: it is not signed"},
		{"verified head whose olmops.yaml does not load", func() {
			gittest.Commit(t, l.f.dir, "main", gittest.Change{Files: map[string][]byte{"olmops.yaml": []byte("kind: [")}, Message: "break olmops.yaml"})
			gittest.SignedCommit(t, l.f.dir, "main", "signed on top", release)
		}, v1alpha1.InvalidPlanReason, "olmops.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.change != nil {
				tt.change()
			}
			obj, evs := l.pass(t)
			if got := condition(obj, v1alpha1.ReadyCondition); got != "False "+tt.reason {
				t.Fatalf("Ready = %s, want False %s", got, tt.reason)
			}
			if !hasEventLike(evs, "Warning "+tt.reason) {
				t.Errorf("events %q lack a %s warning", evs, tt.reason)
			}
			want := "not applied: " + tt.reason + ": " + strings.ReplaceAll(tt.want, "%s", head())
			st, ok := status(t, head())
			if !ok || st.State != "failure" || !strings.HasPrefix(st.Description, want[:min(len(want), 130)]) {
				t.Errorf("status %s on %s = %+v (found %v), want failure %q", ctxName, head(), st, ok, want)
			}
		})
	}
}
