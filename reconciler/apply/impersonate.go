package apply

import (
	"fmt"
	"sync"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Impersonator gives the clients that act as service accounts: one per
// account, built from the controller's own configuration with
// rest.Config.Impersonate and kept for the life of the Impersonator, as
// each holds its own HTTP transport. Only the user name is impersonated:
// the API server gives a service account its groups
// (system:serviceaccounts, system:serviceaccounts:<namespace>,
// system:authenticated) itself, so the controller needs the verb
// impersonate on serviceaccounts and nothing on groups.
type Impersonator struct {
	config *rest.Config
	opts   client.Options

	mu      sync.Mutex
	clients map[[2]string]client.Client
}

// NewImpersonator impersonates through cfg; opts (scheme, RESTMapper)
// are those of the controller's own client, so that every client shares
// one mapper.
func NewImpersonator(cfg *rest.Config, opts client.Options) *Impersonator {
	return &Impersonator{config: cfg, opts: opts, clients: map[[2]string]client.Client{}}
}

// Client acts as the service account name of namespace.
func (i *Impersonator) Client(namespace, name string) (client.Client, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	k := [2]string{namespace, name}
	if c, ok := i.clients[k]; ok {
		return c, nil
	}
	cfg := rest.CopyConfig(i.config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: ServiceAccountUser(namespace, name)}
	c, err := client.New(cfg, i.opts)
	if err != nil {
		return nil, fmt.Errorf("client for service account %s/%s: %w", namespace, name, err)
	}
	i.clients[k] = c
	return c, nil
}

// ServiceAccountUser is the user name the API server authenticates the
// service account name of namespace as.
func ServiceAccountUser(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}
