package subscription

import (
	"k8s.io/apimachinery/pkg/labels"

	"github.com/olmops/olmops/resolver"
)

// Request is what the intent asks of the resolver, with def as the
// cluster's successor policy. Installed is taken from the intent's status;
// a planner that knows better (a committed plan) overrides it.
func (i *Intent) Request(def Policy) resolver.Request {
	req := resolver.Request{
		Package: i.Package, Channels: i.Channels, VersionRange: i.VersionRange,
		Catalog: i.Catalog, CatalogNamespace: i.CatalogNamespace, StartingCSV: i.StartingCSV,
		Name: i.Name, Namespace: i.Namespace, Pos: i.Pos,
		Policy:        resolver.Policy(i.PolicyOr(def)),
		SelfCertified: i.UpgradeConstraintPolicy == SelfCertified,
		// A Subscription without spec.channel means the default channel to
		// OLM classic, whatever the successor policy.
		DefaultChannel: i.Kind == KindSubscription,
	}
	if i.CatalogSelector != nil {
		sel, err := resolver.ParseCatalogSelector(i.CatalogSelector)
		if err != nil {
			// Parse reports a bad selector; an Intent built by hand with
			// one selects nothing rather than everything.
			sel = labels.Nothing()
		}
		req.CatalogSelector = sel
	}
	if i.Installed != nil {
		req.Installed = &resolver.Installed{Bundle: i.Installed.Bundle, Version: i.Installed.Version}
	}
	return req
}
