package planning_test

import (
	"strings"
	"testing"

	"github.com/olmops/olmops/internal/gittest"
)

// A catalog commit pushed is proposed without any CLI: etcd's stable
// channel ends at 0.9.2, which prod-east gets; a commit adding 0.9.4 to the
// channel, announced by the push webhook, opens its upgrade's proposal.
func TestCatalogCommitProposed(t *testing.T) {
	const file = "catalogs/operatorhub/etcd/catalog.yaml"
	const entry = "  - name: etcdoperator.v0.9.4\n    replaces: etcdoperator.v0.9.2\n    skipRange: '>=0.9.0 <0.9.4'\n---\nschema: olm.channel\npackage: etcd\nname: fast\n"
	full := string(mustFile(t, "../../examples/"+file))
	if !strings.Contains(full, entry) {
		t.Fatalf("%s no longer has 0.9.4 last in stable", file)
	}
	f := newFleetOnly(t, func(files map[string][]byte) {
		delete(files, "clusters/prod-east/subscriptions/acme-db.yaml") // its etcd dependency does not resolve on the shortened channel
		files[file] = []byte(strings.Replace(full, entry, "---\nschema: olm.channel\npackage: etcd\nname: fast\n", 1))
	})
	f.startManager(t, nil)
	f.planner(t)
	f.planned(t)
	f.gh.Merge(t, 1) // etcd 0.9.2 installed on prod-east: the channel's head
	f.push(t)
	f.planned(t)
	if pr, ok := f.gh.PR(2); ok {
		t.Fatalf("proposed %+v before the catalog had anything newer", pr)
	}
	gittest.Commit(t, f.dir, "main", gittest.Change{Files: map[string][]byte{file: []byte(full)}, Message: "operatorhub: etcd 0.9.4 in stable"})
	f.push(t)
	obj := f.planned(t)
	p, ok := proposal(obj, etcdBranch)
	if pr, exists := f.gh.PR(2); !ok || !exists || p.Number != 2 || p.TargetBundle != "etcdoperator.v0.9.4" || pr.State != "open" {
		t.Fatalf("proposal %+v (found %v), PR #2 %+v: want etcd 0.9.4 proposed", p, ok, pr)
	}
}
