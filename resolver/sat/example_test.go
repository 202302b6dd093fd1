package sat_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/olmops/olmops/resolver/sat"
)

func ExampleSolve() {
	vars := []sat.Variable{
		// The subscription must be met by some etcd bundle, newest first.
		sat.NewVar("subscription etcd", sat.Mandatory(), sat.Dependency("etcd.v0.9.4", "etcd.v0.9.2")),
		// etcd.v0.9.4 needs an API that only backup.v2 provides.
		sat.NewVar("etcd.v0.9.4", sat.Dependency("backup.v2")),
		sat.NewVar("etcd.v0.9.2"),
		sat.NewVar("backup.v2", sat.Prohibited()), // deprecated
		sat.NewVar("package etcd", sat.AtMost(1, "etcd.v0.9.4", "etcd.v0.9.2")),
	}
	installed, err := sat.Solve(context.Background(), vars)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range installed {
		fmt.Println(v.Identifier())
	}

	// Pinned to the newest version there is no way out, and the error says why.
	pinned := []sat.Variable{
		sat.NewVar("subscription etcd", sat.Mandatory(), sat.Dependency("etcd.v0.9.4")),
		vars[1], vars[2], vars[3], vars[4],
	}
	_, err = sat.Solve(context.Background(), pinned)
	var ns *sat.NotSatisfiable
	if errors.As(err, &ns) {
		for _, c := range ns.Constraints {
			fmt.Println("-", c)
		}
	}
	// Output:
	// subscription etcd
	// etcd.v0.9.2
	// - subscription etcd is mandatory
	// - subscription etcd requires at least one of etcd.v0.9.4
	// - etcd.v0.9.4 requires at least one of backup.v2
	// - backup.v2 is prohibited
}
