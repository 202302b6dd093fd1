package kubetest

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Aggregate plays kube-controller-manager's ClusterRole aggregation
// controller, which envtest lacks, once: every ClusterRole with an
// aggregationRule gets the rules of the ClusterRoles its selectors match,
// as the controller would write them.
func Aggregate(ctx context.Context, c client.Client) error {
	var roles rbacv1.ClusterRoleList
	if err := c.List(ctx, &roles); err != nil {
		return fmt.Errorf("kubetest: list ClusterRoles: %w", err)
	}
	for i := range roles.Items {
		role := &roles.Items[i]
		if role.AggregationRule == nil {
			continue
		}
		var rules []rbacv1.PolicyRule
		for _, sel := range role.AggregationRule.ClusterRoleSelectors {
			s, err := metav1.LabelSelectorAsSelector(&sel)
			if err != nil {
				return fmt.Errorf("kubetest: ClusterRole %s: %w", role.Name, err)
			}
			for _, other := range roles.Items {
				if other.Name != role.Name && s.Matches(labels.Set(other.Labels)) {
					rules = append(rules, other.Rules...)
				}
			}
		}
		if equality.Semantic.DeepEqual(rules, role.Rules) {
			continue
		}
		role.Rules = rules
		if err := c.Update(ctx, role); err != nil {
			return fmt.Errorf("kubetest: aggregate ClusterRole %s: %w", role.Name, err)
		}
	}
	return nil
}
