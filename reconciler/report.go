package reconciler

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/resolver"
)

// report posts each subscription's status on the commit that carried its
// plan.
func (s *Syncer) report(ctx context.Context, t Target, results []*subResult) {
	for _, r := range results {
		s.post(ctx, t, r.plan, r.report)
	}
}

// post posts one subscription's status.
func (s *Syncer) post(ctx context.Context, t Target, p *loadedPlan, rep commitstatus.Report) {
	if p.carrier == "" {
		return
	}
	st := gitsource.Status{
		Context: commitstatus.Context(t.Cluster, p.namespace, p.name), State: rep.State(), Description: rep.Description(),
	}
	// Link the plan the status is about, as the commit carried it.
	if l, ok := t.statuses.(gitsource.FileLinker); ok && p.dir != "" {
		st.TargetURL = l.FileURL(p.carrier, p.dir+"/installplan.yaml")
	}
	s.postStatus(ctx, t, p.carrier, st)
}

// postStatus posts st on commit unless it is what this Syncer last posted
// for the context: GitHub keeps at most 1,000 statuses per commit and
// context, and an interval that changed nothing must not spend them. A
// failed post is logged and tried again next pass; it fails nothing, as
// the cluster is as it should be whatever Git hears of it.
func (s *Syncer) postStatus(ctx context.Context, t Target, commit string, st gitsource.Status) {
	if t.statuses == nil {
		return
	}
	key := t.ID + "\x00" + st.Context
	want := postedStatus{commit: commit, status: st}
	s.mu.Lock()
	same := s.posted[key] == want
	s.mu.Unlock()
	if same || s.reapplying(ctx, t, commit, st) {
		return
	}
	if err := t.statuses.SetStatus(ctx, commit, st); err != nil {
		logr.FromContextOrDiscard(ctx).Error(err, "post commit status", "context", st.Context, "commit", commit)
		t.event(true, "StatusFailed", fmt.Sprintf("post %s on %.12s: %v", st.Context, commit, err))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.posted == nil {
		s.posted = map[string]postedStatus{}
	}
	s.posted[key] = want
}

// reapplying tells an "applying B" status that would only interrupt what
// the forge already says on the commit: B installed. Every pass applies
// again (server-side apply corrects drift), and a pending status before
// the same success would spend two of GitHub's 1,000 statuses per commit
// and context on each pass, and on each restart, while nothing moved. The
// forge is asked, not this Syncer's memory, so a restarted controller or
// an `olmops apply` run agrees with the one before it. If the re-apply
// ends differently, its outcome is posted as usual.
func (s *Syncer) reapplying(ctx context.Context, t Target, commit string, st gitsource.Status) bool {
	if st.State != gitsource.StatusPending {
		return false
	}
	want, err := commitstatus.Parse(st.Description)
	if err != nil || want.Phase != commitstatus.Applying {
		return false
	}
	current, err := t.statuses.Statuses(ctx, commit)
	if err != nil {
		return false // post it: a status too many beats a missing one
	}
	for _, c := range current {
		if c.Context != st.Context || c.State != gitsource.StatusSuccess {
			continue
		}
		got, err := commitstatus.Parse(c.Description)
		return err == nil && got.Phase == commitstatus.Installed && got.Bundle == want.Bundle
	}
	return false
}

// postedStatus is the last status posted for a context.
type postedStatus struct {
	commit string
	status gitsource.Status
}

// reportCluster posts olmops/<cluster> on the commit: whether every
// installed operator allows the cluster's next OpenShift minor version
// (olm.maxOpenShiftVersion), and keeps the ClusterOperator's Upgradeable
// condition when the Syncer has a ClusterOperator client. Nothing is
// posted or written for a cluster whose OpenShift version is unknown.
// The error is the ClusterOperator's write: the gate must not be
// reported kept when it is not.
func (s *Syncer) reportCluster(ctx context.Context, t Target, set *planSet, results []*subResult, out *Outcome) error {
	version := set.cluster.OpenShiftVersion
	if s.OpenShiftVersion != nil {
		live, err := s.OpenShiftVersion(ctx)
		if err != nil {
			logr.FromContextOrDiscard(ctx).Error(err, "read the cluster's OpenShift version; using the repository's")
		} else if live != "" {
			version = live
		}
	}
	next, ok := nextMinor(version)
	if !ok {
		return nil
	}
	start := time.Now()
	blockers, unknown := s.blockers(ctx, set, results, version)
	s.Metrics.observeResolution(t.Cluster, time.Since(start))
	st := gitsource.Status{Context: commitstatus.ClusterContext(t.Cluster), State: gitsource.StatusSuccess,
		Description: "every installed operator allows OpenShift " + next}
	if len(blockers) > 0 {
		st.State, st.Description = gitsource.StatusFailure, "not upgradeable to OpenShift "+next+": "+strings.Join(blockers, ", ")
	}
	out.ClusterStatus = &st
	s.postStatus(ctx, t, t.Commit.String(), st)
	if s.ClusterOperator == nil {
		return nil
	}
	return keepClusterOperator(ctx, s.ClusterOperator, upgradeGate(next, blockers, unknown), time.Now())
}

// blockers lists the installed bundles whose olm.maxOpenShiftVersion is
// below the next minor version, as "bundle (max 4.20)". A bundle its
// catalog no longer has cannot be checked: it is logged, and listed in
// unknown as "namespace/subscription: bundle".
func (s *Syncer) blockers(ctx context.Context, set *planSet, results []*subResult, version string) (found, unknown []string) {
	log := logr.FromContextOrDiscard(ctx)
	cache := s.Catalogs
	if cache == nil {
		cache = gitsource.NewCatalogCache(len(set.cfg.Spec.Catalogs))
	}
	for _, r := range results {
		p, installed := r.plan, r.status.InstalledBundle
		if p.file == nil || installed == "" {
			continue
		}
		b, err := lookup(ctx, cache, set, p.file.Spec.Catalog.Name, p.file.Spec.Package, installed)
		if err != nil {
			log.Error(err, "check olm.maxOpenShiftVersion", "bundle", installed)
			unknown = append(unknown, p.namespace+"/"+p.name+": "+installed)
			continue
		}
		if _, blocks := resolver.OpenShiftBlocker(b, version); blocks {
			found = append(found, fmt.Sprintf("%s (max %s)", b.Name, b.Props.MaxOpenShiftVersion))
		}
	}
	return found, unknown
}

// lookup finds a bundle in the named catalog of the set's commit.
func lookup(ctx context.Context, cache *gitsource.CatalogCache, set *planSet, catalogName, pkg, bundle string) (*catalog.Bundle, error) {
	for _, c := range set.cfg.Spec.Catalogs {
		if c.Name != catalogName {
			continue
		}
		cat, err := cache.Get(ctx, set.snap, c.Path, c.Name)
		if err != nil {
			return nil, err
		}
		if b := cat.Bundle(pkg, bundle); b != nil {
			return b, nil
		}
		return nil, fmt.Errorf("catalog %s has no bundle %s of package %s", catalogName, bundle, pkg)
	}
	return nil, fmt.Errorf("no catalog %s", catalogName)
}

// nextMinor reads "4.20.3" as "4.21".
func nextMinor(version string) (string, bool) {
	parts := strings.SplitN(strings.TrimPrefix(version, "v"), ".", 3)
	if len(parts) < 2 {
		return "", false
	}
	minor, err := strconv.Atoi(parts[1])
	if _, errMajor := strconv.Atoi(parts[0]); err != nil || errMajor != nil {
		return "", false
	}
	return parts[0] + "." + strconv.Itoa(minor+1), true
}
