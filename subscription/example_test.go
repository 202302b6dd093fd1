package subscription_test

import (
	"fmt"

	"github.com/olmops/olmops/subscription"
)

func ExampleParse() {
	intents, err := subscription.Parse("clusters/prod/subscriptions/etcd.yaml", []byte(`
apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata:
  name: etcd
  namespace: etcd-system
spec:
  name: etcd
  channel: stable
  source: operatorhub
  installPlanApproval: Manual
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, in := range intents {
		fmt.Println(in.Pos, in.Kind, in.Namespace+"/"+in.Name, in.Package, in.Channels, in.Catalog, in.ApprovalOr(""))
	}

	_, err = subscription.Parse("etcd.yaml", []byte(`
apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata: {name: etcd, namespace: etcd-system}
spec:
  name: etcd
  chanel: stable
`))
	fmt.Println(err)
	// Output:
	// clusters/prod/subscriptions/etcd.yaml:2 Subscription etcd-system/etcd etcd [stable] operatorhub Manual
	// etcd.yaml:7: unknown field "chanel" in Subscription spec
}
