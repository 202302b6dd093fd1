package planning

import (
	"crypto/rand"
	"errors"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/reconciler/credentials"
)

// A Planner's repository over the fetch cap stalls with FetchTooLarge
// instead of being fetched whole, or retried as if the network failed.
func TestFetchOverTheCapStalls(t *testing.T) {
	gittest.RequireGit(t)
	srv := gittest.NewServer(t, gittest.ServerOptions{})
	url := srv.CreateRepo(t, "fleet")
	noise := make([]byte, 200<<10)
	rand.Read(noise)
	gittest.Commit(t, srv.RepoDir("fleet"), "main", gittest.Change{Files: map[string][]byte{"big.bin": noise}, Message: "big"})
	for _, tc := range []struct {
		max  int64
		want result
	}{
		{max: 64 << 10, want: resultStalled},
		{max: 0, want: ""},
	} {
		t.Run(fmt.Sprint(tc.max), func(t *testing.T) {
			r := &Reconciler{CacheDir: t.TempDir(), MaxFetchSize: tc.max}
			p := &pass{obj: &v1alpha1.Planner{ObjectMeta: metav1.ObjectMeta{Name: "fleet"}, Spec: v1alpha1.PlannerSpec{URL: url}},
				branch: "main", creds: &credentials.Set{}}
			out := r.fetch(t.Context(), p)
			if p.repo != nil {
				t.Cleanup(func() { p.repo.Close() })
			}
			var got result
			if out != nil {
				got = out.result
			}
			if got != tc.want || got == resultStalled && out.reason != v1alpha1.FetchTooLargeReason {
				t.Fatalf("fetch with cap %d: %+v, want result %q", tc.max, out, tc.want)
			}
		})
	}
}

func TestFetchFailed(t *testing.T) {
	big := fmt.Errorf("fetch: %w", &gitsource.FetchTooLargeError{Limit: 1 << 10, Read: 2 << 10})
	if out := fetchFailed(big); out.result != resultStalled || out.reason != v1alpha1.FetchTooLargeReason {
		t.Errorf("over the cap: %+v, want stalled with %s", out, v1alpha1.FetchTooLargeReason)
	}
	if out := fetchFailed(errors.New("connection refused")); out.result != resultFailed || out.reason != v1alpha1.FetchFailedReason {
		t.Errorf("network error: %+v, want a retry with %s", out, v1alpha1.FetchFailedReason)
	}
}
