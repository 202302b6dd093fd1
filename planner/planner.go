package planner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-logr/logr"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/plan"
)

// Options configure a Planner.
type Options struct {
	// Repo holds the desired state; plans are committed to it.
	Repo *gitsource.Repo
	// Push sends commits and plan branches to Repo's origin and proposes
	// them through the forge. Without it everything stays in the local
	// repository: commits, plan branches, and, for a repository without
	// origin, the git-only forge's records.
	Push bool
	// Forge returns the forge olmops.yaml configures; nil, or a nil
	// Forge returned, means the git-only forge on Repo.
	Forge gitsource.ForgeFunc
	// Branch is where olmops.yaml is read; "" means Repo's default branch.
	Branch string
	// Clusters limits the run to these clusters; none means all.
	Clusters []string
	// Check only compares: nothing is written.
	Check bool
	// Ref, with Check, plans every cluster from this revision instead of
	// its target branch: the head of a pull request, say.
	Ref string
	// Images pulls bundle images; nil leaves bundles without manifests in
	// the repository or catalog unrenderable.
	Images plan.ImageSource
	// Pinner pins the related images of bundles pulled from images; nil
	// leaves their tags.
	Pinner plan.ImagePinner
	// Version is written into plans.
	Version string
	// Author signs commits; a default olmops identity when empty.
	Author object.Signature
	// Attempts and Backoff bound the retries after a lost push race.
	Attempts int
	Backoff  time.Duration
	// Cache keeps loaded catalogs between runs; nil uses a fresh one.
	Cache *gitsource.CatalogCache
	// Plans keeps committed plans read between runs, by their folder's
	// tree hash; nil reads every plan each run.
	Plans *PlanCache
	// Now is the clock promotion measures soak times with; nil is
	// time.Now.
	Now func() time.Time
}

// Planner plans a repository. One Planner may Run many times (the catalog
// cache is kept); it is not safe for concurrent Runs.
type Planner struct {
	opts     Options
	forge    gitsource.Forge
	catalogs *catalogs
	digests  *plan.Digests
	renders  *plan.Renders
	srcMu    sync.Mutex
	srcFS    fs.FS
	src      *plan.Sources
	// pushed is the last commit each target branch was pushed at this
	// run, checked against the remote at the end.
	pushed map[string]plumbing.Hash
	// forgeNote says why --check could not read proposals.
	forgeNote string
}

// New returns a Planner for opts.
func New(opts Options) *Planner {
	if opts.Attempts < 1 {
		opts.Attempts = 5
	}
	if opts.Backoff == 0 {
		opts.Backoff = 500 * time.Millisecond
	}
	if opts.Author.Name == "" {
		opts.Author = object.Signature{Name: "olmops", Email: "olmops@users.noreply.github.com"}
	}
	if opts.Cache == nil {
		opts.Cache = gitsource.NewCatalogCache(0)
	}
	return &Planner{opts: opts, catalogs: &catalogs{cache: opts.Cache, valid: map[*catalog.Catalog]error{}}}
}

// Run plans every selected cluster once. A cluster that cannot be planned
// is reported in its ClusterReport and the others proceed; the error is
// for what stops the whole run (the repository or olmops.yaml unreadable,
// an unknown cluster name, a push that keeps losing races).
func (p *Planner) Run(ctx context.Context) (*Report, error) {
	var err error
	p.digests, p.renders = plan.NewDigests(), plan.NewRenders()
	p.pushed = map[string]plumbing.Hash{}
	if p.remote() {
		if err := p.opts.Repo.Fetch(ctx); err != nil {
			return nil, err
		}
	}
	branch := p.opts.Branch
	if branch == "" {
		b, err := p.opts.Repo.DefaultBranch(ctx)
		if err != nil {
			return nil, err
		}
		branch = b
	}
	if p.opts.Ref != "" && !p.opts.Check {
		return nil, fmt.Errorf("%w: a revision to plan from is only for checking", ErrUsage)
	}
	var head plumbing.Hash
	if p.opts.Ref != "" {
		head, err = p.opts.Repo.Resolve(ctx, p.opts.Ref)
	} else {
		head, err = p.tip(ctx, branch)
	}
	if err != nil {
		return nil, err
	}
	snap, err := p.opts.Repo.Snapshot(ctx, head)
	if err != nil {
		return nil, err
	}
	repo, err := v1alpha1.ReadRepository(snap.FS(), branch)
	if err != nil {
		return nil, err
	}
	clusters, err := selectClusters(repo, p.opts.Clusters)
	if err != nil {
		return nil, err
	}
	if err := p.setForge(repo); err != nil {
		return nil, err
	}
	report := &Report{}
	for _, target := range targetBranches(clusters) {
		var group []v1alpha1.Cluster
		for _, c := range clusters {
			if c.TargetBranch == target {
				group = append(group, c)
			}
		}
		var br *Report
		first := true
		err := gitsource.RetryOnConflict(ctx, p.opts.Attempts, p.opts.Backoff, func(ctx context.Context) error {
			if !first && p.remote() {
				if err := p.opts.Repo.Fetch(ctx); err != nil {
					return err
				}
			}
			first = false
			br = &Report{}
			return p.branch(ctx, repo, target, group, br)
		})
		if br != nil {
			report.Clusters = append(report.Clusters, br.Clusters...)
		}
		if err != nil {
			return report, fmt.Errorf("branch %s: %w", target, err)
		}
	}
	if err := p.verifyPushed(ctx); err != nil {
		return report, err
	}
	return report, nil
}

func selectClusters(repo *v1alpha1.RepositoryConfig, names []string) ([]v1alpha1.Cluster, error) {
	if len(names) == 0 {
		return repo.Spec.Clusters, nil
	}
	var out []v1alpha1.Cluster
	for _, n := range names {
		i := slices.IndexFunc(repo.Spec.Clusters, func(c v1alpha1.Cluster) bool { return c.Name == n })
		if i < 0 {
			var known []string
			for _, c := range repo.Spec.Clusters {
				known = append(known, c.Name)
			}
			return nil, fmt.Errorf("%w: cluster %q is not in the repository (clusters: %v)", ErrUsage, n, known)
		}
		out = append(out, repo.Spec.Clusters[i])
	}
	return out, nil
}

// ErrUsage marks a request that names something the repository lacks.
var ErrUsage = errors.New("usage")

func targetBranches(clusters []v1alpha1.Cluster) []string {
	var out []string
	for _, c := range clusters {
		if !slices.Contains(out, c.TargetBranch) {
			out = append(out, c.TargetBranch)
		}
	}
	slices.Sort(out)
	return out
}

// branch plans the clusters sharing one target branch from its head:
// Automatic changes become one commit per cluster, pushed together; Manual
// ones become proposals based on the new head.
func (p *Planner) branch(ctx context.Context, repo *v1alpha1.RepositoryConfig, target string, clusters []v1alpha1.Cluster, report *Report) (err error) {
	log := logr.FromContextOrDiscard(ctx).WithValues("branch", target)
	var head plumbing.Hash
	// In a worktree, one index write for all of the branch's commits: one
	// per commit made planning quadratic in the clusters.
	release := p.opts.Repo.HoldIndex()
	defer func() { err = errors.Join(err, release()) }()
	if p.opts.Ref != "" {
		target = p.opts.Ref
		head, err = p.opts.Repo.Resolve(ctx, target)
	} else {
		head, err = p.tip(ctx, target)
	}
	if err != nil {
		return err
	}
	if p.remote() {
		if err := p.adopt(ctx, target, head); err != nil {
			return err
		}
	}
	snap, err := p.opts.Repo.Snapshot(ctx, head)
	if err != nil {
		return err
	}
	parent := head
	var proposals []*plan.Proposal
	next := p.ahead(ctx, snap, repo, clusters)
	defer next.wait()
	for i, c := range clusters {
		cr := ClusterReport{Name: c.Name}
		in, res, err := next.get(i)
		if err != nil {
			cr.Err, cr.Error = err, err.Error()
			report.Clusters = append(report.Clusters, cr)
			log.Error(err, "cluster not planned", "cluster", c.Name)
			continue
		}
		cr.Findings, cr.Holds = res.Findings, res.Holds
		auto, manual := split(in.Cluster, res)
		for _, pl := range res.Plans {
			if pl.State == plan.UpToDate {
				cr.Plans = append(cr.Plans, PlanReport{Key: pl.Key, State: pl.State, To: pl.File.Spec.To.Name, Action: ActionNone})
			}
		}
		if p.opts.Check {
			for _, pr := range auto {
				cr.Plans = append(cr.Plans, p.planReports(pr, ActionStale, "", nil)...)
			}
			for _, pr := range manual {
				reports, err := p.checkProposal(ctx, pr)
				if err != nil {
					return err
				}
				cr.Plans = append(cr.Plans, reports...)
			}
			report.Clusters = append(report.Clusters, cr)
			continue
		}
		if len(auto) > 0 {
			h, err := p.commitAutomatic(ctx, parent, target, in.Cluster, auto)
			if err != nil {
				return err
			}
			parent = h
			for _, pr := range auto {
				cr.Plans = append(cr.Plans, p.planReports(pr, ActionCommitted, h.String(), nil)...)
			}
		}
		proposals = append(proposals, manual...)
		report.Clusters = append(report.Clusters, cr)
	}
	if parent != head && p.remote() {
		if err := p.opts.Repo.Push(ctx, target, false); err != nil {
			return err
		}
		p.pushed[target] = parent
	}
	return p.proposeAll(ctx, target, parent, proposals, report)
}

// split groups the changed plans into proposals, by the approval of the
// subscription each group belongs to.
func split(cluster v1alpha1.Cluster, res *plan.Result) (auto, manual []*plan.Proposal) {
	byGroup := map[plan.Key]*plan.Proposal{}
	var order []plan.Key
	for _, pl := range res.Changed() {
		g := plan.Key{Namespace: pl.Namespace, Name: pl.Group}
		if byGroup[g] == nil {
			byGroup[g] = &plan.Proposal{Cluster: cluster}
			order = append(order, g)
		}
		pr := byGroup[g]
		pr.Plans = append(pr.Plans, pl)
		if pl.Key == g {
			pr.Main = pl
		}
	}
	for _, g := range order {
		pr := byGroup[g]
		if pr.Main.File == nil { // only a dependency changed: it leads
			pr.Main = pr.Plans[0]
		}
		slices.SortStableFunc(pr.Plans, func(a, b plan.Plan) int {
			switch {
			case a.Key == pr.Main.Key:
				return -1
			case b.Key == pr.Main.Key:
				return 1
			}
			return 0
		})
		if pr.Manual() {
			manual = append(manual, pr)
		} else {
			auto = append(auto, pr)
		}
	}
	return auto, manual
}

// files are the edits that write a proposal's plans: each plan folder is
// replaced whole, or deleted for Remove.
func files(pr *plan.Proposal) map[string][]byte {
	out := map[string][]byte{}
	for _, pl := range pr.Plans {
		out[pl.Dir] = nil
		for name, data := range pl.Files {
			out[pl.Dir+"/"+name] = data
		}
	}
	return out
}

func (p *Planner) commitAutomatic(ctx context.Context, parent plumbing.Hash, branch string, cluster v1alpha1.Cluster, prs []*plan.Proposal) (plumbing.Hash, error) {
	all := map[string][]byte{}
	for _, pr := range prs {
		for k, v := range files(pr) {
			all[k] = v
		}
	}
	msg := automaticMessage(cluster.Name, prs)
	return p.opts.Repo.Commit(ctx, gitsource.CommitRequest{Parent: parent, Branch: branch, Files: all, Message: msg, Author: p.opts.Author})
}

// remote tells whether the run talks to origin.
func (p *Planner) remote() bool { return p.opts.Push && p.opts.Repo.HasRemote() }

// setForge picks the forge: none when plan branches stay local although
// there is an origin, else the configured one or the git-only forge.
func (p *Planner) setForge(repo *v1alpha1.RepositoryConfig) error {
	p.forge = nil
	if p.opts.Check {
		return p.setCheckForge(repo)
	}
	if p.opts.Repo.HasRemote() && !p.opts.Push {
		return nil
	}
	if p.opts.Forge != nil {
		f, err := p.opts.Forge(repo)
		if err != nil {
			return err
		}
		p.forge = f
	}
	if p.forge == nil {
		gf := gitsource.NewGitForge(p.opts.Repo)
		gf.Author = p.opts.Author
		p.forge = gf
	}
	return nil
}
