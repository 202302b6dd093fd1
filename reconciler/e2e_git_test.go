package reconciler

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

const stagingOverlay = "clusters/staging/overlays/etcd/"

// overlay is a kustomize overlay of staging's etcd adding objects.
func overlay(objects ...string) map[string][]byte {
	files := map[string][]byte{stagingOverlay + "kustomization.yaml": nil}
	var names []string
	for i, o := range objects {
		name := fmt.Sprintf("extra-%d.yaml", i)
		files[stagingOverlay+name] = []byte(o)
		names = append(names, name)
	}
	files[stagingOverlay+"kustomization.yaml"] = []byte("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [" + strings.Join(names, ", ") + "]\n")
	return files
}

const extraConfigMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: etcd-extra\ndata:\n  k: v\n"

// On a plain git server (statuses as git notes), for staging (Automatic):
// drift is undone, an object that leaves the plan is pruned, and a plan
// the API server refuses fails alone, leaving the installed operator be.
func TestGitEndToEnd(t *testing.T) {
	f := newFleet(t, false, overlay(extraConfigMap))
	f.plan(t)
	key := f.repository(t, "staging")
	const ns, sub = "etcd-system", "etcd"
	ctxEtcd := commitstatus.Context("staging", ns, sub)
	eventually(t, "installed", func() (bool, string) {
		st, _ := f.subscription(t, key, ns, sub)
		return st.Phase == v1alpha1.SubscriptionInstalled && st.Healthy, fmt.Sprintf("%+v", st)
	})
	eventually(t, "status note", func() (bool, string) {
		st, saw := f.noteStatus(t, f.carrier(t, "staging", ns, sub), ctxEtcd)
		return st.State == gitsource.StatusSuccess, saw
	})
	cm := &corev1.ConfigMap{}
	if err := f.env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "etcd-extra"}, cm); err != nil {
		t.Fatalf("the overlay's ConfigMap: %v", err)
	}

	t.Run("drift is undone", func(t *testing.T) {
		d := &appsv1.Deployment{}
		if err := f.env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "etcd-operator"}, d); err != nil {
			t.Fatal(err)
		}
		want := *d.Spec.Replicas
		d.Spec.Replicas = new(want + 2)
		if err := f.env.Client.Update(t.Context(), d, client.FieldOwner("kubectl-edit")); err != nil {
			t.Fatal(err)
		}
		f.push(t)
		eventually(t, "replicas back", func() (bool, string) {
			if err := f.env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "etcd-operator"}, d); err != nil {
				return false, err.Error()
			}
			return *d.Spec.Replicas == want, fmt.Sprint(*d.Spec.Replicas)
		})
	})

	t.Run("an object that left the plan is pruned", func(t *testing.T) {
		gittest.Commit(t, f.dir, "main", gittest.Change{Files: map[string][]byte{stagingOverlay: nil}, Message: "staging: drop the overlay"})
		f.plan(t)
		f.push(t)
		eventually(t, "ConfigMap pruned", func() (bool, string) {
			err := f.env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "etcd-extra"}, &corev1.ConfigMap{})
			return apierrors.IsNotFound(err), fmt.Sprint(err)
		})
		eventually(t, "ConfigMap out of the inventory", func() (bool, string) {
			st, _ := f.subscription(t, key, ns, sub)
			return !slices.Contains(st.Inventory, "v1/ConfigMap/etcd-system/etcd-extra"), fmt.Sprint(st.Inventory)
		})
	})

	t.Run("a refused plan fails alone", func(t *testing.T) {
		widget := "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"
		gittest.Commit(t, f.dir, "main", gittest.Change{Files: overlay(extraConfigMap, widget), Message: "staging: a kind the cluster lacks"})
		f.plan(t)
		f.push(t)
		carrier := f.carrier(t, "staging", ns, sub)
		eventually(t, "failure status", func() (bool, string) {
			st, saw := f.noteStatus(t, carrier, ctxEtcd)
			return st.State == gitsource.StatusFailure, saw
		})
		eventually(t, "failure recorded", func() (bool, string) {
			st, _ := f.subscription(t, key, ns, sub)
			return st.Phase == v1alpha1.SubscriptionFailed, fmt.Sprintf("%+v", st)
		})
		st, obj := f.subscription(t, key, ns, sub)
		if st.Phase != v1alpha1.SubscriptionFailed || !strings.Contains(st.Message, "Widget") || st.InstalledBundle == "" {
			t.Errorf("subscription %+v", st)
		}
		if c := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.ReadyCondition); c == nil || c.Reason != v1alpha1.ApplyFailedReason {
			t.Errorf("Ready = %+v", c)
		}
		// The dry run refused the hop: not even the ConfigMap of the
		// same plan was written.
		if err := f.env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "etcd-extra"}, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
			t.Errorf("part of a refused plan was applied: %v", err)
		}
	})
}

// noteStatus reads the status of context from commit's olmops git note
// on the server, and what the note said.
func (f *fleet) noteStatus(t *testing.T, commit, context string) (gitsource.Status, string) {
	t.Helper()
	out, err := gittest.TryGit(f.dir, "notes", "--ref=olmops", "show", commit)
	if err != nil {
		return gitsource.Status{}, err.Error()
	}
	var note struct{ Statuses []gitsource.Status }
	if err := json.Unmarshal([]byte(out), &note); err != nil {
		t.Fatalf("note of %s: %v\n%s", commit, err, out)
	}
	for _, s := range note.Statuses {
		if s.Context == context {
			return s, out
		}
	}
	return gitsource.Status{}, out
}
