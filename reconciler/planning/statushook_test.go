package planning_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/gitsource/github"
	"github.com/olmops/olmops/internal/gittest"
)

// GitHub's status webhook wakes a follower: with an interval of hours,
// staging's report posted to GitHub, then announced by a signed status
// event, gets prod-east's etcd proposed once the short soak ends. A forged
// or unsigned event is refused and queues nothing.
func TestStatusWebhookWakesFollower(t *testing.T) {
	f := newFleetOnly(t, func(files map[string][]byte) {
		delete(files, "clusters/prod-east/subscriptions/acme-db.yaml")
		files["olmops.yaml"] = []byte(strings.Replace(string(files["olmops.yaml"]), "      successorPolicy: Classic\n",
			"      successorPolicy: Classic\n      promotion: {after: [staging], soak: 2s}\n", 1))
	})
	f.startManager(t, nil)
	f.planner(t) // interval 1h
	obj := f.planned(t)
	if !slices.Equal(obj.Status.FollowedClusters, []string{"staging"}) {
		t.Errorf("followedClusters %v, want [staging]", obj.Status.FollowedClusters)
	}
	if c := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.PromotionHeldCondition); c == nil || !strings.Contains(c.Message, "reports nothing of etcd yet") {
		t.Fatalf("PromotionHeld %+v, want prod-east waiting for staging", c)
	}

	ctxEtcd := commitstatus.Context("staging", "etcd-system", "etcd")
	carrier := f.reportHealthy(t, "clusters/staging/plans/etcd-system/etcd", ctxEtcd)
	for _, tt := range []struct {
		name   string
		secret string
		want   int
	}{
		{"forged", "guess", http.StatusUnauthorized},
		{"unsigned", "", http.StatusUnauthorized},
	} {
		if code, reply := f.statusEvent(t, tt.secret, carrier, ctxEtcd); code != tt.want {
			t.Errorf("%s status event: %d %q, want %d", tt.name, code, reply, tt.want)
		}
	}
	if _, ok := f.gh.PR(1); ok {
		t.Fatal("prod-east proposed before the signed status event")
	}
	if code, reply := f.statusEvent(t, webhookSecret, carrier, ctxEtcd); code != http.StatusAccepted || !strings.Contains(reply, "queued 1 follower") {
		t.Fatalf("signed status event: %d %q, want 202 queued 1 follower", code, reply)
	}
	eventually(t, "prod-east proposed", func() (bool, string) {
		pr, ok := f.gh.PR(1)
		return ok && pr.Head == etcdBranch, fmt.Sprintf("%+v", pr)
	})
	// Another cluster's status, or olmops' own upgradeable check, wakes no one.
	for _, other := range []string{commitstatus.Context("prod-east", "etcd-system", "etcd"), commitstatus.UpgradeableContext} {
		if code, reply := f.statusEvent(t, webhookSecret, carrier, other); code != http.StatusOK {
			t.Errorf("status event of %s: %d %q, want 200 (nothing queued)", other, code, reply)
		}
	}
}

// reportHealthy posts on the commit that carried the plan in dir the
// status staging's controller posts once the plan's bundle runs healthy;
// it returns that commit.
func (f *fleet) reportHealthy(t *testing.T, dir, context string) string {
	t.Helper()
	carrier := strings.TrimSpace(gittest.Git(t, f.dir, "log", "-1", "--format=%H", "main", "--", dir))
	ip, err := v1alpha1.LoadInstallPlan(dir+"/installplan.yaml", []byte(gittest.Git(t, f.dir, "show", "main:"+dir+"/installplan.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	healthy := commitstatus.Report{Phase: commitstatus.Installed, Bundle: ip.Spec.To.Name, Healthy: true}
	gh, err := github.New(t.Context(), github.Options{Owner: "acme", Repo: "fleet", Token: ghToken, BaseURL: f.gh.URL})
	if err != nil {
		t.Fatal(err)
	}
	if err := gh.SetStatus(t.Context(), carrier, gitsource.Status{Context: context, State: healthy.State(), Description: healthy.Description()}); err != nil {
		t.Fatal(err)
	}
	return carrier
}

// statusEvent sends GitHub's status event for context on commit, signed
// with secret ("" unsigned), and returns the reply.
func (f *fleet) statusEvent(t *testing.T, secret, commit, context string) (int, string) {
	t.Helper()
	body := fmt.Appendf(nil, `{"sha":%q,"context":%q,"state":"success","repository":{"clone_url":%q}}`, commit, context, f.url)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, f.hook, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "status")
	if secret != "" {
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(body)
		req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	reply, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(reply))
}
