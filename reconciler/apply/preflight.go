package apply

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// preflightVerbs are what a service account must be allowed on every
// object of a hop it applies: server-side apply is a patch, which creates
// an absent object (create, also for an object deleted by hand later);
// get is what prune reads before it deletes, and what OLM v1's preflight
// asks for too. Deleting what a later hop drops needs delete, which is
// not asked here: a refused prune is reported as PruneFailed and retried.
var preflightVerbs = []string{"get", "create", "patch"}

// permissionsError holds a hop back: the plan's service account is
// missing, or may not do what the hop takes. Nothing of the hop is
// written.
type permissionsError struct {
	account string
	missing []string
}

func (e *permissionsError) Error() string {
	return "service account " + e.account + " may not: " + strings.Join(e.missing, "; ")
}

// preflight asks the API server, as the plan's service account
// (SelfSubjectAccessReviews through the impersonating client), whether it
// may apply every object of the hop, before anything of the hop is
// written. The RBAC escalation rules (a Role granting what the account
// does not hold needs escalate, a binding needs bind) are not modelled
// here: the API server applies them to the dry run, and a refusal there
// holds the hop too (see denied).
func (h *hopApply) preflight(ctx context.Context) error {
	if h.req.ServiceAccount == "" {
		return nil
	}
	if err := h.serviceAccountExists(ctx); err != nil {
		return err
	}
	crds := crdResources(h.items)
	var missing []string
	for _, it := range h.items {
		res, err := h.resourceOf(it.obj, crds)
		if err != nil {
			return fmt.Errorf("%s: %w", entryOf(it.obj), err)
		}
		var denied []string
		for _, verb := range preflightVerbs {
			ok, err := h.allowed(ctx, res, verb)
			if err != nil {
				return err
			}
			if !ok {
				denied = append(denied, verb)
			}
		}
		if len(denied) > 0 {
			missing = append(missing, res.rule(denied))
		}
	}
	if len(missing) > 0 {
		return &permissionsError{account: h.account(), missing: missing}
	}
	return nil
}

func (r *run) account() string { return r.req.Namespace + "/" + r.req.ServiceAccount }

// serviceAccountExists reads the account with the controller's own
// client: impersonating an account that does not exist is not refused by
// the API server, it only has no permissions.
func (h *hopApply) serviceAccountExists(ctx context.Context) error {
	sa := &metav1.PartialObjectMetadata{}
	sa.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "ServiceAccount"})
	err := h.a.Client.Get(ctx, client.ObjectKey{Namespace: h.req.Namespace, Name: h.req.ServiceAccount}, sa)
	if apierrors.IsNotFound(err) {
		return &permissionsError{account: h.account(), missing: []string{"anything: it does not exist"}}
	}
	if err != nil {
		return fmt.Errorf("read service account %s: %w", h.account(), err)
	}
	return nil
}

// allowed asks whether the account may verb res.
func (h *hopApply) allowed(ctx context.Context, res resourceRef, verb string) (bool, error) {
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: res.namespace, Verb: verb, Group: res.Group, Resource: res.Resource, Name: res.name,
		},
	}}
	if err := h.a.writer.Create(ctx, review); err != nil {
		return false, fmt.Errorf("ask whether service account %s may %s: %w", h.account(), res.rule([]string{verb}), err)
	}
	return review.Status.Allowed, nil
}

// resourceRef is an object as authorization names it.
type resourceRef struct {
	schema.GroupResource
	namespace, name string
}

// rule says what is missing the way `kubectl auth can-i` takes it:
// "create,patch deployments.apps/etcd-operator in etcd-system".
func (r resourceRef) rule(verbs []string) string {
	s := strings.Join(verbs, ",") + " " + r.GroupResource.String() + "/" + r.name
	if r.namespace != "" {
		s += " in " + r.namespace
	}
	return s
}

// crdScope is the resource a CRD of the hop defines, for objects of a
// kind the cluster does not serve yet.
type crdScope struct {
	plural     string
	namespaced bool
}

func crdResources(items []*item) map[schema.GroupKind]crdScope {
	out := map[schema.GroupKind]crdScope{}
	for _, it := range items {
		if it.obj.GroupVersionKind().GroupKind() != crdGK {
			continue
		}
		o := it.obj.Object
		group, _, _ := unstructured.NestedString(o, "spec", "group")
		kind, _, _ := unstructured.NestedString(o, "spec", "names", "kind")
		plural, _, _ := unstructured.NestedString(o, "spec", "names", "plural")
		scope, _, _ := unstructured.NestedString(o, "spec", "scope")
		out[schema.GroupKind{Group: group, Kind: kind}] = crdScope{plural: plural, namespaced: scope == "Namespaced"}
	}
	return out
}

// resourceOf names obj's resource, from the cluster's mapping or, for a
// kind the hop's own CRDs define, from those.
func (h *hopApply) resourceOf(obj *unstructured.Unstructured, crds map[schema.GroupKind]crdScope) (resourceRef, error) {
	gvk := obj.GroupVersionKind()
	ref := resourceRef{namespace: obj.GetNamespace(), name: obj.GetName()}
	m, err := h.a.Client.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	switch c, ok := crds[gvk.GroupKind()]; {
	case err == nil:
		ref.GroupResource = m.Resource.GroupResource()
		if m.Scope.Name() != meta.RESTScopeNameNamespace {
			ref.namespace = ""
		} else if ref.namespace == "" {
			ref.namespace = h.req.Namespace
		}
	case meta.IsNoMatchError(err) && ok:
		ref.GroupResource = schema.GroupResource{Group: gvk.Group, Resource: c.plural}
		ref.namespace = ""
		if c.namespaced {
			ref.namespace = cmp.Or(obj.GetNamespace(), h.req.Namespace)
		}
	default:
		return resourceRef{}, err
	}
	return ref, nil
}

// denied turns the API server's refusal of the dry run as the service
// account into a permissions hold: the RBAC escalation check (a Role
// granting more than the account holds, a binding without bind) and any
// authorizer the SelfSubjectAccessReviews did not foresee. Only a refusal
// that names the account is one; an admission webhook's denial is a
// failure as for any plan.
func (h *hopApply) denied(err error) error {
	if h.req.ServiceAccount == "" || !apierrors.IsForbidden(err) {
		return err
	}
	user := ServiceAccountUser(h.req.Namespace, h.req.ServiceAccount)
	if !strings.Contains(strings.ToLower(err.Error()), `"`+user+`"`) {
		return err
	}
	return &permissionsError{account: h.account(), missing: []string{reason(err)}}
}

// isPermissions reports a permissions hold and its missing rules.
func isPermissions(err error) ([]string, bool) {
	var pe *permissionsError
	if !errors.As(err, &pe) {
		return nil, false
	}
	return slices.Clone(pe.missing), true
}
