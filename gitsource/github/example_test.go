package github_test

import (
	"context"
	"fmt"
	"os"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/gitsource/github"
)

// New makes no request; options print without their token, so they can be
// logged.
func ExampleNew() {
	opts := github.Options{
		Owner:   "acme",
		Repo:    "olm-desired-state",
		Token:   "ghp_example",
		BaseURL: "https://ghe.example.com/api/v3/",
	}
	forge, err := github.New(context.Background(), opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	var _ gitsource.Forge = forge
	fmt.Println(opts)
	// Output: {Owner:acme Repo:olm-desired-state Token:<redacted> BaseURL:https://ghe.example.com/api/v3/}
}

// Propose a plan pushed to a branch, and report on its commit.
func ExampleForge_Propose() {
	ctx := context.Background()
	forge, err := github.New(ctx, github.Options{Owner: "acme", Repo: "olm-desired-state", Token: os.Getenv("GITHUB_TOKEN")})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := forge.Propose(ctx, gitsource.ProposalRequest{
		Head:   "olmops/prod-east/etcd",
		Base:   "main",
		Title:  "etcd 0.9.2 → 0.9.4 on prod-east",
		Body:   "Upgrade path: 0.9.2 → 0.9.3 → 0.9.4",
		Labels: []string{"olmops", "approval/manual"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	err = forge.SetStatus(ctx, p.HeadCommit, gitsource.Status{
		Context:     "olmops/prod-east/operators/etcd",
		State:       gitsource.StatusPending,
		Description: "waiting for approval",
		TargetURL:   p.URL,
	})
	if err != nil {
		fmt.Println(err)
	}
}
