package apply

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/commitstatus"
)

// OperatorConditionGVK is the OperatorCondition version operators write
// Upgradeable to.
var OperatorConditionGVK = schema.GroupVersionKind{Group: "operators.coreos.com", Version: "v2", Kind: "OperatorCondition"}

// upgradeableType is the condition an operator sets to False to ask not
// to be upgraded now.
const upgradeableType = "Upgradeable"

// hold keeps the installed operator on its bundle, applying nothing, when
// hop would move it off and it says Upgradeable=False.
func (r *run) hold(ctx context.Context, hop Hop) (bool, error) {
	installed := r.res.Installed
	if installed == "" || installed == hop.Bundle {
		return false, nil
	}
	msg, err := r.notUpgradeable(ctx, installed)
	if err != nil || msg == "" {
		return false, err
	}
	r.res.Phase, r.res.NotUpgradeable = commitstatus.Held, msg
	r.progress()
	logr.FromContextOrDiscard(ctx).Info("upgrade held", "installed", installed, "next", hop.Bundle, "message", msg)
	return true, nil
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
// Upgradeable=False, "" when it does not. An administrator's override in
// spec.overrides wins, as in OLM; otherwise False in status.conditions
// (OLM's copy) or spec.conditions (what the operator writes, and all
// there is without OLM) holds.
func upgradeableMessage(oc *unstructured.Unstructured) string {
	if c := findCondition(oc, "spec", "overrides"); c != nil {
		return falseMessage(c)
	}
	for _, path := range [][]string{{"status", "conditions"}, {"spec", "conditions"}} {
		if c := findCondition(oc, path...); c != nil {
			if msg := falseMessage(c); msg != "" {
				return msg
			}
		}
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
