package apply

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/internal/kubetest"
)

// objects decodes YAML documents separated by "---" lines.
func objects(tb testing.TB, docs string) []*unstructured.Unstructured {
	tb.Helper()
	var objs []*unstructured.Unstructured
	for _, doc := range strings.Split(docs, "\n---\n") {
		objs = append(objs, decode(tb, doc))
	}
	return objs
}

// An APIService is healthy only once the aggregator found its backend:
// one whose Service has no endpoints is not, and the hop's failure names
// it with the aggregator's reason.
func TestHealthAPIService(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	a := testApplier(env.Client)
	a.HealthTimeout = 300 * time.Millisecond
	group := "api-" + ns + ".health.example.com"
	hop := Hop{Bundle: "api.v1", Objects: objects(t, fmt.Sprintf(`
{apiVersion: v1, kind: Service, metadata: {name: api, namespace: %[1]s}, spec: {selector: {app: api}, ports: [{port: 443}]}}
---
{apiVersion: apiregistration.k8s.io/v1, kind: APIService, metadata: {name: v1.%[2]s},
 spec: {group: %[2]s, version: v1, groupPriorityMinimum: 2000, versionPriority: 15, insecureSkipTLSVerify: true,
  service: {name: api, namespace: %[1]s, port: 443}}}`, ns, group))}
	t.Cleanup(func() { _ = env.Client.Delete(t.Context(), hop.Objects[1]) })
	res, err := a.Apply(t.Context(), Request{Namespace: ns, Subscription: "api", Hops: []Hop{hop}})
	if !errors.Is(err, ErrUnhealthy) || res.Healthy {
		t.Fatalf("Apply = %+v, %v; want ErrUnhealthy", res, err)
	}
	if want := "APIService v1." + group + ": InProgress: not Available: "; !strings.HasPrefix(res.Reason, want) || !strings.Contains(res.Reason, "service/api") {
		t.Errorf("reason %q, want %q and the aggregator's reason naming service/api", res.Reason, want)
	}

	// One the API server serves itself is Available at once.
	local := decode(t, `{apiVersion: apiregistration.k8s.io/v1, kind: APIService, metadata: {name: v1.local-`+ns+`.health.example.com},
 spec: {group: local-`+ns+`.health.example.com, version: v1, groupPriorityMinimum: 2000, versionPriority: 15}}`)
	t.Cleanup(func() { _ = env.Client.Delete(t.Context(), local) })
	res, err = a.Apply(t.Context(), Request{Namespace: ns, Subscription: "local", Hops: []Hop{{Bundle: "local.v1", Objects: []*unstructured.Unstructured{local}}}})
	if err != nil || !res.Healthy {
		t.Errorf("a local APIService: %+v, %v; want healthy", res, err)
	}
}

// A Deployment is healthy once its rollout is complete: every replica
// updated and available, the controller's conditions saying so.
func TestHealthDeploymentRollingOut(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	a := testApplier(env.Client)
	a.HealthTimeout = 300 * time.Millisecond
	hop := etcdHop(t, ns, "etcdoperator.v0.9.4")
	req := Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{hop}}
	res, err := a.Apply(t.Context(), req)
	if !errors.Is(err, ErrUnhealthy) {
		t.Fatalf("Apply = %+v, %v; want ErrUnhealthy", res, err)
	}

	// Half way: the new pod is up, the old one not yet gone.
	d := &appsv1.Deployment{}
	if err := env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "etcd-operator"}, d); err != nil {
		t.Fatal(err)
	}
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 2, UpdatedReplicas: 1, ReadyReplicas: 2, AvailableReplicas: 2,
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: "True", Reason: "MinimumReplicasAvailable"},
			{Type: appsv1.DeploymentProgressing, Status: "True", Reason: "ReplicaSetUpdated"},
		}}
	if err := env.Client.Status().Update(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	ok, why, err := a.Health(t.Context(), hop.Objects)
	if want := "Deployment etcd-operator: InProgress: Pending termination: 1"; ok || why != want || err != nil {
		t.Errorf("Health mid-rollout = %v, %q, %v; want %q", ok, why, err, want)
	}

	// The controller finishes while Apply waits.
	kubetest.MarkAvailable(t.Context(), env.Client, ns)
	req.Installed, req.Inventory = res.Installed, res.Inventory
	if res, err = a.Apply(t.Context(), req); err != nil || !res.Healthy {
		t.Errorf("after the rollout: %+v, %v; want healthy", res, err)
	}
}

// A CRD is healthy once Established; one whose names another CRD holds
// is Failed with the API server's words.
func TestHealthCRD(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	a := testApplier(env.Client)
	a.EstablishTimeout = 300 * time.Millisecond
	crd, _ := widgetObjects(ns)
	res, err := a.Apply(t.Context(), Request{Namespace: ns, Subscription: "widgets", Hops: []Hop{{Bundle: "w.v1", Objects: []*unstructured.Unstructured{crd}}}})
	if err != nil || !res.Healthy {
		t.Fatalf("Apply = %+v, %v; want healthy", res, err)
	}
	ok, why, err := a.Health(t.Context(), []*unstructured.Unstructured{crd})
	if !ok || err != nil {
		t.Errorf("Health of an established CRD = %v, %q, %v", ok, why, err)
	}

	// Another plural of the same group, claiming kind Widget.
	clash := crd.DeepCopy()
	group, _, _ := unstructured.NestedString(clash.Object, "spec", "group")
	clash.SetName("gizmos." + group)
	_ = unstructured.SetNestedStringMap(clash.Object, map[string]string{"plural": "gizmos", "singular": "gizmo", "kind": "Widget", "listKind": "WidgetList"}, "spec", "names")
	_, err = a.Apply(t.Context(), Request{Namespace: ns, Subscription: "gizmos", Hops: []Hop{{Bundle: "g.v1", Objects: []*unstructured.Unstructured{clash}}}})
	if want := "CustomResourceDefinition gizmos." + group + `: Failed: "WidgetList" is already in use`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Apply of a clashing CRD = %v; want %q", err, want)
	}
}
