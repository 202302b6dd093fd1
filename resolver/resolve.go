package resolver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/property"
	"github.com/olmops/olmops/resolver/sat"
)

// Subscription is one operator a namespace asks for: a Request plus what
// the cluster says about the installed operator.
type Subscription struct {
	Request
	// Held, when set, is the message of an Upgradeable=False condition on
	// the installed operator: the subscription stays where it is.
	Held string
}

// Cluster holds the facts about the target cluster the gates need.
type Cluster struct {
	// KubernetesVersion filters bundles whose olm.kubeversion needs more.
	KubernetesVersion string
	// OpenShiftVersion is checked against olm.maxOpenShiftVersion.
	OpenShiftVersion string
}

// Namespace is one resolution: every subscription of one namespace, solved
// together because a namespace holds one bundle per package and one
// provider per API.
type Namespace struct {
	// Name of the namespace: it sees the global catalogs and those
	// restricted to it, for its subscriptions and their dependencies.
	// "" takes the subscriptions' Request.Namespace, which must agree.
	Name          string
	Catalogs      []*catalog.Catalog
	Subscriptions []Subscription
	Cluster       Cluster
}

// Solution is the answer for a namespace.
type Solution struct {
	// Subscriptions in the order they were given.
	Subscriptions []Resolution
	// Dependencies are operators the subscriptions need that no
	// subscription names: proposed as new subscriptions, never installed
	// silently.
	Dependencies []Dependency
	// Findings are cluster-level facts, such as an operator that keeps the
	// cluster from its next OpenShift minor version.
	Findings []Finding
}

// Resolution is where one subscription goes.
type Resolution struct {
	Name    string
	Package string
	Catalog *catalog.Catalog
	Channel *catalog.Channel
	// Bundle is nil only when the subscription stays on an installed
	// bundle no catalog lists any more.
	Bundle *catalog.Bundle
	// BundleName is the chosen bundle's name, set even when Bundle is nil.
	BundleName string
	// Edge justifies the move (or the stay).
	Edge Edge
	// Path is every hop from the installed bundle to where repeated
	// resolution ends (Classic: one version at a time up to the head;
	// Semver: one hop). Path[0] is what this resolution installs.
	Path []Hop
	// Held repeats the Upgradeable=False message that kept the operator.
	Held     string
	Warnings []Warning
}

// Dependency is a proposed new subscription for a required operator.
type Dependency struct {
	// Name follows OLM: <package>-<channel>-<catalog with / as ->.
	Name        string
	Package     string
	Catalog     *catalog.Catalog
	Channel     *catalog.Channel
	Bundle      *catalog.Bundle
	StartingCSV string
	// RequiredBy lists the bundles that need it.
	RequiredBy []string
}

// Finding is a cluster-level fact about a resolved operator.
type Finding struct {
	Bundle  string
	Message string
}

// Unsatisfiable says why a namespace has no answer: the constraints that
// cannot hold together, in words.
type Unsatisfiable struct {
	Explanation []string
	// Cause is the solver's typed error, when the solver found the conflict.
	Cause error
}

func (u *Unsatisfiable) Error() string {
	return "constraints not satisfiable: " + strings.Join(u.Explanation, ", ")
}

func (u *Unsatisfiable) Unwrap() error { return u.Cause }

// Resolve solves every subscription of a namespace at once: each one's
// candidates come from its successor policy, dependencies of every
// candidate are satisfied by SAT with OLM's preferences, and the gates
// (Upgradeable, olm.kubeversion, olm.maxOpenShiftVersion) apply.
func Resolve(ctx context.Context, ns Namespace) (*Solution, error) {
	p, err := newProblem(ns)
	if err != nil {
		return nil, err
	}
	if err := p.addSubscriptions(); err != nil {
		return nil, err
	}
	if err := p.closeDependencies(ctx); err != nil {
		return nil, err
	}
	installed, err := sat.Solve(ctx, p.variables())
	var unsat *sat.NotSatisfiable
	if errors.As(err, &unsat) {
		return nil, p.explain(unsat)
	}
	if err != nil {
		return nil, err
	}
	return p.solution(installed)
}

func (p *problem) explain(e *sat.NotSatisfiable) error {
	u := &Unsatisfiable{Cause: e}
	for _, c := range e.Constraints {
		u.Explanation = append(u.Explanation, c.String())
	}
	return u
}

// subscriptionError is a subscription that cannot be read (a bad range,
// an unknown policy, catalogs that tie): a problem with the request, not a
// conflict the solver could explain.
func subscriptionError(req Request, err error) error {
	return fmt.Errorf("%ssubscription %s: %w", posPrefix(req.Pos), req.Name, err)
}

// posPrefix is "path:line: " for a request read from a file, else "".
func posPrefix(pos property.Pos) string {
	if pos.File == "" {
		return ""
	}
	return pos.String() + ": "
}
