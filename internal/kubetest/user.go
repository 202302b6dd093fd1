package kubetest

import (
	"testing"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// UserConfig reaches the API server as the user name, a member of groups
// and of no other: what it may do is what RBAC grants it, so a test can
// play a controller with less than system:masters. It fails the test when
// the user cannot be provisioned.
func (e *Env) UserConfig(t testing.TB, name string, groups ...string) *rest.Config {
	t.Helper()
	u, err := e.env.AddUser(envtest.User{Name: name, Groups: groups}, e.Config)
	if err != nil {
		t.Fatalf("kubetest: add user %s: %v", name, err)
	}
	return u.Config()
}
