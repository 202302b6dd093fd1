package config_test

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olmops/olmops/render"
)

// grant is leave to use verbs on a resource of an API group ("" is core).
type grant struct {
	group, resource string
	verbs           []string
}

// applyVerbs are what the applier does with a kind it renders: server-side
// apply (create, patch), reads through its cache and for health (get, list,
// watch), and prune (delete).
var applyVerbs = []string{"get", "list", "watch", "create", "patch", "delete"}

// controllerGrants are what olmops serve needs beside applying plans.
var controllerGrants = []grant{
	{"olmops.io", "repositories", []string{"get", "list", "watch", "update", "patch"}},
	{"olmops.io", "repositories/status", []string{"get", "update", "patch"}},
	{"olmops.io", "repositories/finalizers", []string{"update"}},
	{"olmops.io", "planners", []string{"get", "list", "watch", "update", "patch"}},
	{"olmops.io", "planners/status", []string{"get", "update", "patch"}},
	{"", "events", []string{"create", "patch"}},
	{"events.k8s.io", "events", []string{"create", "patch"}},
	{"config.openshift.io", "clusterversions", []string{"get", "list", "watch"}},
	// The ClusterOperator olmops: its Upgradeable condition on OpenShift.
	{"config.openshift.io", "clusteroperators", []string{"get", "create", "patch"}},
	{"config.openshift.io", "clusteroperators/status", []string{"patch"}},
	// Each namespace's OperatorGroup where OLM serves the kind, and the
	// list that finds one the admin made (reconciler/apply/group.go).
	{"operators.coreos.com", "operatorgroups", []string{"get", "list", "create", "patch", "delete"}},
	// ClusterExtensions are applied as their service accounts.
	{"", "serviceaccounts", []string{"impersonate"}},
	// Bundles grant their operators what the controller does not hold.
	{"rbac.authorization.k8s.io", "roles", []string{"bind", "escalate"}},
	{"rbac.authorization.k8s.io", "clusterroles", []string{"bind", "escalate"}},
}

// neverGranted must stay out of the ClusterRole: deleting an install
// namespace would delete whatever else lives there; impersonating users
// or groups would let a plan act as anyone, where a ClusterExtension
// needs only its service account.
var neverGranted = []grant{
	{"", "namespaces", []string{"delete"}},
	{"", "users", []string{"impersonate"}},
	{"", "groups", []string{"impersonate"}},
}

// leaderElectionGrants are what controller-runtime's leader election does
// in the controller's namespace.
var leaderElectionGrants = []grant{
	{"coordination.k8s.io", "leases", []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
	{"", "events", []string{"create", "patch"}},
}

// clusterGrants are everything the ClusterRole must grant: the controller's
// own needs and the apply verbs on every kind olmops renders.
func clusterGrants() []grant {
	out := slices.Clone(controllerGrants)
	for _, kind := range slices.Sorted(maps.Keys(renderedKinds)) {
		verbs := applyVerbs
		switch kind {
		case "Namespace":
			verbs = []string{"get", "list", "watch", "create", "patch"}
		case "CustomResourceDefinition":
			verbs = append(slices.Clone(applyVerbs), "update")
		}
		gr := renderedKinds[kind]
		out = append(out, grant{gr.group, gr.resource, verbs})
	}
	return out
}

func TestClusterRoleGrantsWhatOlmopsDoes(t *testing.T) {
	rules := boundRules(t, build(t, "default"), "ClusterRoleBinding", "ClusterRole")
	want := clusterGrants()
	for _, m := range missing(rules, want) {
		t.Errorf("the ClusterRole does not grant %s", m)
	}
	for _, e := range missing(toRules(want), fromRules(t, rules)) {
		t.Errorf("the ClusterRole grants %s, which olmops does not need", e)
	}
	for _, g := range neverGranted {
		for _, verb := range g.verbs {
			if len(missing(rules, []grant{{g.group, g.resource, []string{verb}}})) == 0 {
				t.Errorf("the ClusterRole grants %s %s/%s", verb, g.group, g.resource)
			}
		}
	}
	// Each rule is needed: without it, the check above fails.
	for i, r := range rules {
		without := slices.Delete(slices.Clone(rules), i, i+1)
		if len(missing(without, want)) == 0 {
			t.Errorf("rule %d %v grants nothing needed", i, r)
		}
	}
}

func TestLeaderElectionRole(t *testing.T) {
	rules := boundRules(t, build(t, "default"), "RoleBinding", "Role")
	for _, m := range missing(rules, leaderElectionGrants) {
		t.Errorf("the leader election Role does not grant %s", m)
	}
}

// boundRules are the rules of every role of roleKind that a binding of
// bindingKind grants to the controller's ServiceAccount.
func boundRules(t *testing.T, objs []*unstructured.Unstructured, bindingKind, roleKind string) []rbacv1.PolicyRule {
	t.Helper()
	var rules []rbacv1.PolicyRule
	for _, o := range objs {
		if o.GetKind() != bindingKind {
			continue
		}
		var b rbacv1.ClusterRoleBinding // a RoleBinding has the same fields
		decode(t, o, &b)
		if b.RoleRef.Kind != roleKind || !slices.Contains(b.Subjects, rbacv1.Subject{
			Kind: "ServiceAccount", Name: "olmops-controller", Namespace: namespace,
		}) {
			continue
		}
		var role rbacv1.ClusterRole
		decode(t, find(t, objs, roleKind, b.RoleRef.Name), &role)
		rules = append(rules, role.Rules...)
	}
	if len(rules) == 0 {
		t.Fatalf("no %s grants a %s to ServiceAccount %s/olmops-controller", bindingKind, roleKind, namespace)
	}
	return rules
}

// missing lists, as "verb group/resource", what want asks and rules do
// not grant. Wildcards and resourceNames grant nothing here: the
// controller's roles name every group, resource and verb.
func missing(rules []rbacv1.PolicyRule, want []grant) []string {
	var out []string
	for _, g := range want {
		for _, verb := range g.verbs {
			if !slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool {
				return len(r.ResourceNames) == 0 && slices.Contains(r.APIGroups, g.group) &&
					slices.Contains(r.Resources, g.resource) && slices.Contains(r.Verbs, verb)
			}) {
				out = append(out, verb+" "+g.group+"/"+g.resource)
			}
		}
	}
	return out
}

// toRules turns grants into rules.
func toRules(grants []grant) []rbacv1.PolicyRule {
	out := make([]rbacv1.PolicyRule, len(grants))
	for i, g := range grants {
		out[i] = rbacv1.PolicyRule{APIGroups: []string{g.group}, Resources: []string{g.resource}, Verbs: g.verbs}
	}
	return out
}

// fromRules spells rules out as grants, failing on what cannot be spelled
// out: wildcards, resourceNames and non-resource URLs.
func fromRules(t *testing.T, rules []rbacv1.PolicyRule) []grant {
	t.Helper()
	var out []grant
	for _, r := range rules {
		if len(r.ResourceNames) > 0 || len(r.NonResourceURLs) > 0 ||
			slices.Contains(r.APIGroups, "*") || slices.Contains(r.Resources, "*") || slices.Contains(r.Verbs, "*") {
			t.Errorf("rule %v: wildcards, resourceNames and nonResourceURLs have no place here", r)
			continue
		}
		for _, group := range r.APIGroups {
			for _, res := range r.Resources {
				out = append(out, grant{group, res, r.Verbs})
			}
		}
	}
	return out
}

// The controller lists operators' custom resources to check a CRD update
// (reconciler/apply): the ClusterRole bound for it aggregates exactly the
// view roles olmops renders for owned APIs, by the label render sets.
func TestControllerAggregatesOperatorsViewRoles(t *testing.T) {
	objs := build(t, "default")
	var role rbacv1.ClusterRole
	decode(t, find(t, objs, "ClusterRole", "olmops-custom-resources"), &role)
	want := []metav1.LabelSelector{{MatchLabels: map[string]string{render.ControllerAggregationLabel: "true"}}}
	if role.AggregationRule == nil || !reflect.DeepEqual(role.AggregationRule.ClusterRoleSelectors, want) || len(role.Rules) != 0 {
		t.Errorf("olmops-custom-resources = %+v, rules %v; want only an aggregation of %v", role.AggregationRule, role.Rules, want)
	}
	var b rbacv1.ClusterRoleBinding
	decode(t, find(t, objs, "ClusterRoleBinding", "olmops-custom-resources"), &b)
	if b.RoleRef.Name != role.Name || !slices.Contains(b.Subjects, rbacv1.Subject{Kind: "ServiceAccount", Name: "olmops-controller", Namespace: namespace}) {
		t.Errorf("olmops-custom-resources is not bound to the controller: %+v", b)
	}
}
