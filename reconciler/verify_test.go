package reconciler

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/internal/gittest"
)

// With spec.verify, only a head signed by a key of the Secret is applied.
// An unsigned head, or one signed by another key, stalls the Repository
// with VerificationFailed and an Event naming the commit and why, and
// nothing of it reaches the cluster; a signed head is applied and clears
// the stall.
func TestVerifiedCommits(t *testing.T) {
	release, releasePub := gittest.NewSigningKey(t, "Release")
	mallory, _ := gittest.NewSigningKey(t, "Mallory")
	l := newLifecycle(t, func(s *v1alpha1.RepositorySpec) {
		s.Verify = &v1alpha1.VerifySpec{Mode: v1alpha1.VerifyModeHead, SecretRef: v1alpha1.LocalObjectReference{Name: "keys"}}
	})
	keys := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: l.ns, Name: "keys"},
		Data: map[string][]byte{"release.asc": []byte(releasePub), "README": []byte("not a key")}}
	if err := l.f.env.Client.Create(t.Context(), keys); err != nil {
		t.Fatal(err)
	}
	head := func() string { return strings.TrimSpace(gittest.Git(t, l.f.dir, "rev-parse", "main")) }
	refused := func(t *testing.T, why string, applied string) {
		t.Helper()
		obj, evs := l.pass(t)
		want := "False " + v1alpha1.VerificationFailedReason
		if got := condition(obj, v1alpha1.ReadyCondition); got != want {
			t.Errorf("Ready = %s, want %s", got, want)
		}
		if got := condition(obj, v1alpha1.StalledCondition); got != "True "+v1alpha1.VerificationFailedReason {
			t.Errorf("Stalled = %s, want True %s", got, v1alpha1.VerificationFailedReason)
		}
		msg := "commit " + head() + " is not verified: " + why
		if !hasEventLike(evs, "Warning "+v1alpha1.VerificationFailedReason+" "+msg) {
			t.Errorf("events %q lack %q", evs, msg)
		}
		if obj.Status.LastAppliedCommit != applied {
			t.Errorf("lastAppliedCommit = %q, want %q", obj.Status.LastAppliedCommit, applied)
		}
	}

	t.Run("unsigned head refused", func(t *testing.T) {
		refused(t, "it is not signed", "")
		if l.exists(t, &appsv1.Deployment{}, "etcd-system", "etcd-operator") {
			t.Error("an unsigned commit was applied")
		}
	})
	t.Run("head signed by another key refused", func(t *testing.T) {
		gittest.SignedCommit(t, l.f.dir, "main", "signed by mallory", mallory)
		refused(t, "it is signed by key "+mallory.PrimaryKey.KeyIdString()+", which none", "")
		if l.exists(t, &appsv1.Deployment{}, "etcd-system", "etcd-operator") {
			t.Error("a commit signed by an unknown key was applied")
		}
	})
	var signed string
	t.Run("signed head applied", func(t *testing.T) {
		signed = gittest.SignedCommit(t, l.f.dir, "main", "signed by release", release)
		obj, _ := l.pass(t)
		if got := condition(obj, v1alpha1.ReadyCondition); got != "True "+v1alpha1.SucceededReason {
			t.Fatalf("Ready = %s: %+v", got, obj.Status)
		}
		if got := condition(obj, v1alpha1.StalledCondition); got != "absent" || obj.Status.LastAppliedCommit != signed {
			t.Errorf("Stalled = %s, lastAppliedCommit %s, want absent and %s", got, obj.Status.LastAppliedCommit, signed)
		}
		if !l.exists(t, &corev1.ConfigMap{}, "etcd-system", "etcd-extra") {
			t.Error("the verified commit's overlay was not applied")
		}
	})
	t.Run("unsigned change on top refused", func(t *testing.T) {
		l.commit(t, "staging: drop the overlay", map[string][]byte{stagingOverlay: nil})
		refused(t, "it is not signed", signed)
		if !l.exists(t, &corev1.ConfigMap{}, "etcd-system", "etcd-extra") {
			t.Error("an unsigned commit's removal was applied (the ConfigMap was pruned)")
		}
	})
	t.Run("SSH-signed heads", func(t *testing.T) {
		ci, ciPub := gittest.NewSSHSigningKey(t, "ci@example.com")
		other, _ := gittest.NewSSHSigningKey(t, "mallory@example.com")
		keys.Data["ci.sshpub"] = []byte(ciPub)
		if err := l.f.env.Client.Update(t.Context(), keys); err != nil {
			t.Fatal(err)
		}
		gittest.SSHSignedCommit(t, l.f.dir, "main", "ssh-signed by mallory", other)
		refused(t, "it is signed by SSH key SHA256:", signed)
		h := gittest.SSHSignedCommit(t, l.f.dir, "main", "ssh-signed by ci", ci)
		obj, _ := l.pass(t)
		if got := condition(obj, v1alpha1.ReadyCondition); got != "True "+v1alpha1.SucceededReason || obj.Status.LastAppliedCommit != h {
			t.Fatalf("Ready = %s, lastAppliedCommit %s, want True and %s", got, obj.Status.LastAppliedCommit, h)
		}
		if l.exists(t, &corev1.ConfigMap{}, "etcd-system", "etcd-extra") {
			t.Error("the SSH-signed head's removal of the overlay was not applied")
		}
		delete(keys.Data, "ci.sshpub")
	})
	t.Run("a Secret without keys refuses", func(t *testing.T) {
		delete(keys.Data, "release.asc")
		if err := l.f.env.Client.Update(t.Context(), keys); err != nil {
			t.Fatal(err)
		}
		obj, _ := l.pass(t)
		c := condition(obj, v1alpha1.StalledCondition)
		if msg := obj.Status.Conditions; c != "True "+v1alpha1.VerificationFailedReason ||
			!strings.Contains(readyMessage(obj), "secret keys (keys ending in .asc or .sshpub): no OpenPGP or SSH public keys") {
			t.Errorf("Stalled = %s, conditions %+v", c, msg)
		}
	})
}

func readyMessage(obj *v1alpha1.Repository) string {
	for _, c := range obj.Status.Conditions {
		if c.Type == v1alpha1.ReadyCondition {
			return c.Message
		}
	}
	return ""
}
