package review

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/planner"
	"github.com/olmops/olmops/resolver"
	"github.com/olmops/olmops/subscription"
)

// Options tune a comparison.
type Options struct {
	// Branch is the branch the head merges into; olmops.yaml defaults
	// clusters' target branches to it.
	Branch string
	// Clusters limits the impact to these clusters; none means all. A
	// name neither side knows is an error wrapping planner.ErrUsage.
	Clusters []string
}

// loader reads both sides, sharing what they have in common.
type loader struct {
	valid       map[*catalog.Catalog]catalog.Problems
	warned      map[*catalog.Catalog]catalog.Problems
	subs        map[objectsKey]loadedObjects
	resolutions map[string]*nsResult
}

type objectsKey struct {
	dir  string
	hash any
}

type loadedObjects struct {
	objs *subscription.Objects
	err  error
}

func newLoader() *loader {
	return &loader{
		valid:       map[*catalog.Catalog]catalog.Problems{},
		warned:      map[*catalog.Catalog]catalog.Problems{},
		subs:        map[objectsKey]loadedObjects{},
		resolutions: map[string]*nsResult{},
	}
}

// validate checks a catalog once, however many sides share it.
func (l *loader) validate(c *catalog.Catalog) catalog.Problems {
	ps, ok := l.valid[c]
	if !ok {
		ps = c.Validate()
		l.valid[c] = ps
	}
	return ps
}

// warnings are the catalog's decode warnings and its CEL rules that do
// not compile, once per catalog however many sides share it.
func (l *loader) warnings(c *catalog.Catalog) catalog.Problems {
	ws, ok := l.warned[c]
	if !ok {
		ws = append(c.Warnings(), resolver.CheckCEL(c)...)
		l.warned[c] = ws
	}
	return ws
}

// Compare reviews head against base. What does not load on either side
// is reported as problems, never as an error: a head that does not parse
// still gets a report. The error is for a cancelled ctx and for
// Options.Clusters naming an unknown cluster.
func Compare(ctx context.Context, base, head Tree, opts Options) (*Report, error) {
	l := newLoader()
	bs, err := l.load(ctx, base, opts.Branch, nil)
	if err != nil {
		return nil, err
	}
	hs, err := l.load(ctx, head, opts.Branch, bs)
	if err != nil {
		return nil, err
	}
	if !bs.configured && hs.configured {
		if bs, err = l.load(ctx, base, opts.Branch, hs); err != nil {
			return nil, err
		}
	}
	if err := checkClusters(bs, hs, opts.Clusters); err != nil {
		return nil, err
	}
	r := &Report{Base: base.Commit, Head: head.Commit, base: bs, head: hs, only: opts.Clusters}
	r.Problems = matchProblems(bs.problems, hs.problems, hs.unread)
	r.Packages = packageChanges(bs, hs)
	if err := l.impact(ctx, r, bs, hs, opts.Clusters); err != nil {
		return nil, err
	}
	r.Waves = waves(hs.clusterSpecs, r.Impact)
	if err := r.addGranted(); err != nil {
		return nil, err
	}
	return r, nil
}

// unread tells whether the side has a source it could not read: a catalog
// that does not load, or one of the other side's catalogs and clusters
// when olmops.yaml does not load (the other side's are read instead).
func (s *side) unread(source string) bool {
	name, ok := strings.CutPrefix(source, "catalog ")
	if ok && slices.Contains(s.broken, name) {
		return true
	}
	if s.configured || source == v1alpha1.RepositoryFile {
		return false
	}
	if ok {
		return !slices.ContainsFunc(s.catalogSpecs, func(c v1alpha1.Catalog) bool { return c.Name == name })
	}
	name, _ = strings.CutPrefix(source, "cluster ")
	return !slices.ContainsFunc(s.clusterSpecs, func(c v1alpha1.Cluster) bool { return c.Name == name })
}

func checkClusters(base, head *side, names []string) error {
	for _, n := range names {
		if !base.hasCluster(n) && !head.hasCluster(n) {
			return fmt.Errorf("%w: cluster %q is in neither the base nor the head", planner.ErrUsage, n)
		}
	}
	return nil
}

func (s *side) hasCluster(name string) bool {
	return s.cluster(name) != nil
}

func (s *side) cluster(name string) *clusterState {
	i := slices.IndexFunc(s.clusters, func(c *clusterState) bool { return c.cluster.Name == name })
	if i < 0 {
		return nil
	}
	return s.clusters[i]
}
