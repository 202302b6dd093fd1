package subscription

import (
	"github.com/olmops/olmops/catalog/property"
)

// Pos is where an object starts in a source file: a path and a 1-based line.
type Pos = property.Pos

// Kind is the kind of object an Intent was read from.
type Kind string

// Kinds olmops reads intent from.
const (
	// KindSubscription is an OLM classic operators.coreos.com/v1alpha1 Subscription.
	KindSubscription Kind = "Subscription"
	// KindClusterExtension is an OLM v1 olm.operatorframework.io/v1 ClusterExtension.
	KindClusterExtension Kind = "ClusterExtension"
)

// Approval says whether a resolved upgrade is committed straight to the
// target branch or waits as a pull request.
type Approval string

// Approvals.
const (
	// Automatic commits the plan (or auto-merges its pull request).
	Automatic Approval = "Automatic"
	// Manual opens a pull request; merging it is the approval.
	Manual Approval = "Manual"
)

// Policy selects how the successor of an installed bundle is chosen.
type Policy string

// Successor policies.
const (
	// Semver is the OLM v1 rule: the highest version whose replaces, skips or
	// skipRange covers the installed bundle.
	Semver Policy = "Semver"
	// Classic is the OLM classic rule: follow the replaces chain one step at
	// a time.
	Classic Policy = "Classic"
)

// UpgradeConstraintPolicy says whether upgrades must follow the catalog's
// upgrade edges.
type UpgradeConstraintPolicy string

// Upgrade constraint policies (OLM v1 spec.source.catalog.upgradeConstraintPolicy).
const (
	// CatalogProvided only upgrades along the edges the catalog declares.
	CatalogProvided UpgradeConstraintPolicy = "CatalogProvided"
	// SelfCertified allows any version in range: a forced update or rollback.
	SelfCertified UpgradeConstraintPolicy = "SelfCertified"
)

// Annotations olmops reads from a Subscription's or ClusterExtension's
// metadata. Any other annotation under olmops.io/ is an error (a typo).
const (
	// AnnotationApproval sets the Approval of a ClusterExtension, which has
	// no field for it. A Subscription uses spec.installPlanApproval instead.
	AnnotationApproval = "olmops.io/approval"
	// AnnotationSuccessorPolicy overrides the cluster's successor Policy for
	// one Subscription or ClusterExtension.
	AnnotationSuccessorPolicy = "olmops.io/successor-policy"
)

// Intent is what one Subscription or ClusterExtension asks for.
type Intent struct {
	// Kind is the kind of object the intent was read from.
	Kind Kind
	// Name is metadata.name.
	Name string
	// Namespace is where the operator is installed: metadata.namespace of a
	// Subscription, spec.namespace of a ClusterExtension.
	Namespace string
	// Package is the package to install (spec.name; spec.source.catalog.packageName).
	Package string
	// Channels the bundle may come from; empty means the package's default
	// channel (Subscription, under either policy) or any channel
	// (ClusterExtension).
	Channels []string
	// VersionRange is an OLM v1 version range (spec.source.catalog.version);
	// empty means any version.
	VersionRange string
	// Catalog is the catalog name: spec.source of a Subscription, or the
	// olm.operatorframework.io/metadata.name label a ClusterExtension's
	// catalog selector matches. Empty means any catalog.
	Catalog string
	// CatalogNamespace is spec.sourceNamespace of a Subscription.
	CatalogNamespace string
	// CatalogSelector is the raw spec.source.catalog.selector of a
	// ClusterExtension (a label selector); nil when absent.
	CatalogSelector map[string]any
	// Approval is spec.installPlanApproval of a Subscription or the
	// olmops.io/approval annotation; empty means the cluster's default.
	Approval Approval
	// UpgradeConstraintPolicy is CatalogProvided unless a ClusterExtension
	// says SelfCertified.
	UpgradeConstraintPolicy UpgradeConstraintPolicy
	// Policy is the olmops.io/successor-policy annotation; empty means the
	// cluster's default.
	Policy Policy
	// StartingCSV is spec.startingCSV of a Subscription: the bundle to
	// install first when nothing is installed, under either policy (the
	// resolver refuses rather than install another).
	StartingCSV string
	// ServiceAccount is spec.serviceAccount.name of a ClusterExtension.
	ServiceAccount string
	// CRDUpgradeSafety is spec.install.preflight.crdUpgradeSafety.enforcement
	// of a ClusterExtension as written; empty when absent (see
	// StrictCRDUpgradeSafety for what that means). Omitted from JSON when
	// empty, so that plans' inputs digests do not move for intents that do
	// not set it.
	CRDUpgradeSafety Enforcement `json:",omitempty"`
	// Config is the raw configuration, JSON-compatible (map[string]any,
	// []any, string, int64, float64, bool, nil): spec.config of a
	// Subscription (env, resources, nodeSelector, tolerations, volumes...),
	// spec.config.inline of a ClusterExtension. Nil when absent.
	Config map[string]any
	// Installed is what the object's status says is installed; nil when
	// nothing is.
	Installed *Installed
	// CurrentCSV is status.currentCSV of a Subscription: the bundle OLM is
	// moving to, which may not be installed yet.
	CurrentCSV string
	// Pos is where the object starts.
	Pos Pos
}

// Enforcement is a ClusterExtension's crdUpgradeSafety enforcement.
type Enforcement string

// Enforcements, as OLM v1 spells them.
const (
	// Strict refuses a CRD upgrade that OLM v1's preflight finds unsafe.
	Strict Enforcement = "Strict"
	// None skips the preflight.
	None Enforcement = "None"
)

// StrictCRDUpgradeSafety tells whether an unsafe CRD upgrade must refuse
// the plan: a ClusterExtension unless it says enforcement None, the OLM v1
// default. A Subscription is OLM classic's, which has no such preflight:
// its existing custom resources are checked at apply time instead, so the
// plan-time findings stay warnings.
func (i *Intent) StrictCRDUpgradeSafety() bool {
	return i.Kind == KindClusterExtension && i.CRDUpgradeSafety != None
}

// Installed is the bundle a cluster reports as installed.
type Installed struct {
	// Bundle is the bundle name (status.installedCSV;
	// status.install.bundle.name).
	Bundle string
	// Version is the bundle version (status.install.bundle.version); empty
	// for a Subscription, whose status does not carry it.
	Version string
}

// ApprovalOr returns the intent's approval, else def, else Automatic (what
// OLM does when nothing is said).
func (i *Intent) ApprovalOr(def Approval) Approval {
	switch {
	case i.Approval != "":
		return i.Approval
	case def != "":
		return def
	}
	return Automatic
}

// PolicyOr returns the intent's successor policy, else def (the cluster's,
// when olmops.yaml names one), else the policy of the intent's kind: OLM
// classic's for a Subscription, OLM v1's for a ClusterExtension, so that
// each kind means what it means to the OLM that defines it.
func (i *Intent) PolicyOr(def Policy) Policy {
	switch {
	case i.Policy != "":
		return i.Policy
	case def != "":
		return def
	}
	return KindPolicy(i.Kind)
}

// KindPolicy is the successor policy of the OLM that defines kind: Classic
// for a Subscription, Semver otherwise.
func KindPolicy(kind Kind) Policy {
	if kind == KindSubscription {
		return Classic
	}
	return Semver
}
