package gitsource_test

import (
	"testing"
	"time"

	"github.com/olmops/olmops/gitsource"
)

// The git forge dates each status when it changes, and only then: the
// time says since when the status has stood.
func TestGitForgeDatedStatuses(t *testing.T) {
	rm := newRemote(t, baseFiles)
	commit := rm.head(t, "main").String()
	f := gitsource.NewGitForge(rm.open(t))
	ctx := t.Context()
	etcd := gitsource.Status{Context: "olmops/staging/ops/etcd", State: gitsource.StatusSuccess, Description: "etcd.v0.9.4 installed · healthy"}
	other := gitsource.Status{Context: "olmops/staging/ops/vault", State: gitsource.StatusPending, Description: "applying vault.v1"}
	before := time.Now().Add(-time.Second)
	if err := f.SetStatus(ctx, commit, etcd); err != nil {
		t.Fatal(err)
	}
	first := dated(t, f, commit)[etcd.Context]
	if first.Since.Before(before) || first.Since.After(time.Now()) || first.Status != etcd {
		t.Fatalf("after the first set: %+v, want it dated now", first)
	}
	// Another context, and the same status again, leave etcd's time.
	if err := f.SetStatus(ctx, commit, other); err != nil {
		t.Fatal(err)
	}
	if err := f.SetStatus(ctx, commit, etcd); err != nil {
		t.Fatal(err)
	}
	got := dated(t, gitsource.NewGitForge(rm.open(t)), commit)
	if !got[etcd.Context].Since.Equal(first.Since) || got[other.Context].Since.IsZero() {
		t.Errorf("dated = %+v, want etcd still since %s and vault dated", got, first.Since)
	}
}

func dated(t *testing.T, f gitsource.StatusDater, commit string) map[string]gitsource.DatedStatus {
	t.Helper()
	list, err := f.DatedStatuses(t.Context(), commit)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]gitsource.DatedStatus{}
	for _, d := range list {
		out[d.Context] = d
	}
	return out
}
