package reconciler

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/plan"
	"github.com/olmops/olmops/reconciler/apply"
)

// tree is olmops.yaml and the cluster at one commit.
type tree struct {
	snap    *gitsource.Snapshot
	cfg     *v1alpha1.RepositoryConfig
	cluster v1alpha1.Cluster
	ok      bool
}

func readTree(ctx context.Context, src *gitsource.Repo, commit plumbing.Hash, branch, cluster string) tree {
	snap, err := src.Snapshot(ctx, commit)
	if err != nil {
		return tree{}
	}
	cfg, err := v1alpha1.ReadRepository(snap.FS(), branch)
	if err != nil {
		return tree{snap: snap}
	}
	c, ok := findCluster(cfg, cluster)
	return tree{snap: snap, cfg: cfg, cluster: c, ok: ok}
}

func (t tree) denies() bool {
	return t.cfg != nil && t.cfg.Spec.Policy.Escalations.OnAutomatic == v1alpha1.EscalationDeny
}

// DeniedEscalations is the refusal of a head whose plans of Automatic
// subscriptions grant more than what was last applied, when olmops.yaml's
// escalation policy is Deny at the head or at the last applied commit (a
// commit may not lift the policy that guards its own change). The planner
// never writes such a plan; this catches one a person committed or pushed
// past review. A plan folder unchanged since the last applied commit is
// not looked at again. nil when nothing is denied, or when the head does
// not load (Sync says why).
func DeniedEscalations(ctx context.Context, src *gitsource.Repo, branch, cluster string, head plumbing.Hash, lastApplied string) error {
	now := readTree(ctx, src, head, branch, cluster)
	var last tree
	if lastApplied != "" {
		last = readTree(ctx, src, plumbing.NewHash(lastApplied), branch, cluster)
	}
	if !now.ok || !now.denies() && !last.denies() {
		return nil
	}
	fsys := now.snap.FS()
	keys, err := plan.Keys(fsys, now.cluster)
	if err != nil {
		return nil
	}
	var denied []string
	for _, k := range keys {
		dir := plan.Dir(now.cluster, k)
		if g := grantedSince(ctx, now, last, dir); len(g) > 0 {
			denied = append(denied, fmt.Sprintf("%s grants %s", path.Join(dir, v1alpha1.InstallPlanFile), strings.Join(g, "; ")))
		}
	}
	if len(denied) == 0 {
		return nil
	}
	return fmt.Errorf("olmops.yaml policy.escalations.onAutomatic is %s, and Automatic plans of commit %s grant more power: %s; nothing applied (make the subscription Manual to approve it in a proposal)",
		v1alpha1.EscalationDeny, head, strings.Join(denied, ", "))
}

// grantedSince is what the plan in dir at now grants beyond what it held
// at last. A plan that does not load grants nothing here: Sync refuses it.
func grantedSince(ctx context.Context, now, last tree, dir string) []string {
	_, ip, err := apply.ReadRequest(ctx, now.snap.FS(), dir)
	if err != nil || ip.Spec.Approval == v1alpha1.ApprovalManual {
		return nil
	}
	var before []*unstructured.Unstructured
	if last.snap != nil {
		if a, errA := last.snap.TreeHash(dir); errA == nil {
			if b, errB := now.snap.TreeHash(dir); errB == nil && a == b {
				return nil
			}
			if _, prev, err := apply.ReadRequest(ctx, last.snap.FS(), dir); err == nil {
				before, _ = plan.LastHop(last.snap.FS(), dir, prev)
			}
		}
	}
	g, err := plan.Granted(now.snap.FS(), dir, ip, before)
	if err != nil {
		return nil
	}
	return g
}
