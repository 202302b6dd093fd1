//go:build !olmops_cli

package main

import (
	"context"
	"fmt"
	"io"
	"reflect"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/olmops/olmops/reconciler"
	"github.com/olmops/olmops/reconciler/apply"
)

type diffOptions struct {
	streams
	Repo       string
	Branch     string
	Cluster    string
	kube       kubeFlags
	CacheDir   string
	Repository string
	Prune      bool
}

func newDiffCmd(s streams) *cobra.Command {
	opts := &diffOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "diff --repo DIR|URL --cluster NAME [--kubeconfig FILE]",
		Short: "Show what applying a cluster's merged plans would change in the cluster",
		Long: `Diff shows, like flux diff, what olmops apply would change in the live
cluster: each plan's target bundle is prepared as apply prepares it and
sent as a server-side apply dry run (field owner olmops, forced
ownership); the result is compared with the live object, leaving out
status, managedFields, resourceVersion, generation, uid and
creationTimestamp. Nothing is written.

Each object that would change is printed as "► Kind/namespace/name
created" or "changed", followed by a diff of its YAML (live, then as
applied). Secret values are masked.

What apply would prune is printed as "► Kind/namespace/name deleted":
the objects a subscription's inventory holds that its plan no longer
does, and the objects of subscriptions whose plan left the branch. The
inventories are those the Repository object of the cluster records
(--repository, or the only one whose spec.cluster is --cluster); without
one, or with --prune=false, nothing is pruned, as with olmops apply.
CustomResourceDefinitions and Namespaces are never deleted, nor objects
whose olmops label was taken off.

Not shown: that an Upgradeable=False condition would hold a hop back.

Exit codes: 0 no changes; 1 changes; 2 usage, I/O or API server error,
or a plan that does not load.`,
		Example: `  olmops diff --repo . --cluster staging
  olmops diff --repo https://github.com/acme/fleet.git --cluster prod-east --context prod`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return diffRun(cmd.Context(), opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Repo, "repo", ".", "the desired-state repository: a local folder or a git URL")
	f.StringVar(&opts.Branch, "branch", "", "branch whose plans are compared (default: the checked-out branch, or the remote's default)")
	f.StringVar(&opts.Cluster, "cluster", "", "the cluster to compare (required)")
	_ = cmd.RegisterFlagCompletionFunc("cluster", completeClusters)
	opts.kube.add(cmd, false)
	f.StringVar(&opts.CacheDir, "cache-dir", "", "where clones of --repo URLs are kept (default: the user cache folder)")
	f.StringVar(&opts.Repository, "repository", "", "the Repository object that records the cluster's state: NAME (in -n) or NAMESPACE/NAME")
	f.BoolVar(&opts.Prune, "prune", true, "show what apply would delete (needs a Repository to know what was applied)")
	return cmd
}

func diffRun(ctx context.Context, opts *diffOptions) error {
	if opts.Cluster == "" {
		return usageErrorf("--cluster is required")
	}
	repo, err := openRepo(ctx, opts.Repo, opts.CacheDir, true)
	if err != nil {
		return err
	}
	defer repo.Close()
	branch, err := applyBranch(ctx, repo, opts.Branch)
	if err != nil {
		return err
	}
	commit, err := repo.Resolve(ctx, branch)
	if err != nil {
		return fmt.Errorf("branch %s: %w", branch, err)
	}
	if _, err := checkCluster(ctx, repo, commit, branch, opts.Cluster); err != nil {
		return err
	}
	_, c, err := opts.kube.client()
	if err != nil {
		return err
	}
	record, err := findRepository(ctx, c, opts.kube, opts.Repository, opts.Cluster)
	if err != nil {
		return err
	}
	t := reconciler.Target{Repo: repo, Commit: commit, Branch: branch, Cluster: opts.Cluster, Prune: opts.Prune && record != nil}
	if record != nil {
		t.Previous = record.Status.Subscriptions
	} else if opts.Prune {
		fmt.Fprintf(opts.Err, "no Repository records cluster %s: what apply would prune is unknown, and not shown\n", opts.Cluster)
	}
	reqs, removals, err := reconciler.Preview(ctx, t)
	if err != nil {
		return err
	}
	changed, err := writeChanges(ctx, opts.Out, &apply.Applier{Client: c}, reqs, removals)
	if err != nil {
		return err
	}
	if changed > 0 {
		fmt.Fprintf(opts.Err, "cluster %s: objects that %s would change or delete: %d\n", opts.Cluster, branch, changed)
		return errFindings
	}
	fmt.Fprintf(opts.Err, "cluster %s is as the plans of %s want it\n", opts.Cluster, branch)
	return nil
}

// writeChanges prints what the requests and removals would change and
// counts it.
func writeChanges(ctx context.Context, w io.Writer, a *apply.Applier, reqs []apply.Request, removals []apply.RemoveRequest) (int, error) {
	var all []apply.Change
	for _, req := range reqs {
		changes, err := a.Diff(ctx, req)
		if err != nil {
			return 0, err
		}
		all = append(all, changes...)
	}
	for _, req := range removals {
		changes, err := a.DiffRemove(ctx, req)
		if err != nil {
			return 0, err
		}
		all = append(all, changes...)
	}
	for _, ch := range all {
		if err := writeChange(w, ch); err != nil {
			return 0, err
		}
	}
	return len(all), nil
}

// writeChange prints one object's change, flux diff style.
func writeChange(w io.Writer, ch apply.Change) error {
	name := ch.Entry.Kind + "/" + ch.Entry.Name
	if ch.Entry.Namespace != "" {
		name = ch.Entry.Kind + "/" + ch.Entry.Namespace + "/" + ch.Entry.Name
	}
	switch {
	case ch.Live == nil:
		_, err := fmt.Fprintf(w, "► %s created\n", name)
		return err
	case ch.Applied == nil:
		_, err := fmt.Fprintf(w, "► %s deleted\n", name)
		return err
	}
	live, applied := maskSecret(ch.Live, ch.Applied)
	a, err := yaml.Marshal(live.Object)
	if err != nil {
		return err
	}
	b, err := yaml.Marshal(applied.Object)
	if err != nil {
		return err
	}
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(a)), B: difflib.SplitLines(string(b)),
		FromFile: "live", ToFile: "applied", Context: 2,
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "► %s changed\n%s", name, text)
	return err
}

// maskSecret hides a Secret's values, as flux diff does: a value that
// stays reads "***", one that changes "*** (before)" and "*** (after)".
func maskSecret(live, applied *unstructured.Unstructured) (*unstructured.Unstructured, *unstructured.Unstructured) {
	gvk := live.GroupVersionKind()
	if gvk.Group != "" || gvk.Kind != "Secret" {
		return live, applied
	}
	live, applied = live.DeepCopy(), applied.DeepCopy()
	for _, field := range []string{"data", "stringData"} {
		before, _ := live.Object[field].(map[string]any)
		after, _ := applied.Object[field].(map[string]any)
		for k, bv := range before {
			if av, ok := after[k]; ok && reflect.DeepEqual(av, bv) {
				before[k], after[k] = "***", "***"
				continue
			}
			before[k] = "*** (before)"
		}
		for k, av := range after {
			if av != "***" {
				after[k] = "*** (after)"
			}
		}
	}
	return live, applied
}
