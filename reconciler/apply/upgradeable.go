package apply

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/render"
)

// OperatorConditionGVK is the OperatorCondition version operators write
// Upgradeable to.
var OperatorConditionGVK = schema.GroupVersionKind{Group: "operators.coreos.com", Version: "v2", Kind: "OperatorCondition"}

// upgradeableType is the condition an operator sets to False to ask not
// to be upgraded now.
const upgradeableType = "Upgradeable"

// hold keeps the installed operator on its bundle, applying nothing, when
// hop would move it off and it says Upgradeable=False. What is installed
// is read from the cluster, not taken from the previous Result alone: a
// Repository deleted and re-created, or `olmops apply` run without one,
// must not turn a hold into an upgrade.
func (r *run) hold(ctx context.Context, hop Hop) (bool, error) {
	if r.res.Installed == hop.Bundle {
		return false, nil
	}
	ocs, err := r.operatorConditions(ctx)
	if err != nil {
		return false, err
	}
	for _, oc := range ocs {
		if oc.GetName() == hop.Bundle {
			continue
		}
		if msg := upgradeableMessage(oc); msg != "" {
			r.held(ctx, hop, oc.GetName(), msg)
			return true, nil
		}
	}
	return false, nil
}

// held records the hold of hop by csv's condition.
func (r *run) held(ctx context.Context, hop Hop, csv, msg string) {
	switch r.res.Installed {
	case "":
		r.res.Installed = csv
	case csv:
	default:
		// The cluster holds another bundle of the package than the one
		// the previous apply left: say whose condition holds.
		msg = csv + ": " + msg
	}
	r.res.Phase, r.res.NotUpgradeable = commitstatus.Held, msg
	r.progress()
	logr.FromContextOrDiscard(ctx).V(1).Info("upgrade held", "installed", csv, "next", hop.Bundle, "message", msg)
}

// discoverInstalled sets Installed, when the previous apply left none,
// from the OperatorConditions in the cluster: the latest hop of the path
// that has one, else the plan's from. So an apply without its previous
// Result resumes where the cluster is instead of reinstalling the path
// from its first hop.
func (r *run) discoverInstalled(ctx context.Context) error {
	if r.res.Installed != "" {
		return nil
	}
	ocs, err := r.operatorConditions(ctx)
	if err != nil {
		return err
	}
	has := func(name string) bool {
		return slices.ContainsFunc(ocs, func(oc *unstructured.Unstructured) bool { return oc.GetName() == name })
	}
	for _, h := range slices.Backward(r.req.Hops) {
		if has(h.Bundle) {
			r.res.Installed = h.Bundle
			return nil
		}
	}
	if r.req.From != "" && has(r.req.From) {
		r.res.Installed = r.req.From
	}
	return nil
}

// operatorConditions lists, sorted by name, the OperatorConditions of
// the install namespace that belong to the subscription: labelled with
// its package, or named after the installed bundle, the plan's from or
// one of its hops (OLM creates them unlabelled). They are read through
// Client, not Reader: a cache that selects olmops' label would miss
// OLM's, and a hold must not be missed for a cache's sake.
func (r *run) operatorConditions(ctx context.Context) ([]*unstructured.Unstructured, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(OperatorConditionGVK.GroupVersion().WithKind(OperatorConditionGVK.Kind + "List"))
	err := r.a.Client.List(ctx, list, client.InNamespace(r.req.Namespace))
	switch {
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("list OperatorConditions in %s: %w", r.req.Namespace, err)
	}
	var out []*unstructured.Unstructured
	for i := range list.Items {
		if oc := &list.Items[i]; r.req.owns(oc) {
			out = append(out, oc)
		}
	}
	slices.SortFunc(out, func(a, b *unstructured.Unstructured) int { return strings.Compare(a.GetName(), b.GetName()) })
	return out, nil
}

// owns reports whether the OperatorCondition oc belongs to the request's
// operator.
func (req *Request) owns(oc *unstructured.Unstructured) bool {
	if req.Package != "" && oc.GetLabels()[render.PackageLabel] == req.Package {
		return true
	}
	name := oc.GetName()
	return name == req.Installed || name == req.From ||
		slices.ContainsFunc(req.Hops, func(h Hop) bool { return h.Bundle == name })
}

// observeUpgradeable reports the installed operator's Upgradeable=False,
// so that the planner can block the next upgrade's merge.
func (r *run) observeUpgradeable(ctx context.Context) error {
	msg, err := r.notUpgradeable(ctx, r.res.Installed)
	r.res.NotUpgradeable = msg
	return err
}

// notUpgradeable reads the OperatorCondition named after csv in the
// install namespace. No OperatorCondition, or no such CRD, means
// upgradeable.
func (r *run) notUpgradeable(ctx context.Context, csv string) (string, error) {
	oc := &unstructured.Unstructured{}
	oc.SetGroupVersionKind(OperatorConditionGVK)
	err := r.a.Reader.Get(ctx, client.ObjectKey{Namespace: r.req.Namespace, Name: csv}, oc)
	switch {
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("read OperatorCondition %s/%s: %w", r.req.Namespace, csv, err)
	}
	return upgradeableMessage(oc), nil
}

// upgradeableMessage returns why an OperatorCondition says
// Upgradeable=False, "" when it does not. As in OLM, an administrator's
// override in spec.overrides wins, and OLM's copy in status.conditions
// holds when it says False or when its observedGeneration lags the
// object's generation: the operator changed its conditions since, and
// what it said is not known yet. Then False in spec.conditions (what the
// operator writes, and all there is without OLM) holds.
func upgradeableMessage(oc *unstructured.Unstructured) string {
	if c := findCondition(oc, "spec", "overrides"); c != nil {
		return falseMessage(c)
	}
	if c := findCondition(oc, "status", "conditions"); c != nil {
		if seen := observedGeneration(c); seen < oc.GetGeneration() {
			return fmt.Sprintf("the OperatorCondition status %s=%v is outdated (observedGeneration %d, generation %d)",
				upgradeableType, c["status"], seen, oc.GetGeneration())
		}
		if msg := falseMessage(c); msg != "" {
			return msg
		}
	}
	if c := findCondition(oc, "spec", "conditions"); c != nil {
		return falseMessage(c)
	}
	return ""
}

func findCondition(obj *unstructured.Unstructured, path ...string) map[string]any {
	conds, _, _ := unstructured.NestedSlice(obj.Object, path...)
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == upgradeableType {
			return m
		}
	}
	return nil
}

// observedGeneration reads a condition's observedGeneration; none is 0.
func observedGeneration(c map[string]any) int64 {
	n, _ := c["observedGeneration"].(int64)
	return n
}

// falseMessage is a False condition's message, or its reason when it
// has none, never "" for a False condition.
func falseMessage(c map[string]any) string {
	if c["status"] != "False" {
		return ""
	}
	for _, f := range []string{"message", "reason"} {
		if s, _ := c[f].(string); s != "" {
			return s
		}
	}
	return "no reason given"
}
