package request

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/olmops/olmops/api/v1alpha1"
)

// The controller ignores its own status writes (generation unchanged) but
// must wake for a reconcile request, which changes only an annotation.
func TestChanged(t *testing.T) {
	repo := func(requestedAt string) *v1alpha1.Repository {
		r := &v1alpha1.Repository{ObjectMeta: metav1.ObjectMeta{Name: "r", Generation: 3}}
		if requestedAt != "" {
			r.Annotations = map[string]string{v1alpha1.ReconcileRequestAnnotation: requestedAt}
		}
		return r
	}
	for _, tc := range []struct {
		old, new string
		want     bool
	}{
		{"", "", false},
		{"", "now", true},
		{"then", "now", true},
		{"now", "now", false},
	} {
		if got := Changed.Update(event.UpdateEvent{ObjectOld: repo(tc.old), ObjectNew: repo(tc.new)}); got != tc.want {
			t.Errorf("requestedAt %q → %q: wakes %v, want %v", tc.old, tc.new, got, tc.want)
		}
	}
}

func TestPending(t *testing.T) {
	for _, tc := range []struct {
		at, handled string
		want        bool
	}{
		{"", "", false},
		{"", "then", false},
		{"now", "", true},
		{"now", "then", true},
		{"now", "now", false},
	} {
		r := &v1alpha1.Repository{}
		if tc.at != "" {
			r.Annotations = map[string]string{v1alpha1.ReconcileRequestAnnotation: tc.at}
		}
		if got := Pending(r, tc.handled); got != tc.want {
			t.Errorf("Pending(requestedAt %q, handled %q) = %v, want %v", tc.at, tc.handled, got, tc.want)
		}
	}
}
