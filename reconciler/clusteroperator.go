package reconciler

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/render"
)

// ClusterOperatorName names the ClusterOperator (config.openshift.io/v1)
// olmops keeps on OpenShift clusters. Its Upgradeable condition is what
// the cluster-version operator reads before a minor upgrade, as it reads
// OLM's own ClusterOperator for olm.maxOpenShiftVersion.
const ClusterOperatorName = "olmops"

// Reasons of the ClusterOperator's Upgradeable condition.
const (
	// IncompatibleOperatorsReason: an installed operator's
	// olm.maxOpenShiftVersion is below the next minor version, or could
	// not be read. OLM's reason for the same finding.
	IncompatibleOperatorsReason = "IncompatibleOperatorsInstalled"
	// AsExpectedReason: every installed operator allows the next minor.
	AsExpectedReason = "AsExpected"
)

// gate is what the ClusterOperator's Upgradeable condition says.
type gate struct {
	status, reason, message string
}

// upgradeGate words the condition for the next minor version and the
// installed bundles that block it (blocking) or could not be checked
// (unknown): when in doubt, the upgrade is not allowed.
func upgradeGate(next string, blocking, unknown []string) gate {
	if len(blocking)+len(unknown) == 0 {
		return gate{"True", AsExpectedReason, "every installed operator allows OpenShift " + next}
	}
	var parts []string
	if len(blocking) > 0 {
		parts = append(parts, "olm.maxOpenShiftVersion below "+next+": "+strings.Join(blocking, ", "))
	}
	if len(unknown) > 0 {
		parts = append(parts, "olm.maxOpenShiftVersion not known: "+strings.Join(unknown, ", "))
	}
	return gate{"False", IncompatibleOperatorsReason,
		"installed operators block the upgrade to OpenShift " + next + "; " + strings.Join(parts, "; ")}
}

// keepClusterOperator makes the ClusterOperator's Upgradeable condition
// say g, writing only when it changed; its lastTransitionTime moves only
// when its status does. A cluster that does not serve ClusterOperators
// (its facts said OpenShift, it is not) is logged and left alone.
func keepClusterOperator(ctx context.Context, c client.Client, g gate, now time.Time) error {
	co := &unstructured.Unstructured{}
	co.SetAPIVersion("config.openshift.io/v1")
	co.SetKind("ClusterOperator")
	err := c.Get(ctx, client.ObjectKey{Name: ClusterOperatorName}, co)
	switch {
	case meta.IsNoMatchError(err):
		logr.FromContextOrDiscard(ctx).Info("the cluster serves no ClusterOperator: Upgradeable not written", "upgradeable", g.status, "message", g.message)
		return nil
	case apierrors.IsNotFound(err):
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(newClusterOperator()), client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
			return fmt.Errorf("create ClusterOperator %s: %w", ClusterOperatorName, err)
		}
	case err != nil:
		return fmt.Errorf("read ClusterOperator %s: %w", ClusterOperatorName, err)
	}
	old := upgradeableOf(co)
	if old != nil && old["status"] == g.status && old["reason"] == g.reason && old["message"] == g.message {
		return nil
	}
	since := now.UTC().Format(time.RFC3339)
	if old != nil && old["status"] == g.status {
		if t, ok := old["lastTransitionTime"].(string); ok && t != "" {
			since = t
		}
	}
	st := newClusterOperator()
	st.Object["status"] = map[string]any{"conditions": []any{map[string]any{
		"type": "Upgradeable", "status": g.status, "reason": g.reason, "message": g.message, "lastTransitionTime": since,
	}}}
	if err := c.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(st), client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
		return fmt.Errorf("write ClusterOperator %s Upgradeable=%s: %w", ClusterOperatorName, g.status, err)
	}
	return nil
}

// fieldOwner is the server-side apply field manager of what the
// Syncer writes itself.
const fieldOwner = "olmops"

func newClusterOperator() *unstructured.Unstructured {
	co := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
	co.SetAPIVersion("config.openshift.io/v1")
	co.SetKind("ClusterOperator")
	co.SetName(ClusterOperatorName)
	co.SetLabels(map[string]string{render.ManagedByLabel: render.ManagedBy})
	return co
}

// upgradeableOf returns the Upgradeable condition, nil when absent.
func upgradeableOf(co *unstructured.Unstructured) map[string]any {
	conds, _, _ := unstructured.NestedSlice(co.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Upgradeable" {
			return m
		}
	}
	return nil
}
