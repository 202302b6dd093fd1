package render

import "slices"

// operatorCondition renders the OperatorCondition OLM creates for a CSV,
// named after it, and the Role and RoleBinding OLM's OperatorCondition
// controller adds so that the operator's service accounts can read and
// update it (Upgradeable).
func (r *renderer) operatorCondition() error {
	s := r.csv.Spec.InstallStrategy.StrategySpec
	var accounts []string
	for _, p := range slices.Concat(s.ClusterPermissions, s.Permissions) {
		if p.ServiceAccountName != "" && !slices.Contains(accounts, p.ServiceAccountName) {
			accounts = append(accounts, p.ServiceAccountName)
		}
	}
	if len(accounts) == 0 {
		accounts = []string{"default"}
	}
	deployments := make([]any, len(s.DeploymentSpecs))
	for i, d := range s.DeploymentSpecs {
		deployments[i] = d.Name
	}
	cond := newObject("operators.coreos.com/v2", "OperatorCondition", r.ns, r.csv.Name)
	cond.Object["spec"] = map[string]any{
		"deployments":     deployments,
		"serviceAccounts": stringsToAny(accounts),
	}
	if err := r.add(cond); err != nil {
		return err
	}
	// OLM names these after the OperatorCondition, that is the CSV; a name
	// without the version keeps upgrades from replacing them.
	name := boundedName(r.pkg, "operator-condition")
	role := newObject(rbacAPIVersion, "Role", r.ns, name)
	role.Object["rules"] = []any{map[string]any{
		"apiGroups":     []any{"operators.coreos.com"},
		"resources":     []any{"operatorconditions"},
		"resourceNames": []any{r.csv.Name},
		"verbs":         []any{"get", "update", "patch"},
	}}
	if err := r.add(role); err != nil {
		return err
	}
	return r.add(newBinding("RoleBinding", "Role", r.ns, name, r.ns, accounts))
}

func stringsToAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
