package render

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const rbacAPIVersion = "rbac.authorization.k8s.io/v1"

// serviceAccountRules are the rules granted to one service account, in the
// order the CSV lists them.
type serviceAccountRules struct {
	sa    string
	rules []any
}

// serviceAccounts renders a ServiceAccount for every account the CSV's
// permissions and deployments use, unless the bundle ships it.
func (r *renderer) serviceAccounts() error {
	for _, name := range r.serviceAccountNames() {
		id := objectID{kind: "ServiceAccount", namespace: r.ns, name: name}
		if r.lookup(id) != nil {
			continue
		}
		if err := r.add(newObject("v1", "ServiceAccount", r.ns, name)); err != nil {
			return err
		}
	}
	return nil
}

// serviceAccountNames lists, without repeats, the accounts named by
// permissions, clusterPermissions and deployments; "default" is left out
// since every namespace has it.
func (r *renderer) serviceAccountNames() []string {
	var names []string
	s := r.csv.Spec.InstallStrategy.StrategySpec
	for _, p := range slices.Concat(s.Permissions, s.ClusterPermissions) {
		names = append(names, p.ServiceAccountName)
	}
	for _, d := range s.DeploymentSpecs {
		names = append(names, d.Spec.Template.Spec.ServiceAccountName)
	}
	var out []string
	for _, n := range names {
		if n != "" && n != "default" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// rbac renders permissions as a Role and RoleBinding in the install
// namespace and in every target namespace, and clusterPermissions as a
// ClusterRole and ClusterRoleBinding. With AllNamespaces, OLM's
// OperatorGroup controller grants permissions cluster-wide instead, so
// they join the service account's ClusterRole.
func (r *renderer) rbac() error {
	perms, err := rulesByServiceAccount(r.installSpec(), "permissions")
	if err != nil {
		return err
	}
	cluster, err := rulesByServiceAccount(r.installSpec(), "clusterPermissions")
	if err != nil {
		return err
	}
	if r.scope.allNamespaces() {
		cluster, perms = mergeRules(cluster, perms), nil
	}
	namespaces := []string{r.ns}
	for _, t := range r.scope.targets {
		if !slices.Contains(namespaces, t) {
			namespaces = append(namespaces, t)
		}
	}
	for _, p := range perms {
		for _, ns := range namespaces {
			if err := r.binding("Role", "RoleBinding", ns, roleName(r.pkg, p.sa), p); err != nil {
				return err
			}
		}
	}
	for _, p := range cluster {
		if err := r.binding("ClusterRole", "ClusterRoleBinding", "", clusterRoleName(r.pkg, r.ns, p.sa), p); err != nil {
			return err
		}
	}
	return nil
}

// roleName is stable across upgrades so that a plan's diff shows rule
// changes, not renames.
func roleName(pkg, sa string) string { return boundedName(pkg, sa) }

// clusterRoleName adds the install namespace: a package may be installed
// in several namespaces of one cluster.
func clusterRoleName(pkg, ns, sa string) string { return boundedName(pkg, ns, sa) }

// binding renders a role and a binding of the same name granting it to a
// service account of the install namespace.
func (r *renderer) binding(roleKind, bindingKind, ns, name string, p serviceAccountRules) error {
	role := newObject(rbacAPIVersion, roleKind, ns, name)
	rules, err := copyJSON(p.rules)
	if err != nil {
		return fmt.Errorf("rules of %s: %w", p.sa, err)
	}
	role.Object["rules"] = rules
	if err := r.add(role); err != nil {
		return err
	}
	return r.add(newBinding(bindingKind, roleKind, ns, name, r.ns, []string{p.sa}))
}

// newBinding binds a role to service accounts of saNamespace.
func newBinding(bindingKind, roleKind, ns, name, saNamespace string, accounts []string) *unstructured.Unstructured {
	b := newObject(rbacAPIVersion, bindingKind, ns, name)
	subjects := make([]any, len(accounts))
	for i, sa := range accounts {
		subjects[i] = map[string]any{"kind": "ServiceAccount", "name": sa, "namespace": saNamespace}
	}
	b.Object["roleRef"] = map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": roleKind, "name": name}
	b.Object["subjects"] = subjects
	return b
}

// rulesByServiceAccount reads spec.install.spec.<key> as written, joining
// the rules of entries that name the same service account.
func rulesByServiceAccount(install map[string]any, key string) ([]serviceAccountRules, error) {
	entries, err := mapList(install, key)
	if err != nil {
		return nil, err
	}
	var out []serviceAccountRules
	for i, e := range entries {
		sa, _ := e["serviceAccountName"].(string)
		if sa == "" {
			return nil, fmt.Errorf("%s[%d] has no serviceAccountName", key, i)
		}
		rules, ok := e["rules"].([]any)
		if !ok && e["rules"] != nil {
			return nil, fmt.Errorf("%s[%d].rules is not a list", key, i)
		}
		out = mergeRules(out, []serviceAccountRules{{sa, rules}})
	}
	return out, nil
}

// mergeRules appends b's rules to a's, by service account.
func mergeRules(a, b []serviceAccountRules) []serviceAccountRules {
	for _, e := range b {
		i := slices.IndexFunc(a, func(x serviceAccountRules) bool { return x.sa == e.sa })
		if i < 0 {
			a = append(a, serviceAccountRules{e.sa, slices.Clone(e.rules)})
			continue
		}
		a[i].rules = append(a[i].rules, e.rules...)
	}
	return a
}
