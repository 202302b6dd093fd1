package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/test/harness"
)

const (
	etcdNamespace = "etcd-system"
	etcdBranch    = "olmops/prod-east/etcd-system/etcd"
	etcdPlanDir   = "clusters/prod-east/plans/etcd-system/etcd"
)

// planArgs plans the repository on the server from a clone olmops keeps
// in $DEMO, as a CI job would.
func (d *demo) planArgs() []string {
	return []string{"plan", "--repo", d.git.URL, "--push",
		"--cache-dir", filepath.Join(d.tmp, "plan-cache"), "--image-cache", filepath.Join(d.tmp, "images")}
}

// plan validates the catalogs and runs the planner once, then checks that
// the Manual plan waits on its branch.
func (d *demo) plan(ctx context.Context) error {
	if err := d.runOlmops(ctx, "validate", "catalogs/operatorhub", "catalogs/internal"); err != nil {
		return err
	}
	d.out.line("(no output: both catalogs are valid)")
	d.out.line("git credentials come from $OLMOPS_GIT_USERNAME and $OLMOPS_GIT_PASSWORD")
	if err := d.runOlmops(ctx, d.planArgs()...); err != nil {
		return err
	}
	heads, err := d.heads(ctx)
	if err != nil {
		return err
	}
	if heads[etcdBranch] == "" {
		return fmt.Errorf("plan pushed no branch %s for the Manual etcd plan of prod-east", etcdBranch)
	}
	d.out.line("main has the Automatic plan of staging (etcd); on prod-east, etcd 0.9.2 (Manual) waits on %s,", etcdBranch)
	d.out.line("and acme-db (Automatic) waits with it, as it needs etcd's EtcdCluster API: merging approves both.")
	return nil
}

// waitAutomatic waits for the plans committed to main, then shows that
// the one waiting on its branch was left alone.
func (d *demo) waitAutomatic(ctx context.Context) error {
	d.out.line("waiting until etcd is installed on staging...")
	if err := waitInstalled(ctx, d.clusters[staging], "etcd"); err != nil {
		return err
	}
	d.watch.look(ctx)
	prod := d.clusters[prodEast]
	st, err := prod.Subscription(ctx, etcdNamespace, "etcd")
	if err != nil {
		return err
	}
	if st.Phase != "" {
		return fmt.Errorf("etcd was applied on prod-east before its plan was merged: %+v", st)
	}
	err = prod.Client.Get(ctx, client.ObjectKey{Namespace: etcdNamespace, Name: "etcd-operator"}, &appsv1.Deployment{})
	if !apierrors.IsNotFound(err) {
		return fmt.Errorf("prod-east has Deployment etcd-system/etcd-operator before the merge (%v)", err)
	}
	d.out.line("prod-east: no etcd-operator Deployment, no etcd in the Repository status: etcd waits for approval")
	return nil
}

// waitInstalled waits until subscription etcd-system/name of c is
// Installed and healthy.
func waitInstalled(ctx context.Context, c *harness.Cluster, name string) error {
	return c.WaitSubscription(ctx, etcdNamespace, name, 90*time.Second, harness.Installed)
}

// approve merges the plan branch into main, as a reviewer would, tells the
// controllers through their webhooks and waits for the result.
func (d *demo) approve(ctx context.Context) error {
	for _, args := range [][]string{
		{"pull", "--quiet", "--ff-only"}, // main moved: olmops committed the Automatic plans
		{"merge", "--quiet", "--no-ff", "origin/" + etcdBranch, "-m", "approve etcd on prod-east"},
		{"push", "--quiet", "origin", "main"},
	} {
		if err := d.user(ctx, args...); err != nil {
			return err
		}
	}
	merge, err := d.git.InWork(ctx, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	merge = strings.TrimSpace(merge)
	start := time.Now()
	for _, c := range d.clusters {
		if err := d.postPush(ctx, c, merge); err != nil {
			return err
		}
	}
	for _, name := range []string{"etcd", "acme-db"} {
		if err := waitInstalled(ctx, d.clusters[prodEast], name); err != nil {
			return err
		}
	}
	if err := d.git.WaitStatus(ctx, merge, commitstatus.Context("prod-east", etcdNamespace, "etcd"), "success", time.Minute); err != nil {
		return err
	}
	elapsed := time.Since(start)
	d.watch.look(ctx)
	d.out.line("merge → applied, healthy and reported in %s", elapsed.Round(10*time.Millisecond))
	return nil
}

// postPush sends c's webhook the push event GitHub would send for the new
// head of main, signed with the shared secret.
func (d *demo) postPush(ctx context.Context, c *harness.Cluster, head string) error {
	d.out.line("POST %s  X-GitHub-Event: push  (signed push of main to %s)", c.Serve.Hook, head[:12])
	answer, err := c.Serve.PostPush(ctx, d.git.URL, head)
	if err != nil {
		return fmt.Errorf("%s: %w", c.Name, err)
	}
	d.out.block(fmt.Sprintf("%s answered %s", c.Name, answer))
	return nil
}

// planAgain runs the planner on the merged state: with etcd 0.9.2 on
// prod-east's main, Classic proposes the next step of the replaces chain.
func (d *demo) planAgain(ctx context.Context) error {
	if err := d.runOlmops(ctx, d.planArgs()...); err != nil {
		return err
	}
	if _, err := d.heads(ctx); err != nil {
		return err
	}
	if err := d.user(ctx, "fetch", "--quiet", "origin"); err != nil {
		return err
	}
	args := []string{"diff", "--stat=72", "main", "origin/" + etcdBranch, "--", etcdPlanDir}
	if err := d.user(ctx, args...); err != nil {
		return err
	}
	plan, err := d.git.InWork(ctx, "show", "origin/"+etcdBranch+":"+etcdPlanDir+"/installplan.yaml")
	if err != nil {
		return err
	}
	if !strings.Contains(plan, "etcdoperator.v0.9.4") {
		return fmt.Errorf("the plan on %s does not move etcd to 0.9.4:\n%s", etcdBranch, plan)
	}
	d.out.line("the next upgrade, etcd 0.9.2 → 0.9.4 on prod-east, waits on %s for its merge", etcdBranch)
	return nil
}
