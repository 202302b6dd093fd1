package v1alpha1_test

import (
	"fmt"

	"github.com/olmops/olmops/api/v1alpha1"
)

func ExampleLoad() {
	r, err := v1alpha1.Load("olmops.yaml", []byte(`apiVersion: olmops.io/v1alpha1
kind: Repository
spec:
  catalogs:
    - name: operatorhub
  clusters:
    - name: prod
      approval: Manual
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	r.SetDefaults("main")
	for _, c := range r.Spec.Clusters {
		fmt.Println(c.Name, c.Path, c.TargetBranch, c.Approval)
	}

	_, err = v1alpha1.Load("olmops.yaml", []byte(`apiVersion: olmops.io/v1alpha1
kind: Repository
spec:
  clusters:
    - name: prod
      aproval: Manual
`))
	fmt.Println(err)
	// Output:
	// prod clusters/prod main Manual
	// olmops.yaml:6: unknown field "aproval" in spec.clusters[0]
}
