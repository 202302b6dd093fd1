package review

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/plan"
)

// GrantedPlan is a plan of an Automatic subscription that the pull request
// itself commits, whose manifests grant what the base's did not. The
// planner gates escalations it makes; this gates those a person commits
// with the overlay or catalog change that causes them, which the planner
// would find current and never look at.
type GrantedPlan struct {
	Cluster   string `json:"cluster"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Pos       Pos    `json:"pos"`
	// Escalations are what the plan's hops grant, each against the state
	// before it.
	Escalations []string `json:"escalations"`
	// Denied: olmops.yaml's policy denies escalations on Automatic
	// subscriptions, so the review fails.
	Denied bool `json:"denied,omitempty"`
}

func (g GrantedPlan) key() string { return g.Cluster + "/" + g.Namespace + "/" + g.Name }

func (g GrantedPlan) message() string {
	m := "this pull request commits a plan of an Automatic subscription that grants more power: " + strings.Join(g.Escalations, "; ")
	if g.Denied {
		m += "; olmops.yaml denies that (spec.policy.escalations.onAutomatic: Deny): make the subscription Manual, or change the policy in its own reviewed change"
	}
	return m
}

// addGranted finds the committed plans the head changes that escalate.
// Manual subscriptions are left out: merging their proposal is the
// approval the policy asks for.
func (r *Report) addGranted() error {
	bs, hs := r.base, r.head
	// Either side's Deny counts: a pull request may not lift the policy
	// that guards its own change.
	deny := hs.onAutomatic == v1alpha1.EscalationDeny || bs.onAutomatic == v1alpha1.EscalationDeny
	for _, hc := range hs.clusters {
		if len(r.only) > 0 && !slices.Contains(r.only, hc.cluster.Name) {
			continue
		}
		keys := make([]plan.Key, 0, len(hc.committed))
		for k := range hc.committed {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b plan.Key) int {
			return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
		})
		for _, k := range keys {
			g, err := granted(bs, hs, hc, k)
			if err != nil {
				return err
			}
			if g != nil {
				g.Denied = deny
				r.Granted = append(r.Granted, *g)
			}
		}
	}
	return nil
}

// granted compares a committed plan the head changed with the base's, hop
// by hop; nil when it grants nothing new or is not Automatic.
func granted(bs, hs *side, hc *clusterState, k plan.Key) (*GrantedPlan, error) {
	ip := hc.committed[k]
	dir := plan.Dir(hc.cluster, k)
	if ip.Spec.Approval == v1alpha1.ApprovalManual || !changed(bs.tree.FS, hs.tree.FS, dir) {
		return nil, nil
	}
	var before []*unstructured.Unstructured
	if bc := bs.cluster(hc.cluster.Name); bc != nil && bc.committed[k] != nil {
		objs, err := plan.LastHop(bs.tree.FS, plan.Dir(bc.cluster, k), bc.committed[k])
		if err != nil {
			return nil, fmt.Errorf("base plan %s: %w", dir, err)
		}
		before = objs
	}
	all, err := plan.Granted(hs.tree.FS, dir, ip, before)
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, nil
	}
	return &GrantedPlan{Cluster: hc.cluster.Name, Namespace: k.Namespace, Name: k.Name,
		Pos: Pos{File: path.Join(dir, v1alpha1.InstallPlanFile)}, Escalations: all}, nil
}
