package plan

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/render"
)

// ReasonOwnerConflict is OLM's CSV status reason when two OperatorGroups
// whose target namespaces intersect provide the same API; olmops keeps its
// name and words so that people who know OLM recognise the refusal.
const ReasonOwnerConflict = "InterOperatorGroupOwnerConflict"

// apiOwner is what one plan installs that the cluster's other plans may
// also install: cluster-scoped CRDs, and the APIs it serves in the
// namespaces it watches.
type apiOwner struct {
	key   Key
	pkg   string
	where string
	// all: the operator watches all namespaces; else namespaces are the
	// ones it watches, its own included (as OLM counts an OperatorGroup's).
	all        bool
	namespaces []string
	crds       map[string]*unstructured.Unstructured
	// apis are Kind.version.group of each served CRD version, sorted: the
	// form of OLM's olm.providedAPIs annotation.
	apis []string
}

// checkAPIOwners applies OLM's one-owner rules across the namespaces of a
// cluster, which per-namespace resolution cannot see: a CRD several plans
// install must be the same in each, or they would rewrite it in turn on
// every pass; operators whose watched namespaces intersect may not provide
// the same API (InterOperatorGroupOwnerConflict); and a package is
// installed at most once for all namespaces. Errors name both plans and
// come in key order, so a run gives the same message each time.
func (pl *planner) checkAPIOwners(plans []Plan) error {
	var owners []*apiOwner
	for _, p := range plans {
		if p.State == Remove || p.Files == nil {
			continue
		}
		o, err := pl.apiOwnerOf(p)
		if err != nil {
			return err
		}
		owners = append(owners, o)
	}
	slices.SortFunc(owners, func(a, b *apiOwner) int { return a.key.Compare(b.key) })
	var errs []error
	for i, a := range owners {
		for _, b := range owners[i+1:] {
			errs = append(errs, sharedCRDs(a, b)...)
			if err := apiConflict(a, b); err != nil {
				errs = append(errs, err)
			}
			if a.pkg == b.pkg && a.all && b.all {
				errs = append(errs, fmt.Errorf("%s: package %s is installed for all namespaces twice, by %s and by %s (%s): OLM refuses a second AllNamespaces install of one package; remove one, or give them OperatorGroups with disjoint target namespaces",
					b.where, b.pkg, a.key, b.key, a.where))
			}
		}
	}
	return errors.Join(errs...)
}

// sharedCRDs compares the CRDs two plans both install. The whole object
// counts, labels included: the controller applies every plan with one
// field manager, so any difference would flip on each pass.
func sharedCRDs(a, b *apiOwner) []error {
	var errs []error
	for _, name := range sortedKeys(a.crds) {
		bc, ok := b.crds[name]
		if !ok || reflect.DeepEqual(a.crds[name].Object, bc.Object) {
			continue
		}
		fields := "its metadata"
		if ch := render.Compare([]*unstructured.Unstructured{a.crds[name]}, []*unstructured.Unstructured{bc}).Changed; len(ch) > 0 {
			fields = strings.Join(ch[0].Fields, ", ")
		}
		errs = append(errs, fmt.Errorf("%s: CRD %s is provided by %s (package %s) and by %s (package %s, %s), and they differ (%s): a CRD is cluster-wide, so every subscription providing it must install the same one",
			b.where, name, a.key, a.pkg, b.key, b.pkg, a.where, fields))
	}
	return errs
}

// apiConflict is OLM's OperatorGroup intersection rule, for plans of
// different namespaces (resolution already keeps one provider of a GVK
// per namespace).
func apiConflict(a, b *apiOwner) error {
	if a.key.Namespace == b.key.Namespace || !a.intersects(b) {
		return nil
	}
	var common []string
	for _, api := range a.apis {
		if _, ok := slices.BinarySearch(b.apis, api); ok {
			common = append(common, api)
		}
	}
	if len(common) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %s: intersecting operatorgroups provide the same apis: %s, by %s watching %s and by %s watching %s (%s)",
		b.where, ReasonOwnerConflict, strings.Join(common, ","), a.key, a.watching(), b.key, b.watching(), a.where)
}

func (o *apiOwner) intersects(p *apiOwner) bool {
	if o.all || p.all {
		return true
	}
	return slices.ContainsFunc(o.namespaces, func(ns string) bool { return slices.Contains(p.namespaces, ns) })
}

func (o *apiOwner) watching() string {
	if o.all {
		return "all namespaces"
	}
	return strings.Join(o.namespaces, ",")
}

// apiOwnerOf reads what a plan's target manifests install: its CRDs, and
// the namespaces its deployments watch (OLM's olm.targetNamespaces pod
// annotation, "" for all), so that every plan, whether just rendered or
// kept as committed, is judged by what the controller would apply.
func (pl *planner) apiOwnerOf(p Plan) (*apiOwner, error) {
	o := &apiOwner{key: p.Key, pkg: p.File.Spec.Package, where: pl.where(p), namespaces: []string{p.Namespace}, crds: map[string]*unstructured.Unstructured{}}
	prefix := v1alpha1.ManifestsDir + "/"
	for _, name := range sortedKeys(p.Files) {
		base, ok := strings.CutPrefix(name, prefix)
		if !ok || !strings.HasPrefix(base, "customresourcedefinition") && !strings.HasPrefix(base, "deployment") {
			continue
		}
		objs, err := pl.renders.parse(p.Dir+"/"+name, p.Files[name])
		if err != nil {
			return nil, err
		}
		for _, u := range objs {
			o.add(u)
		}
	}
	slices.Sort(o.namespaces)
	o.namespaces = slices.Compact(o.namespaces)
	slices.Sort(o.apis)
	o.apis = slices.Compact(o.apis)
	return o, nil
}

// add records what one target manifest installs.
func (o *apiOwner) add(u *unstructured.Unstructured) {
	switch u.GetKind() {
	case "CustomResourceDefinition":
		o.crds[u.GetName()] = u
		o.apis = append(o.apis, render.ProvidedAPIs([]*unstructured.Unstructured{u})...)
	case "Deployment":
		targets, found, _ := unstructured.NestedString(u.Object, "spec", "template", "metadata", "annotations", "olm.targetNamespaces")
		switch {
		case !found:
		case targets == "":
			o.all = true
		default:
			o.namespaces = append(o.namespaces, strings.Split(targets, ",")...)
		}
	}
}

// where names a plan in errors: its intent's file and line, else its folder.
func (pl *planner) where(p Plan) string {
	for _, in := range pl.in.Objects.Intents {
		if in.Namespace == p.Namespace && in.Name == p.Name {
			return in.Pos.String() + ": " + string(in.Kind) + " " + p.Key.String()
		}
	}
	return p.Dir + ": dependency " + p.Key.String()
}
