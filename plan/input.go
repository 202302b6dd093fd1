package plan

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/render"
	"github.com/olmops/olmops/subscription"
)

// Key names a plan within a cluster: the namespace and the subscription.
type Key struct {
	Namespace, Name string
}

func (k Key) String() string { return k.Namespace + "/" + k.Name }

// Compare orders keys by namespace, then name.
func (k Key) Compare(o Key) int {
	return cmp.Or(strings.Compare(k.Namespace, o.Namespace), strings.Compare(k.Name, o.Name))
}

// Input is everything one cluster's plans depend on.
type Input struct {
	// Cluster is the cluster's entry, defaults and facts filled.
	Cluster v1alpha1.Cluster
	// Catalogs to resolve from, each with its Priority set.
	Catalogs []*catalog.Catalog
	// Objects are the cluster's Subscriptions, ClusterExtensions and
	// OperatorGroups.
	Objects *subscription.Objects
	// Repo is the repository's tree: overlays are read from it.
	Repo fs.FS
	// Committed are the plans on the cluster's target branch.
	Committed map[Key]*Committed
	// Bundles gives the manifests of a catalog bundle.
	Bundles BundleSource
	// Version is olmops' version, written into new plans.
	Version string
	// Policy is olmops.yaml's: what becomes of escalating changes.
	Policy v1alpha1.Policy
	// Renders, when set, shares renderings among the clusters of a run
	// (see Renders); nil renders for this cluster alone.
	Renders *Renders
	// Promotion, for a cluster that follows others, is what its upgrades
	// wait for; nil for a cluster that follows nobody.
	Promotion *Promotion
}

// Committed is a plan as committed: its file and every file of its folder.
type Committed struct {
	Plan *v1alpha1.InstallPlan
	// Files by path relative to the plan's folder, installplan.yaml
	// included.
	Files map[string][]byte
}

// BundleSource gives the manifests of a bundle, and the bundle image as it
// should be recorded (pinned by digest when it was pulled); "" when the
// manifests did not come from the image.
type BundleSource interface {
	Bundle(ctx context.Context, cat *catalog.Catalog, b *catalog.Bundle) (*render.Bundle, string, error)
}

// Dir is the folder of a cluster's plan, relative to the repository root.
func Dir(cluster v1alpha1.Cluster, k Key) string {
	return path.Join(cluster.Path, v1alpha1.PlansDir, k.Namespace, k.Name)
}

// Keys lists the plans committed for cluster in fsys, one per folder
// <plans>/<namespace>/<name>/, in path order. A cluster without a plans
// folder has none.
func Keys(fsys fs.FS, cluster v1alpha1.Cluster) ([]Key, error) {
	root := path.Join(cluster.Path, v1alpha1.PlansDir)
	namespaces, err := fs.ReadDir(fsys, root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var keys []Key
	for _, ns := range namespaces {
		if !ns.IsDir() {
			continue
		}
		names, err := fs.ReadDir(fsys, path.Join(root, ns.Name()))
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if n.IsDir() {
				keys = append(keys, Key{Namespace: ns.Name(), Name: n.Name()})
			}
		}
	}
	return keys, nil
}

// OverlayDir is the folder of a subscription's kustomize overlay.
func OverlayDir(cluster v1alpha1.Cluster, name string) string {
	return path.Join(cluster.Path, "overlays", name)
}
