package apply_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/reconciler/apply"
)

// A controller reads a merged plan from its checkout, applies it with what
// the previous apply left, persists the inventory and posts the report.
func ExampleApplier_Apply() {
	var c client.Client // e.g. a manager's client
	ctx := context.Background()
	req, _, err := apply.ReadRequest(ctx, os.DirFS("/checkout"), "clusters/prod-east/plans/etcd-system/etcd")
	if err != nil {
		fmt.Println(err)
		return
	}
	req.Installed = "etcdoperator.v0.9.2" // the previous Result.Installed
	req.Inventory = nil                   // the previous Result.Inventory
	a := &apply.Applier{Client: c}
	res, err := a.Apply(ctx, req)
	if res != nil {
		inventory, _ := json.Marshal(res.Inventory) // into the Repository's status
		fmt.Println(len(inventory) > 0, res.Report().Description())
	}
	if err != nil {
		fmt.Println(err) // requeue with backoff
	}
}

// A result reads as the subscription's commit status.
func ExampleResult_Report() {
	res := &apply.Result{
		Phase: commitstatus.Held, Hop: 1, Hops: 2, Bundle: "etcdoperator.v0.9.4",
		Installed: "etcdoperator.v0.9.2", NotUpgradeable: "backup in progress",
	}
	rep := res.Report()
	fmt.Println(rep.State())
	fmt.Println(rep.Description())
	// Output:
	// pending
	// held at etcdoperator.v0.9.2 · Upgradeable=False: backup in progress
}
