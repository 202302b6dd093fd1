package gitsource_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/olmops/olmops/gitsource"
)

// Plan against the remote's main branch and commit the plan, re-planning
// when another writer pushed first.
func ExampleRetryOnConflict() {
	ctx := context.Background()
	repo, err := gitsource.Open(ctx, gitsource.Options{
		URL:      "https://github.com/example/desired-state.git",
		CacheDir: "/var/cache/olmops",
		Auth:     gitsource.Auth{Token: "ghp_example"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	cache := gitsource.NewCatalogCache(0)
	err = gitsource.RetryOnConflict(ctx, 5, time.Second, func(ctx context.Context) error {
		if err := repo.Fetch(ctx); err != nil {
			return err
		}
		head, err := repo.Resolve(ctx, "main")
		if err != nil {
			return err
		}
		snap, err := repo.Snapshot(ctx, head)
		if err != nil {
			return err
		}
		cat, err := cache.Get(ctx, snap, "catalogs/operatorhub", "operatorhub")
		if err != nil {
			return err
		}
		plan := []byte(fmt.Sprintf("packages: %d\n", len(cat.Packages))) // resolve and render here
		_, err = repo.Commit(ctx, gitsource.CommitRequest{
			Parent:  head,
			Branch:  "main",
			Files:   map[string][]byte{"clusters/prod/plans/operators/etcd/installplan.yaml": plan},
			Message: "olmops: plan etcd on prod",
			Author:  object.Signature{Name: "olmops", Email: "olmops@example.com"},
		})
		if errors.Is(err, gitsource.ErrNoChange) {
			return nil
		}
		if err != nil {
			return err
		}
		return repo.Push(ctx, "main", false)
	})
	if err != nil {
		fmt.Println(err)
	}
}
