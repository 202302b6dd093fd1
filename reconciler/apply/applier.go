package apply

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/commitstatus"
)

// Defaults for the Applier's zero fields.
const (
	DefaultFieldOwner       = "olmops"
	DefaultHealthTimeout    = 5 * time.Minute
	DefaultEstablishTimeout = time.Minute
	DefaultPollInterval     = 500 * time.Millisecond
)

// ErrCannotImpersonate is returned by Apply for a plan that names a
// service account when the Applier has no Impersonate: such a plan is
// refused (Failed), never applied with the controller's own rights.
var ErrCannotImpersonate = errors.New("this applier cannot impersonate")

// ErrUnhealthy is wrapped by Apply's error when a hop was applied but did
// not become healthy within HealthTimeout; the Result says why.
var ErrUnhealthy = errors.New("not healthy")

// Applier applies plans to one cluster. Its zero durations and field
// owner take the defaults above; it keeps no state between calls.
type Applier struct {
	// Client writes to the cluster, and reads when Reader is nil. Its
	// RESTMapper must learn kinds as their CRDs appear, as
	// controller-runtime's default mapper does.
	Client client.Client
	// Reader reads live objects: to skip unchanged ones, for health and
	// for OperatorConditions. Nil means Client. A cache whose informers
	// select render.ManagedByLabel makes a no-op apply cost no API call; a
	// cache lagging behind a write only costs a re-apply or another poll.
	Reader client.Reader
	// FieldOwner is the server-side apply field manager.
	FieldOwner string
	// HealthTimeout bounds the wait for a hop to become healthy.
	HealthTimeout time.Duration
	// EstablishTimeout bounds the wait for a hop's CRDs to be Established
	// and their kinds served.
	EstablishTimeout time.Duration
	// PollInterval is the pause between two reads while waiting.
	PollInterval time.Duration
	// Now is the clock serving certificates are checked and issued by
	// (package certs); nil means time.Now.
	Now func() time.Time
	// CertValidity is how long a new serving certificate lives; zero
	// means certs.DefaultValidity.
	CertValidity time.Duration
	// Impersonate gives the client that writes the objects of a plan
	// naming a service account (Request.ServiceAccount, an OLM v1
	// ClusterExtension's), acting as that account (see Impersonator).
	// Reads stay with Client and Reader. Nil refuses such plans rather
	// than apply them with the controller's own rights.
	Impersonate func(namespace, serviceAccount string) (client.Client, error)

	// writer writes: Client, or the impersonating client of the plan.
	writer client.Client
}

// Request is one subscription's plan and what the previous apply left.
type Request struct {
	// Cluster names the cluster, for logs.
	Cluster string
	// Namespace is the install namespace; namespaced objects without a
	// namespace go there.
	Namespace string
	// Subscription names the plan.
	Subscription string
	// Package is the operator's package: OperatorConditions labelled
	// with it (render.PackageLabel) belong to the subscription.
	Package string
	// ServiceAccount, in Namespace, is the account the plan is applied
	// as (installplan's spec.subscription.serviceAccount, a
	// ClusterExtension's); "" applies it with Client. Before the first
	// write of a hop, the account must exist and be allowed to get,
	// create and patch each of its objects, else the hop is held (Phase
	// Held, MissingPermissions set) with nothing written.
	ServiceAccount string
	// From is the bundle (CSV name) the plan starts from, installplan's
	// spec.from; "" for a fresh install. With Installed and the Hops, it
	// names the OperatorConditions Apply reads before moving the operator.
	From string
	// Hops are the plan's path in order, the target last.
	Hops []Hop
	// Installed is the bundle (its CSV name) the previous apply installed,
	// Result.Installed; "" when it is not known, and then Apply finds it
	// from the OperatorConditions in the cluster. When it is one of Hops,
	// Apply resumes there.
	Installed string
	// Inventory is the previous Result.Inventory.
	Inventory Inventory
	// PruneCRDs lets prune delete CustomResourceDefinitions that left the
	// plan, and with them every custom resource of their kinds.
	PruneCRDs bool
	// SharedCRDs says which versions the cluster's other plans serve in
	// their copy of a CRD this plan also installs: CRD name, then version,
	// then the plans ("namespace/name") serving it. A hop that would stop
	// serving one of them is refused, as OLM refuses to drop a served
	// version another operator's CRD still needs.
	SharedCRDs map[string]map[string][]string
	// Shared are the objects the cluster's other plans contain (their
	// target hops): prune never deletes them, whichever plan dropped them
	// first, as it never deletes a CRD another operator needs.
	Shared Inventory
	// KeepRemoved leaves the objects that left the plan in the cluster
	// and drops them from the Inventory: olmops stops managing them
	// (a Repository's spec.prune: false).
	KeepRemoved bool
	// Progress, when not nil, is called synchronously with a copy of the
	// Result (Inventory included) as each hop moves on, before the next hop starts: the
	// controller turns the calls into Kubernetes events and "applying
	// (hop n/m)" commit statuses, so it must not block for long. A hop
	// gives, in order:
	//   - Applying, with Hop and Bundle set, when it starts: once the API
	//     server took its dry run, for a hop other than the installed
	//     one; for the installed hop Apply resumes at, only when some of
	//     its live objects differ from the plan;
	//   - Held, when Upgradeable=False holds it back;
	//   - Failed, with Reason, when it fails, the resumed hop too (then
	//     possibly with no Applying before);
	//   - Installed with Healthy false and Reason the health wait's
	//     verdict (the first object not yet healthy, its kstatus status
	//     and message), after each health poll that finds the hop not
	//     yet healthy, for a hop that reported Applying: as often as
	//     the Applier polls, so a caller that shows it rate-limits;
	//   - Installed with Healthy true, when it became healthy, for a hop
	//     that reported Applying.
	// So an apply that finds the cluster as the plan wants it makes no
	// call at all. A hop that stays unhealthy or a context that ends
	// makes none either: the Result Apply returns is always the last
	// word.
	Progress func(Result)
}

// Hop is one bundle of a plan's path and its rendered manifests (see
// render.ReadFiles).
type Hop struct {
	Bundle  string
	Objects []*unstructured.Unstructured
}

// Result is where an apply got to. Apply returns one even with an error;
// persist its Inventory and Installed whenever it is not nil. Remove
// returns one too, with only Inventory and Pruned set.
type Result struct {
	// Phase is Installed, Held, Failed, or Applying when the context ended
	// mid-way; "" from Remove.
	Phase commitstatus.Phase
	// Hop is the 1-based hop the result is about (installed, failed, or
	// held back from) and Bundle its bundle; Hops counts the path.
	Hop, Hops int
	Bundle    string
	// Installed is the bundle whose objects are in the cluster: Bundle
	// once its hop was applied, else the one installed before.
	Installed string
	// Healthy says whether Installed's workloads are available; Reason
	// says why not, or why the hop failed.
	Healthy bool
	Reason  string
	// NotUpgradeable is the message of Installed's Upgradeable=False
	// condition; "" when it is upgradeable.
	NotUpgradeable string
	// MissingPermissions, when the Phase is Held, is what the plan's
	// service account lacks to apply hop Hop: rules such as
	// "create,patch deployments.apps/etcd-operator in etcd-system", or
	// that it does not exist; Reason says the same in a sentence.
	MissingPermissions []string
	// Inventory is every object olmops now manages for the subscription.
	Inventory Inventory
	// Applied, Skipped (unchanged) and Pruned count objects.
	Applied, Skipped, Pruned int
}

// Apply brings the cluster to req's plan, hop by hop, each healthy before
// the next. The error wraps the API server's refusal (the Result is then
// Failed), ErrUnhealthy, or the context's error; an Upgradeable=False hold
// is no error. A Request that is not well formed gives a nil Result.
func (a *Applier) Apply(ctx context.Context, req Request) (*Result, error) {
	if err := req.validate(); err != nil {
		return nil, fmt.Errorf("apply %s/%s: %w", req.Namespace, req.Subscription, err)
	}
	// The caller's logger names the cluster, and controller-runtime's the
	// Repository's namespace: a JSON log must not carry a key twice.
	log := logr.FromContextOrDiscard(ctx).WithValues("subscription", req.Namespace+"/"+req.Subscription)
	ctx = logr.NewContext(ctx, log)
	r := &run{a: a.withDefaults(), req: req, res: &Result{
		Hops: len(req.Hops), Installed: req.Installed, Inventory: normalize(req.Inventory),
	}}
	err := r.impersonate()
	if err == nil {
		err = r.hops(ctx)
	}
	if err != nil {
		err = fmt.Errorf("apply %s/%s %s: %w", req.Namespace, req.Subscription, r.res.Bundle, err)
	}
	log.V(1).Info("applied", "phase", r.res.Phase, "hop", r.res.Hop, "bundle", r.res.Bundle,
		"applied", r.res.Applied, "skipped", r.res.Skipped, "pruned", r.res.Pruned)
	return r.res, err
}

func (a *Applier) withDefaults() *Applier {
	c := *a
	if c.Reader == nil {
		c.Reader = c.Client
	}
	if c.writer == nil {
		c.writer = c.Client
	}
	c.FieldOwner = cmp.Or(c.FieldOwner, DefaultFieldOwner)
	c.HealthTimeout = cmp.Or(c.HealthTimeout, DefaultHealthTimeout)
	c.EstablishTimeout = cmp.Or(c.EstablishTimeout, DefaultEstablishTimeout)
	c.PollInterval = cmp.Or(c.PollInterval, DefaultPollInterval)
	return &c
}

// run is one Apply call's progress.
type run struct {
	a   *Applier
	req Request
	res *Result
	// nsReady is set once the install namespace is known to exist.
	nsReady bool
	// started is set once Progress heard that the current hop started.
	started bool
}

// hops applies the path from where the previous apply stopped: the
// installed hop is applied again, which is cheap when nothing changed and
// makes sure it is healthy before moving on.
func (r *run) hops(ctx context.Context) error {
	if err := r.discoverInstalled(ctx); err != nil {
		return err
	}
	for i := r.req.start(r.res.Installed); i < len(r.req.Hops); i++ {
		hop := r.req.Hops[i]
		r.res.Phase, r.res.Hop, r.res.Bundle, r.res.Healthy, r.res.Reason = commitstatus.Applying, i+1, hop.Bundle, false, ""
		r.started = false
		if held, err := r.hold(ctx, hop); held || err != nil {
			return err
		}
		live, err := r.applyHop(ctx, hop)
		if missing, ok := isPermissions(err); ok {
			r.holdForPermissions(ctx, err, missing)
			return nil
		}
		if err != nil {
			return r.fail(err)
		}
		r.res.Phase, r.res.Installed = commitstatus.Installed, hop.Bundle
		if err := r.awaitHealth(ctx, live); err != nil {
			return err
		}
		if r.started {
			r.progress()
		}
		if err := r.prune(ctx, live); err != nil {
			return err
		}
	}
	return r.observeUpgradeable(ctx)
}

// impersonate makes the plan's service account the writer of the run.
// The install namespace is the account's own, so it exists whenever the
// account does (the preflight checks): the run never creates it.
func (r *run) impersonate() error {
	if r.req.ServiceAccount == "" {
		return nil
	}
	if r.a.Impersonate == nil {
		err := fmt.Errorf("the plan is applied as service account %s, and %w: refused rather than applied with the controller's own rights",
			r.account(), ErrCannotImpersonate)
		r.res.Phase, r.res.Reason = commitstatus.Failed, err.Error()
		return err
	}
	c, err := r.a.Impersonate(r.req.Namespace, r.req.ServiceAccount)
	if err != nil {
		r.res.Phase, r.res.Reason = commitstatus.Failed, err.Error()
		return err
	}
	r.a.writer, r.nsReady = c, true
	return nil
}

// holdForPermissions holds the hop whose service account may not apply
// it; nothing of it was written, and it is tried again on the next pass.
func (r *run) holdForPermissions(ctx context.Context, err error, missing []string) {
	r.res.Phase, r.res.MissingPermissions = commitstatus.Held, missing
	r.res.Reason = r.res.Bundle + " not applied: " + err.Error()
	r.progress()
	logr.FromContextOrDiscard(ctx).Info("hop held: missing permissions", "bundle", r.res.Bundle, "serviceAccount", r.account(), "missing", missing)
}

// fail records err as the hop's failure, unless the context ended.
func (r *run) fail(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	r.res.Phase, r.res.Reason = commitstatus.Failed, reason(err)
	r.progress()
	return err
}

// start is the index of the installed hop, or 0.
func (req *Request) start(installed string) int {
	if installed == "" {
		return 0
	}
	for i, h := range slices.Backward(req.Hops) {
		if h.Bundle == installed {
			return i
		}
	}
	return 0
}
