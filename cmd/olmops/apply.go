//go:build !olmops_cli

package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/reconciler"
	"github.com/olmops/olmops/reconciler/apply"
)

type applyOptions struct {
	streams
	Repo          string
	Branch        string
	Cluster       string
	kube          kubeFlags
	Repository    string
	CacheDir      string
	HealthTimeout time.Duration
	PostStatuses  bool
	Prune         bool
	Output        string
	VerifyKeys    []string
}

func newApplyCmd(s streams) *cobra.Command {
	opts := &applyOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "apply --repo DIR|URL --cluster NAME [--kubeconfig FILE]",
		Short: "Apply a cluster's merged plans once, as the controller would",
		Long: `Apply runs one pass of the controller from the command line, for CI or
break-glass use: it applies the plans of --cluster on the branch with
server-side apply (field owner olmops), waits for each hop to become
healthy, holds upgrades the installed operator says Upgradeable=False to,
and prunes what left the plans.

What was applied before is read from the Repository object of the cluster
(--repository, or the only Repository whose spec.cluster is --cluster, in
-n NAMESPACE when given), and
its status is updated, so the controller carries on from there. Without
one, nothing is recorded and nothing is pruned.

--post-statuses posts the commit statuses the controller would (the forge
of olmops.yaml; GitHub reads its token from $GITHUB_TOKEN).

--verify-keys FILE (repeatable) applies the branch's head only if it is
signed by one of the keys in the files, as a Repository's spec.verify
does: a file is armored OpenPGP public keys, or SSH public keys
(authorized_keys or allowed_signers lines, for gpg.format=ssh); otherwise
nothing is applied and the reason is printed.

Exit codes: 0 every plan installed and healthy; 1 a plan failed (or what
left it was not pruned), or the head is not verified; 2 usage, I/O or API
server error; 3 nothing failed, but a plan was held back (Upgradeable=False,
missing permissions, a dependency not installed). Each plan not done is
named on stderr with its reason.`,
		Example: `  olmops apply --repo . --cluster staging
  olmops apply --repo https://github.com/acme/fleet.git --cluster prod-east --kubeconfig prod.kubeconfig`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return applyRun(cmd.Context(), opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Repo, "repo", ".", "the desired-state repository: a local folder or a git URL")
	f.StringVar(&opts.Branch, "branch", "", "branch whose plans are applied (default: the checked-out branch, or the remote's default)")
	f.StringVar(&opts.Cluster, "cluster", "", "the cluster to apply (required)")
	_ = cmd.RegisterFlagCompletionFunc("cluster", completeClusters)
	opts.kube.add(cmd, true)
	f.StringVar(&opts.Repository, "repository", "", "the Repository object that records the cluster's state: NAME (in -n) or NAMESPACE/NAME")
	f.StringVar(&opts.CacheDir, "cache-dir", "", "where clones of --repo URLs are kept (default: the user cache folder)")
	f.DurationVar(&opts.HealthTimeout, "health-timeout", apply.DefaultHealthTimeout, "how long a hop may take to become healthy")
	f.BoolVar(&opts.PostStatuses, "post-statuses", false, "post commit statuses to the forge")
	f.BoolVar(&opts.Prune, "prune", true, "delete objects that left the plans (needs a Repository to know them)")
	f.StringArrayVar(&opts.VerifyKeys, "verify-keys", nil, "apply only a head commit signed by a key of this file: armored OpenPGP public keys, or SSH public keys (repeatable)")
	addOutputFlag(cmd, &opts.Output, "text", "json", "yaml")
	return cmd
}

func applyRun(ctx context.Context, opts *applyOptions) error {
	if opts.Cluster == "" {
		return usageErrorf("--cluster is required")
	}
	if err := oneOf("output", opts.Output, "text", "json", "yaml"); err != nil {
		return err
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
	// Verified before anything of the commit is read: its olmops.yaml is
	// as untrusted as its plans.
	if err := verifyHead(ctx, opts, repo, commit); err != nil {
		return err
	}
	repoCfg, err := checkCluster(ctx, repo, commit, branch, opts.Cluster)
	if err != nil {
		return err
	}
	kubeCfg, c, err := opts.kube.client()
	if err != nil {
		return err
	}
	record, err := findRepository(ctx, c, opts.kube, opts.Repository, opts.Cluster)
	if err != nil {
		return err
	}
	if err := denyEscalations(ctx, opts, repo, branch, commit, record); err != nil {
		return err
	}
	line := newStatusLine(opts.Err)
	t := reconciler.Target{ID: "cli/" + opts.Cluster, Repo: repo, Commit: commit, Branch: branch, Cluster: opts.Cluster,
		Prune: opts.Prune && record != nil, HealthTimeout: opts.HealthTimeout, Event: applyEvents(line),
		Waiting: newWaitLine(line).show}
	if record != nil {
		t.ID, t.Previous = client.ObjectKeyFromObject(record).String(), record.Status.Subscriptions
	} else {
		fmt.Fprintf(opts.Err, "no Repository records cluster %s: nothing is recorded, and nothing pruned\n", opts.Cluster)
	}
	if opts.PostStatuses {
		// Asked for statuses, a forge that cannot be reached fails the
		// command before anything is applied.
		forge, err := applyForge(ctx, repo, repoCfg)
		if err != nil {
			return err
		}
		t.Forge = func(*v1alpha1.RepositoryConfig) (gitsource.Forge, error) { return forge, nil }
	}
	applier := &apply.Applier{Client: c, Impersonate: apply.NewImpersonator(kubeCfg, client.Options{Scheme: c.Scheme(), Mapper: c.RESTMapper()}).Client}
	// The ClusterOperator as serve keeps it: a pass from the command line
	// must not leave the cluster-version operator reading a stale gate.
	s := &reconciler.Syncer{Applier: applier, ClusterOperator: c, OpenShiftVersion: func(ctx context.Context) (string, error) {
		return reconciler.OpenShiftVersion(ctx, c)
	}}
	out, err := s.Sync(ctx, t)
	line.clear() // before stdout, which shares the terminal
	if err != nil {
		return err
	}
	if record != nil {
		if err := recordApply(ctx, c, record, commit.String(), out); err != nil {
			return err
		}
	}
	if err := writeApplyOutcome(opts.Out, opts.Output, out); err != nil {
		return err
	}
	return applyVerdict(opts.Err, opts.Cluster, out)
}

// applyEvents prints each event as a line on stderr and, on a terminal,
// keeps a line saying which hop the health wait is on until the next
// event: the wait can last up to --health-timeout with nothing else to
// see.
func applyEvents(line *statusLine) func(reconciler.Event) {
	return func(e reconciler.Event) {
		line.println("%s: %s", e.Reason, e.Message)
		if e.Reason == "HopStarted" {
			line.show("waiting until healthy: %s", e.Message)
		}
	}
}

// verifyHead refuses a head that --verify-keys does not vouch for: an
// unverified commit is a finding (exit 1), a key file that cannot be read
// or parsed an error (exit 2).
func verifyHead(ctx context.Context, opts *applyOptions, repo *gitsource.Repo, commit plumbing.Hash) error {
	if len(opts.VerifyKeys) == 0 {
		return nil
	}
	keys := make([]gitsource.KeyRing, 0, len(opts.VerifyKeys))
	for _, name := range opts.VerifyKeys {
		data, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("--verify-keys: %w", err)
		}
		// A file says what it is by its content: SSH public keys are
		// often named *.pub, which says nothing of the format.
		keys = append(keys, gitsource.KeyRing{Name: name, Armored: string(data), Format: gitsource.KeyFormatOf(string(data))})
	}
	if err := gitsource.ParseKeyRings(keys); err != nil {
		return fmt.Errorf("--verify-keys: %w", err)
	}
	s, err := repo.VerifyCommit(ctx, commit, keys)
	var ue *gitsource.UnverifiedError
	if errors.As(err, &ue) {
		fmt.Fprintf(opts.Err, "%s: %v; nothing applied\n", v1alpha1.VerificationFailedReason, err)
		return errFindings
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.Err, "verified %.12s: signed by %s (key %s, %s)\n", commit, s.Identity, s.KeyID, s.KeyRing)
	return nil
}

// denyEscalations refuses, as the controller does, a head whose Automatic
// plans grant more than was last applied while olmops.yaml denies
// escalations (at the head or at that last commit): apply from CI must not
// be the way around the policy. Without a Repository nothing is known to
// be applied, so every grant of an Automatic plan counts.
func denyEscalations(ctx context.Context, opts *applyOptions, repo *gitsource.Repo, branch string, commit plumbing.Hash, record *v1alpha1.Repository) error {
	var last string
	if record != nil {
		last = record.Status.LastAppliedCommit
	}
	if err := reconciler.DeniedEscalations(ctx, repo, branch, opts.Cluster, commit, last); err != nil {
		fmt.Fprintf(opts.Err, "%s: %v\n", v1alpha1.EscalationDeniedReason, err)
		return errFindings
	}
	return nil
}

// applyBranch is --branch, else the checked-out or remote default branch.
func applyBranch(ctx context.Context, repo *gitsource.Repo, branch string) (string, error) {
	if branch != "" {
		return branch, nil
	}
	return repo.DefaultBranch(ctx)
}

// checkCluster reads olmops.yaml at commit and fails a --cluster it does
// not list, before the cluster is reached.
func checkCluster(ctx context.Context, repo *gitsource.Repo, commit plumbing.Hash, branch, cluster string) (*v1alpha1.RepositoryConfig, error) {
	snap, err := repo.Snapshot(ctx, commit)
	if err != nil {
		return nil, err
	}
	cfg, err := v1alpha1.ReadRepository(snap.FS(), branch)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, c := range cfg.Spec.Clusters {
		if c.Name == cluster {
			return cfg, nil
		}
		names = append(names, c.Name)
	}
	return nil, usageErrorf("--cluster %s: %s lists %s", cluster, v1alpha1.RepositoryFile, strings.Join(names, ", "))
}

// applyForge is the forge olmops.yaml names, or the git-only one.
func applyForge(ctx context.Context, repo *gitsource.Repo, cfg *v1alpha1.RepositoryConfig) (gitsource.Forge, error) {
	f, err := forgeFor(ctx, cfg)
	if f == nil && err == nil {
		return gitsource.NewGitForge(repo), nil
	}
	return f, err
}

// findRepository finds the Repository object recording the cluster: the
// one named, else the only one for the cluster. A cluster without the
// Repository CRD has none.
func findRepository(ctx context.Context, c client.Client, kube kubeFlags, name, cluster string) (*v1alpha1.Repository, error) {
	if name != "" {
		ns, n, ok := strings.Cut(name, "/")
		if !ok {
			ns, n = kube.namespace(), name
		}
		obj := &v1alpha1.Repository{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: n}, obj); err != nil {
			return nil, fmt.Errorf("repository %s/%s: %w", ns, n, err)
		}
		if obj.Spec.Cluster != cluster {
			return nil, usageErrorf("repository %s/%s records cluster %q, not %q", ns, n, obj.Spec.Cluster, cluster)
		}
		return obj, nil
	}
	var list v1alpha1.RepositoryList
	if err := c.List(ctx, &list, client.InNamespace(kube.Namespace)); err != nil {
		if meta.IsNoMatchError(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("list Repositories: %w", err)
	}
	var found []*v1alpha1.Repository
	for i := range list.Items {
		if list.Items[i].Spec.Cluster == cluster {
			found = append(found, &list.Items[i])
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return found[0], nil
	}
	var names []string
	for _, r := range found {
		names = append(names, client.ObjectKeyFromObject(r).String())
	}
	return nil, usageErrorf("several Repositories record cluster %s (%s): pick one with --repository", cluster, strings.Join(names, ", "))
}

// recordApply writes the pass into the Repository's status, as the
// controller would, so that it carries on from there.
func recordApply(ctx context.Context, c client.Client, obj *v1alpha1.Repository, commit string, out *reconciler.Outcome) error {
	base := obj.DeepCopy()
	obj.Status.Subscriptions = out.Subscriptions
	if out.Settled {
		obj.Status.LastAppliedCommit = commit
	}
	if err := c.Status().Patch(ctx, obj, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("record in repository %s: %w", client.ObjectKeyFromObject(obj), err)
	}
	return nil
}

func writeApplyOutcome(w io.Writer, format string, out *reconciler.Outcome) error {
	if structured(format) {
		return encode(w, format, out)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAMESPACE\tSUBSCRIPTION\tPHASE\tINSTALLED\tTARGET\tHEALTHY\tMESSAGE")
	for _, st := range out.Subscriptions {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%v\t%s\n", st.Namespace, st.Name, st.Phase,
			cmp.Or(st.InstalledBundle, "-"), st.TargetBundle, st.Healthy, st.Message)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if cs := out.ClusterStatus; cs != nil {
		fmt.Fprintf(w, "%s: %s: %s\n", cs.Context, cs.State, cs.Description)
	}
	_, err := fmt.Fprintf(w, "%s: %s\n", out.Reason, out.Message)
	return err
}
