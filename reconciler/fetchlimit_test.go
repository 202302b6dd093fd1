package reconciler

import (
	"crypto/rand"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/internal/kubetest"
)

// TestFetchTooLargeStalls serves a repository with 200 KiB of random
// bytes to a controller capped at 64 KiB: the Repository is Stalled with
// the reason, and the message names the cap and what was read.
func TestFetchTooLargeStalls(t *testing.T) {
	noise := make([]byte, 200<<10)
	rand.Read(noise)
	name := "fetch-too-large"
	url := gitServer.CreateRepo(t, name)
	gittest.Commit(t, gitServer.RepoDir(name), "main", gittest.Change{Files: map[string][]byte{"big.bin": noise}})

	env := kubetest.Start(t, crdDirs, kubetest.WithScheme(v1alpha1.AddToScheme))
	rec := events.NewFakeRecorder(10)
	r := &RepositoryReconciler{Client: env.Client, APIReader: env.Client, Recorder: rec, Syncer: &Syncer{},
		Sources: &Sources{CacheDir: t.TempDir(), MaxFetchSize: 64 << 10}}
	ns := env.NewNamespace(t)
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "git"},
		Data: map[string][]byte{"username": []byte("olmops"), "password": []byte(gitPassword)}}
	obj := &v1alpha1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "big"}, Spec: v1alpha1.RepositorySpec{
		URL: url, Cluster: "staging", SecretRef: &v1alpha1.LocalObjectReference{Name: "git"}}}
	for _, o := range []client.Object{sec, obj} {
		if err := env.Client.Create(t.Context(), o); err != nil {
			t.Fatal(err)
		}
	}
	res, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
	if err != nil {
		t.Fatalf("Reconcile: %v, want a Stalled Repository and no retry", err)
	}
	if res.RequeueAfter == 0 {
		t.Error("no requeue: a new commit would never be fetched")
	}
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{v1alpha1.StalledCondition, v1alpha1.ReadyCondition} {
		c := meta.FindStatusCondition(obj.Status.Conditions, typ)
		want := metav1.ConditionTrue
		if typ == v1alpha1.ReadyCondition {
			want = metav1.ConditionFalse
		}
		switch {
		case c == nil:
			t.Errorf("no %s condition in %+v", typ, obj.Status.Conditions)
		case c.Status != want || c.Reason != v1alpha1.FetchTooLargeReason:
			t.Errorf("%s = %s/%s, want %s/%s", typ, c.Status, c.Reason, want, v1alpha1.FetchTooLargeReason)
		case !strings.Contains(c.Message, "limit of 64 KiB") || !strings.Contains(c.Message, "after reading"):
			t.Errorf("%s message %q does not name the cap and what was read", typ, c.Message)
		}
	}
	if obj.Status.LastFetchedCommit != "" || obj.Status.LastAppliedCommit != "" {
		t.Errorf("status records commits %q/%q of a refused fetch", obj.Status.LastFetchedCommit, obj.Status.LastAppliedCommit)
	}
	select {
	case got := <-rec.Events:
		if !strings.Contains(got, "Warning "+v1alpha1.FetchTooLargeReason) {
			t.Errorf("event %q, want a %s warning", got, v1alpha1.FetchTooLargeReason)
		}
	default:
		t.Errorf("no event, want a %s warning", v1alpha1.FetchTooLargeReason)
	}
}
