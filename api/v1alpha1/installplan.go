package v1alpha1

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation"
)

// InstallPlanKind is the kind of the plan files olmops writes.
const InstallPlanKind = "InstallPlan"

// Plan file names, inside clusters/<cluster>/plans/<namespace>/<subscription>/.
const (
	// PlansDir holds a cluster's plans, one folder per namespace.
	PlansDir = "plans"
	// InstallPlanFile records what was resolved and why.
	InstallPlanFile = "installplan.yaml"
	// ManifestsDir holds the rendered manifests of the plan's target.
	ManifestsDir = "manifests"
	// HopsDir holds the manifests of each intermediate hop of a
	// multi-hop path, one folder per hop (01-<bundle>, 02-<bundle>...).
	HopsDir = "hops"
)

// InstallPlan is installplan.yaml: the resolved upgrade of one subscription
// on one cluster, the inputs it came from, and how it is approved. The same
// inputs give byte-identical files (see Marshal), so a plan can be checked
// for staleness by rendering it again.
//
// The yaml tags order the fields for people; the json tags name them.
type InstallPlan struct {
	APIVersion string          `json:"apiVersion" yaml:"apiVersion"`
	Kind       string          `json:"kind" yaml:"kind"`
	Metadata   PlanMeta        `json:"metadata" yaml:"metadata"`
	Spec       InstallPlanSpec `json:"spec" yaml:"spec"`
}

// PlanMeta names a plan after its subscription.
type PlanMeta struct {
	// name of the subscription (or of the proposed dependency).
	Name string `json:"name" yaml:"name"`
	// namespace the operator is installed in.
	Namespace string `json:"namespace" yaml:"namespace"`
}

// InstallPlanSpec is what a plan installs and why.
type InstallPlanSpec struct {
	// cluster the plan is for.
	Cluster string `json:"cluster" yaml:"cluster"`
	// subscription the plan resolves.
	Subscription PlanSubscription `json:"subscription" yaml:"subscription"`
	// package installed.
	Package string `json:"package" yaml:"package"`
	// approval: Automatic plans are committed to the target branch, Manual
	// ones wait as a proposal until merged.
	Approval Approval `json:"approval" yaml:"approval"`
	// successorPolicy the path was found with.
	SuccessorPolicy SuccessorPolicy `json:"successorPolicy" yaml:"successorPolicy"`
	// from is the bundle installed before the plan; absent for a fresh
	// install.
	// +optional
	From *PlanBundle `json:"from,omitempty" yaml:"from,omitempty"`
	// to is the bundle installed when the plan is applied.
	To PlanBundle `json:"to" yaml:"to"`
	// path is every hop from `from` to `to`, applied in order, each
	// healthy before the next.
	Path []PlanHop `json:"path" yaml:"path"`
	// catalog the bundles come from.
	Catalog PlanCatalog `json:"catalog" yaml:"catalog"`
	// dependencies are the operators this one needs that the namespace
	// must also install; each has its own plan.
	// +optional
	Dependencies []PlanDependency `json:"dependencies,omitempty" yaml:"dependencies,omitempty"`
	// warnings are deprecations and findings a reviewer should read.
	// +optional
	Warnings []string `json:"warnings,omitempty" yaml:"warnings,omitempty"`
	// inputsDigest is the sha256 of every input the plan depends on
	// (intent, cluster facts, the bundles on the path, overlay), so a
	// stale plan shows.
	InputsDigest string `json:"inputsDigest" yaml:"inputsDigest"`
	// manifestsDigest is the sha256 of the manifests folders, so the
	// applier can tell a hand-edited plan.
	ManifestsDigest string `json:"manifestsDigest" yaml:"manifestsDigest"`
	// olmopsVersion wrote the plan.
	OlmopsVersion string `json:"olmopsVersion" yaml:"olmopsVersion"`
}

// PlanSubscription says where the intent was read from.
type PlanSubscription struct {
	// kind is Subscription, ClusterExtension, or Dependency for an
	// operator proposed because another needs it.
	Kind string `json:"kind" yaml:"kind"`
	// file is the intent's path in the repository; empty for a
	// Dependency.
	// +optional
	File string `json:"file,omitempty" yaml:"file,omitempty"`
	// requiredBy names the subscriptions a Dependency is proposed for.
	// +optional
	RequiredBy []string `json:"requiredBy,omitempty" yaml:"requiredBy,omitempty"`
	// serviceAccount is the spec.serviceAccount.name of a
	// ClusterExtension, in metadata.namespace: the controller applies the
	// plan as that account, so it must be known from the plan alone.
	// Empty for a Subscription or a Dependency, which are applied with
	// the controller's own account; omitted then, so that their files do
	// not change.
	// +optional
	ServiceAccount string `json:"serviceAccount,omitempty" yaml:"serviceAccount,omitempty"`
}

// PlanBundle identifies a bundle.
type PlanBundle struct {
	// name of the bundle (its CSV name).
	Name string `json:"name" yaml:"name"`
	// version of the bundle.
	// +optional
	Version string `json:"version,omitempty" yaml:"version,omitempty"`
	// image of the bundle, pinned by digest when it was pulled.
	// +optional
	Image string `json:"image,omitempty" yaml:"image,omitempty"`
}

// PlanHop is one step of a plan's path.
type PlanHop struct {
	PlanBundle `json:",inline" yaml:",inline"`
	// channel the hop was found in; empty when in no channel.
	// +optional
	Channel string `json:"channel,omitempty" yaml:"channel,omitempty"`
	// edge justifies the hop: install, replaces, skips, skipRange, semver
	// or selfCertified.
	Edge string `json:"edge" yaml:"edge"`
	// skipRange is the range that matched a skipRange edge.
	// +optional
	SkipRange string `json:"skipRange,omitempty" yaml:"skipRange,omitempty"`
	// manifests is the folder holding this hop's manifests, relative to
	// the plan's folder.
	Manifests string `json:"manifests" yaml:"manifests"`
}

// PlanCatalog identifies the catalog content a plan was resolved from.
type PlanCatalog struct {
	// name of the catalog.
	Name string `json:"name" yaml:"name"`
	// digest is the sha256 of what the catalog says about the bundles on
	// the path (image, related images, properties), and of nothing else in
	// the package, so an edit elsewhere in the catalog leaves the plan be.
	Digest string `json:"digest" yaml:"digest"`
}

// PlanDependency is an operator a plan needs installed alongside.
type PlanDependency struct {
	// name of the dependency's plan.
	Name string `json:"name" yaml:"name"`
	// package and bundle of the dependency.
	Package string `json:"package" yaml:"package"`
	Bundle  string `json:"bundle" yaml:"bundle"`
}

// Marshal writes p as YAML, in field order, with two-space indentation:
// the same plan always gives the same bytes.
func (p *InstallPlan) Marshal() ([]byte, error) {
	if b, ok := appendPlan(make([]byte, 0, 1024), p); ok {
		return b, nil
	}
	return p.marshalYAML()
}

// marshalYAML is Marshal through yaml.v3.
func (p *InstallPlan) marshalYAML() ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(p); err != nil {
		return nil, fmt.Errorf("marshal installplan %s/%s: %w", p.Metadata.Namespace, p.Metadata.Name, err)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// LoadInstallPlan reads an installplan.yaml strictly: unknown fields and
// missing required fields are errors at their line.
func LoadInstallPlan(path string, data []byte) (*InstallPlan, error) {
	p := &InstallPlan{}
	d := decodeFile(path, InstallPlanKind, data, p)
	if !d.decoded() {
		if len(d.errs) == 0 {
			return nil, &Error{Pos: Pos{File: path}, Msg: "file is empty"}
		}
		return nil, d.result(nil)
	}
	if err := d.result(p.Validate()); err != nil {
		return nil, err
	}
	return p, nil
}

// Validate checks what the applier relies on.
func (p *InstallPlan) Validate() error {
	var errs fieldErrors
	if p.APIVersion != GroupVersion {
		errs.add("apiVersion", "must be %s", GroupVersion)
	}
	if p.Kind != InstallPlanKind {
		errs.add("kind", "must be %s", InstallPlanKind)
	}
	req := map[string]string{
		"metadata.name": p.Metadata.Name, "metadata.namespace": p.Metadata.Namespace,
		"spec.cluster": p.Spec.Cluster, "spec.package": p.Spec.Package,
		"spec.to.name": p.Spec.To.Name, "spec.subscription.kind": p.Spec.Subscription.Kind,
	}
	for _, f := range []string{"metadata.name", "metadata.namespace", "spec.cluster", "spec.subscription.kind", "spec.package", "spec.to.name"} {
		if req[f] == "" {
			errs.add(f, "is required")
		}
	}
	p.Spec.Subscription.validate(&errs)
	if p.Spec.Approval != ApprovalAutomatic && p.Spec.Approval != ApprovalManual {
		errs.add("spec.approval", "must be %s or %s", ApprovalAutomatic, ApprovalManual)
	}
	if len(p.Spec.Path) == 0 {
		errs.add("spec.path", "needs at least one hop")
	} else if last := p.Spec.Path[len(p.Spec.Path)-1]; last.Name != p.Spec.To.Name {
		errs.add(fmt.Sprintf("spec.path[%d].name", len(p.Spec.Path)-1), "is %q but the last hop must be spec.to (%q)", last.Name, p.Spec.To.Name)
	}
	for i, h := range p.Spec.Path {
		if h.Manifests == "" || !localPath(h.Manifests) {
			errs.add(fmt.Sprintf("spec.path[%d].manifests", i), "must be a folder inside the plan's folder")
		}
	}
	return errors.Join(errs...)
}

// KindClusterExtension is the spec.subscription.kind of a plan read from an
// OLM v1 ClusterExtension, the one kind applied as its own service account.
const KindClusterExtension = "ClusterExtension"

// validate checks the service account: it becomes part of the user name
// the controller impersonates (system:serviceaccount:<ns>:<name>), so a
// name that is not a Kubernetes object name, a colon above all, must not
// reach it.
func (s *PlanSubscription) validate(errs *fieldErrors) {
	if s.ServiceAccount == "" {
		return
	}
	if s.Kind != KindClusterExtension {
		errs.add("spec.subscription.serviceAccount", "is only for a %s; a %s is applied with the controller's own account", KindClusterExtension, s.Kind)
	}
	if msgs := validation.IsDNS1123Subdomain(s.ServiceAccount); len(msgs) > 0 {
		errs.add("spec.subscription.serviceAccount", "%q is not a service account name: %s", s.ServiceAccount, strings.Join(msgs, "; "))
	}
}

func localPath(p string) bool { return fs.ValidPath(p) && p != "." }
