package certs

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SecretSuffix ends the name of the Secret a Service's certificate is in,
// OLM's <service>-cert.
const SecretSuffix = "-cert"

var (
	deploymentGK = schema.GroupKind{Group: "apps", Kind: "Deployment"}
	serviceGK    = schema.GroupKind{Kind: "Service"}
	secretGK     = schema.GroupKind{Kind: "Secret"}
)

// target is a Service that needs a serving certificate and the
// Deployments that serve it.
type target struct {
	namespace, service string
	// deployments index the objects that mount the Secret.
	deployments []int
	// pkg is the package label of the first Deployment, for the Secret.
	pkg string
}

func (t target) secret() string { return t.service + SecretSuffix }

// targets finds the Services of objs whose Secret a Deployment of objs
// mounts; objects without a namespace are in namespace. A Secret of that
// name among objs is an error: keys do not come from Git.
func targets(namespace string, objs []*unstructured.Unstructured, pkgLabel string) ([]target, error) {
	services := map[[2]string]bool{}
	secrets := map[[2]string]bool{}
	for _, o := range objs {
		key := [2]string{cmp.Or(o.GetNamespace(), namespace), o.GetName()}
		switch o.GroupVersionKind().GroupKind() {
		case serviceGK:
			services[key] = true
		case secretGK:
			secrets[key] = true
		}
	}
	byKey := map[[2]string]*target{}
	for i, o := range objs {
		if o.GroupVersionKind().GroupKind() != deploymentGK {
			continue
		}
		ns := cmp.Or(o.GetNamespace(), namespace)
		for _, name := range mountedSecrets(o) {
			svc, ok := cutSuffix(name)
			if !ok || !services[[2]string{ns, svc}] {
				continue
			}
			if secrets[[2]string{ns, name}] {
				return nil, fmt.Errorf("%w: the plan holds Secret %s/%s, the serving certificate of Service %s: olmops generates it in the cluster and private keys are never kept in Git", ErrRefused, ns, name, svc)
			}
			key := [2]string{ns, svc}
			t := byKey[key]
			if t == nil {
				t = &target{namespace: ns, service: svc, pkg: o.GetLabels()[pkgLabel]}
				byKey[key] = t
			}
			if !slices.Contains(t.deployments, i) {
				t.deployments = append(t.deployments, i)
			}
		}
	}
	out := make([]target, 0, len(byKey))
	for _, t := range byKey {
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b target) int {
		return cmp.Or(cmp.Compare(a.namespace, b.namespace), cmp.Compare(a.service, b.service))
	})
	return out, nil
}

func cutSuffix(secret string) (string, bool) {
	svc, ok := strings.CutSuffix(secret, SecretSuffix)
	return svc, ok && svc != ""
}

// mountedSecrets are the Secrets a Deployment's pod template mounts as
// volumes.
func mountedSecrets(dep *unstructured.Unstructured) []string {
	vols, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "volumes")
	var out []string
	for _, v := range vols {
		vm, _ := v.(map[string]any)
		if name, _, _ := unstructured.NestedString(vm, "secret", "secretName"); name != "" {
			out = append(out, name)
		}
	}
	return out
}
