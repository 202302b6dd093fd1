package planning_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog/oci/ocitest"
	"github.com/olmops/olmops/internal/gittest"
)

// A catalog poll imports into the Planner's spec.branch, not the remote's
// default branch (main here): an Automatic source's import commit lands on
// release, a Manual one's proposal asks to merge into release.
func TestPollImportsIntoSpecBranch(t *testing.T) {
	for _, approval := range []string{"Automatic", "Manual"} {
		t.Run(approval, func(t *testing.T) {
			reg := ocitest.NewRegistry(t)
			ref := reg.Ref("olmops/operatorhub:v4.20")
			pushed := reg.Push(t, ref, ocitest.CatalogImage(t, catalogImage(t, "0.1.0")))
			f := newFleetOnly(t)
			gittest.Git(t, f.dir, "branch", "release", "main")
			cfg := string(mustFile(t, "../../examples/olmops.yaml"))
			cfg = strings.Replace(cfg, "spec:\n", "spec:\n  forge: {type: github, owner: acme, repo: fleet}\n", 1)
			cfg = strings.Replace(cfg, "      path: catalogs/operatorhub\n",
				fmt.Sprintf("      path: catalogs/operatorhub\n      source: {image: %q, pollInterval: 1h, approval: %s}\n", ref, approval), 1)
			gittest.Commit(t, f.dir, "release", gittest.Change{Files: map[string][]byte{"olmops.yaml": []byte(cfg)}, Message: "poll operatorhub"})
			main := f.head(t)
			f.startManager(t, nil)
			f.planner(t, func(_ string, obj *v1alpha1.Planner) { obj.Spec.Branch = "release" })

			digest := pushed[strings.Index(pushed, "@")+1:]
			f.catalogPoll(t, "imported", func(c v1alpha1.CatalogPoll) bool { return c.ImportedDigest == digest && c.Error == "" })
			if now := f.head(t); now != main {
				t.Errorf("the import moved main, the remote's default branch: %s → %s", main, now)
			}
			imported := strings.TrimSpace(gittest.Git(t, f.dir, "log", "--format=%s", "main..release", "--", "catalogs/operatorhub"))
			prs := prsOf(f.gh, importBranch)
			switch approval {
			case "Automatic":
				if imported == "" || len(prs) != 0 {
					t.Errorf("release's commits of the import: %q; import proposals %+v; want a commit on release and no proposal", imported, prs)
				}
			default:
				if imported != "" || len(prs) != 1 || prs[0].Base != "release" {
					t.Errorf("release's commits of the import: %q; import proposals %+v; want one proposal into release", imported, prs)
				}
			}
		})
	}
}
