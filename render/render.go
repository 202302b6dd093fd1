package render

import (
	"errors"
	"fmt"
	"strings"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Labels on every rendered object, so that the reconciler can find what it
// applied for a package (inventory and prune).
const (
	// PackageLabel holds the package an object was rendered for; CRDs
	// and their per-API ClusterRoles, which several packages may share,
	// have none.
	PackageLabel = "olmops.io/package"
	// ManagedByLabel holds ManagedBy.
	ManagedByLabel = "app.kubernetes.io/managed-by"
	// ManagedBy is the value of ManagedByLabel.
	ManagedBy = "olmops"
)

// DefaultOperatorGroup is the OperatorGroup name Render writes in the
// olm.operatorGroup annotation when Options.OperatorGroup is empty.
const DefaultOperatorGroup = "olmops"

// Options say where and how a bundle is installed: what a Subscription and
// its OperatorGroup would tell OLM.
type Options struct {
	// Namespace is the install namespace (required).
	Namespace string
	// TargetNamespaces are the OperatorGroup's target namespaces; nil or
	// empty means all namespaces.
	TargetNamespaces []string
	// OperatorGroup is the name written in the olm.operatorGroup annotation;
	// DefaultOperatorGroup when empty.
	OperatorGroup string
	// Config is the Subscription's spec.config as JSON-compatible values:
	// env, envFrom, volumes, volumeMounts, tolerations, resources,
	// nodeSelector, affinity, annotations, and selector (ignored, as by
	// OLM). Any other key is an error.
	Config map[string]any
}

// Result is a rendered bundle.
type Result struct {
	// Objects are the manifests to apply, sorted by Less.
	Objects []*unstructured.Unstructured
	// Warnings are what a reviewer should know: parts of the bundle that
	// are not rendered, or that need something olmops does not create.
	Warnings []string
}

// renderer holds one rendering: its inputs and the objects made so far.
type renderer struct {
	b     *Bundle
	csv   *operatorsv1alpha1.ClusterServiceVersion
	raw   *unstructured.Unstructured
	ns    string
	og    string
	pkg   string
	scope scope
	cfg   *subscriptionConfig
	// webhooks are the CSV's webhook definitions by deployment name.
	webhooks map[string][]operatorsv1alpha1.WebhookDescription

	objs  []*unstructured.Unstructured
	index map[objectID]int
	// fromBundle marks the objects that are the bundle's manifests.
	fromBundle map[objectID]bool
	warnings   []string
}

// Render turns a bundle into the manifests OLM would create to install it
// with opts, the way OLM's catalog operator, OLM operator and OperatorGroup
// controller do, so that the result can be applied without OLM. The CSV
// and the OperatorGroup themselves are not rendered.
func Render(b *Bundle, opts Options) (*Result, error) {
	r, err := newRenderer(b, opts)
	if err != nil {
		return nil, err
	}
	steps := []struct {
		name string
		run  func() error
	}{
		{"bundle manifests", r.bundleObjects},
		{"service accounts", r.serviceAccounts},
		{"permissions", r.rbac},
		{"aggregated roles", r.aggregatedRoles},
		{"deployments", r.deployments},
		{"webhooks", r.webhookObjects},
		{"operator condition", r.operatorCondition},
		{"api services", r.apiServices},
	}
	for _, s := range steps {
		if err := s.run(); err != nil {
			return nil, fmt.Errorf("render %s: %s: %w", r.csv.Name, s.name, err)
		}
	}
	for _, o := range r.objs {
		labels := o.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[ManagedByLabel] = ManagedBy
		if !sharedAcrossPackages(o) {
			labels[PackageLabel] = r.pkg
		}
		o.SetLabels(labels)
	}
	Sort(r.objs)
	return &Result{Objects: r.objs, Warnings: r.warnings}, nil
}

// sharedAcrossPackages reports whether o may be installed by several
// packages, as OLM lets two operators whose OperatorGroups do not
// intersect own one CRD: a CRD, and the per-API ClusterRoles derived from
// it. Such objects carry no package label, so that every plan renders the
// same object and the applies of two plans do not undo each other.
func sharedAcrossPackages(o *unstructured.Unstructured) bool {
	switch o.GetKind() {
	case "CustomResourceDefinition":
		return o.GroupVersionKind().Group == "apiextensions.k8s.io"
	case "ClusterRole":
		for k := range o.GetLabels() {
			if strings.HasPrefix(k, opgroupAggregationPrefix) {
				return true
			}
		}
	}
	return false
}

func newRenderer(b *Bundle, opts Options) (*renderer, error) {
	if b == nil || b.CSV == nil {
		return nil, errors.New("render: bundle has no ClusterServiceVersion")
	}
	csv := b.CSV
	if s := csv.Spec.InstallStrategy.StrategyName; s != operatorsv1alpha1.InstallStrategyNameDeployment {
		return nil, fmt.Errorf("render %s: install strategy %q is not %q", csv.Name, s, operatorsv1alpha1.InstallStrategyNameDeployment)
	}
	raw, err := b.csvObject()
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", csv.Name, err)
	}
	r := &renderer{b: b, csv: csv, raw: raw, ns: opts.Namespace, og: opts.OperatorGroup,
		index: map[objectID]int{}, fromBundle: map[objectID]bool{}}
	if r.og == "" {
		r.og = DefaultOperatorGroup
	}
	if r.pkg = packageName(b); len(validation.IsValidLabelValue(r.pkg)) > 0 || r.pkg == "" {
		return nil, fmt.Errorf("render %s: package name %q cannot be a label value", csv.Name, r.pkg)
	}
	if r.scope, err = resolveScope(csv, opts.Namespace, opts.TargetNamespaces); err != nil {
		return nil, fmt.Errorf("render %s: %w", csv.Name, err)
	}
	var warns []string
	if r.cfg, warns, err = parseConfig(opts.Config); err != nil {
		return nil, fmt.Errorf("render %s: %w", csv.Name, err)
	}
	r.warnings = append(r.warnings, warns...)
	if r.webhooks, err = webhooksByDeployment(csv); err != nil {
		return nil, fmt.Errorf("render %s: %w", csv.Name, err)
	}
	return r, nil
}

func (r *renderer) warnf(format string, args ...any) {
	r.warnings = append(r.warnings, fmt.Sprintf(format, args...))
}

// add appends an object; an object of the same identity is an error.
func (r *renderer) add(o *unstructured.Unstructured) error {
	id := idOf(o)
	if _, ok := r.index[id]; ok {
		return fmt.Errorf("%s is rendered twice", id)
	}
	r.index[id] = len(r.objs)
	r.objs = append(r.objs, o)
	return nil
}

// override adds an object that takes the place of a bundle manifest of
// the same identity, as OLM's own objects do, and says whether it did.
func (r *renderer) override(o *unstructured.Unstructured) (bool, error) {
	id := idOf(o)
	i, ok := r.index[id]
	if !ok || !r.fromBundle[id] {
		return false, r.add(o)
	}
	r.objs[i] = o
	delete(r.fromBundle, id)
	return true, nil
}

func (r *renderer) lookup(id objectID) *unstructured.Unstructured {
	if i, ok := r.index[id]; ok {
		return r.objs[i]
	}
	return nil
}

// objectID is what makes two manifests the same object in a cluster.
type objectID struct {
	group, kind, namespace, name string
}

func idOf(o *unstructured.Unstructured) objectID {
	return objectID{o.GroupVersionKind().Group, o.GetKind(), o.GetNamespace(), o.GetName()}
}

func (id objectID) String() string {
	kind := id.kind
	if id.group != "" {
		kind += "." + id.group
	}
	if id.namespace == "" {
		return kind + " " + id.name
	}
	return kind + " " + id.namespace + "/" + id.name
}

// newObject starts a manifest.
func newObject(apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	meta := map[string]any{"name": name}
	if namespace != "" {
		meta["namespace"] = namespace
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": kind, "metadata": meta,
	}}
}

// packageName is the bundle's package, or the CSV name without its
// version when the bundle does not say.
func packageName(b *Bundle) string {
	if b.Package != "" {
		return b.Package
	}
	name := b.CSV.Name
	if v := b.CSV.Spec.Version.String(); v != "" && v != "0.0.0" {
		for _, suffix := range []string{".v" + v, "-v" + v, "." + v, "-" + v} {
			if s, ok := strings.CutSuffix(name, suffix); ok {
				return s
			}
		}
	}
	if i := strings.Index(name, ".v"); i > 0 {
		return name[:i]
	}
	return name
}
