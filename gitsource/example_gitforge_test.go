package gitsource_test

import (
	"context"
	"fmt"
	"os"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/olmops/olmops/gitsource"
)

// Report an operator's state on the commit that carried its plan, with
// git notes, in a repository without a remote.
func ExampleGitForge() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "olmops-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if _, err := git.PlainInit(dir, true); err != nil {
		fmt.Println(err)
		return
	}
	repo, err := gitsource.Open(ctx, gitsource.Options{Path: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	const plan = "clusters/prod/plans/operators/etcd"
	head, err := repo.Commit(ctx, gitsource.CommitRequest{
		Branch:  "main",
		Files:   map[string][]byte{plan + "/installplan.yaml": []byte("bundle: etcd.v0.9.4\n")},
		Message: "olmops: plan etcd on prod",
		Author:  object.Signature{Name: "olmops", Email: "olmops@example.com"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	carriers, err := repo.LastChanged(ctx, head, []string{plan})
	if err != nil {
		fmt.Println(err)
		return
	}
	forge := gitsource.NewGitForge(repo)
	err = forge.SetStatus(ctx, carriers[plan].String(), gitsource.Status{
		Context: "olmops/prod/operators/etcd", State: gitsource.StatusSuccess, Description: "etcd.v0.9.4 installed",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	statuses, err := forge.Statuses(ctx, head.String())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, st := range statuses {
		fmt.Println(st.Context, st.State, st.Description)
	}
	// Output: olmops/prod/operators/etcd success etcd.v0.9.4 installed
}
