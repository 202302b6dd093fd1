package plan

import (
	"fmt"
	"io/fs"
	"path"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/render"
)

// Granted is what the hops of ip, the plan in folder dir of fsys, grant
// beyond before (the manifests applied for its subscription until now;
// nil when none): each hop against the one before it, as
// render.Escalations words them, without repeats. A plan file records no
// escalations of its own, so they are recomputed from its manifests: what
// is committed is what is checked.
func Granted(fsys fs.FS, dir string, ip *v1alpha1.InstallPlan, before []*unstructured.Unstructured) ([]string, error) {
	var all []string
	for _, h := range ip.Spec.Path {
		after, err := render.ReadFiles(fsys, path.Join(dir, h.Manifests))
		if err != nil {
			return nil, fmt.Errorf("plan %s: %w", dir, err)
		}
		for _, e := range render.Escalations(before, after) {
			if !slices.Contains(all, e) {
				all = append(all, e)
			}
		}
		before = after
	}
	return all, nil
}

// LastHop is the manifests of ip's last hop, in folder dir of fsys: what
// the plan leaves applied.
func LastHop(fsys fs.FS, dir string, ip *v1alpha1.InstallPlan) ([]*unstructured.Unstructured, error) {
	if len(ip.Spec.Path) == 0 {
		return nil, nil
	}
	return render.ReadFiles(fsys, path.Join(dir, ip.Spec.Path[len(ip.Spec.Path)-1].Manifests))
}
