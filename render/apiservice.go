package render

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// OLM's priorities for the APIServices it registers.
const (
	apiServiceGroupPriority   = 2000
	apiServiceVersionPriority = 15
)

// apiServiceDefs are the CSV's owned APIServices that deployment serves.
func apiServiceDefs(csv *operatorsv1alpha1.ClusterServiceVersion, deployment string) []operatorsv1alpha1.APIServiceDescription {
	var out []operatorsv1alpha1.APIServiceDescription
	for _, d := range csv.Spec.APIServiceDefinitions.Owned {
		if d.DeploymentName == deployment {
			out = append(out, d)
		}
	}
	return out
}

// servesCerts says whether deployment needs a serving certificate: it
// serves webhooks or owned APIServices.
func (r *renderer) servesCerts(deployment string) bool {
	return len(r.webhooks[deployment]) > 0 || len(apiServiceDefs(r.csv, deployment)) > 0
}

func apiServicePort(d operatorsv1alpha1.APIServiceDescription) int32 {
	return cmp.Or(d.ContainerPort, defaultWebhookPort)
}

// apiServices registers each owned APIService as OLM does: <version>.<group>
// pointing at its deployment's Service, with the auth delegation an
// aggregated API server needs. The caBundle is the cluster's to inject.
func (r *renderer) apiServices() error {
	deps := r.csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs
	var servers []string
	for _, d := range r.csv.Spec.APIServiceDefinitions.Owned {
		name := d.Version + "." + d.Group
		if d.Group == "" || d.Version == "" || len(validation.IsDNS1123Subdomain(name)) > 0 {
			return fmt.Errorf("apiservicedefinitions.owned %s: group %q and version %q do not name an APIService", d.Name, d.Group, d.Version)
		}
		if !slices.ContainsFunc(deps, func(s operatorsv1alpha1.StrategyDeploymentSpec) bool { return s.Name == d.DeploymentName }) {
			return fmt.Errorf("apiservicedefinitions.owned %s names deployment %q, which the CSV does not define", name, d.DeploymentName)
		}
		svc := newObject("apiregistration.k8s.io/v1", "APIService", "", name)
		svc.Object["spec"] = map[string]any{
			"group":                d.Group,
			"version":              d.Version,
			"groupPriorityMinimum": int64(apiServiceGroupPriority),
			"versionPriority":      int64(apiServiceVersionPriority),
			"service": map[string]any{
				"namespace": r.ns, "name": webhookServiceName(d.DeploymentName), "port": int64(apiServicePort(d)),
			},
		}
		if _, err := r.override(svc); err != nil {
			return err
		}
		if !slices.Contains(servers, d.DeploymentName) {
			servers = append(servers, d.DeploymentName)
		}
	}
	for _, s := range deps {
		if slices.Contains(servers, s.Name) {
			if err := r.authDelegation(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// authDelegation binds an aggregated API server's account to the roles
// that let it check the callers the kube-apiserver forwards, under OLM's
// names.
func (r *renderer) authDelegation(d operatorsv1alpha1.StrategyDeploymentSpec) error {
	account := cmp.Or(d.Spec.Template.Spec.ServiceAccountName, "default")
	subjects := []any{map[string]any{"kind": "ServiceAccount", "name": account, "namespace": r.ns}}
	svc := webhookServiceName(d.Name)
	crb := newObject("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", svc+"-system:auth-delegator")
	crb.Object["roleRef"] = map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "system:auth-delegator"}
	crb.Object["subjects"] = subjects
	rb := newObject("rbac.authorization.k8s.io/v1", "RoleBinding", "kube-system", svc+"-auth-reader")
	rb.Object["roleRef"] = map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "extension-apiserver-authentication-reader"}
	rb.Object["subjects"] = subjects
	for _, o := range []string{crb.GetName(), rb.GetName()} {
		if len(validation.IsDNS1123Subdomain(strings.ReplaceAll(o, ":", "-"))) > 0 {
			return fmt.Errorf("deployment %s: binding name %q is too long", d.Name, o)
		}
	}
	if err := r.add(crb); err != nil {
		return err
	}
	return r.add(rb)
}
