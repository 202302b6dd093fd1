package reconciler

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/reconciler/apply"
	"github.com/olmops/olmops/reconciler/certs"
	"github.com/olmops/olmops/reconciler/credentials"
)

func TestOutcome(t *testing.T) {
	sub := func(name string, phase v1alpha1.SubscriptionPhase, reason, msg string) *subResult {
		return &subResult{reason: reason, status: v1alpha1.SubscriptionStatus{Namespace: "ops", Name: name, Phase: phase, Message: msg}}
	}
	installed := func(name string) *subResult {
		return sub(name, v1alpha1.SubscriptionInstalled, v1alpha1.SucceededReason, "")
	}
	held := func(name string) *subResult {
		return sub(name, v1alpha1.SubscriptionHeld, v1alpha1.UpgradeHeldReason, "Upgradeable=False: backup")
	}
	tests := []struct {
		name                     string
		in                       []*subResult
		reason, message          string
		settled, waiting, stalld bool
	}{
		{name: "nothing", reason: v1alpha1.SucceededReason, message: "0 plans applied", settled: true},
		{name: "all installed", in: []*subResult{installed("a"), installed("b")},
			reason: v1alpha1.SucceededReason, message: "2 plans applied", settled: true},
		{name: "held beats succeeded", in: []*subResult{installed("a"), held("b")},
			reason: v1alpha1.UpgradeHeldReason, message: "ops/b: Upgradeable=False: backup", settled: true, waiting: true},
		{name: "failed beats held", in: []*subResult{held("b"), sub("a", v1alpha1.SubscriptionFailed, v1alpha1.ApplyFailedReason, "refused")},
			reason: v1alpha1.ApplyFailedReason, message: "ops/a: refused; ops/b: Upgradeable=False: backup", waiting: true},
		{name: "an invalid plan stalls", in: []*subResult{sub("a", v1alpha1.SubscriptionFailed, v1alpha1.InvalidPlanReason, "x.yaml:3: bad"), installed("b")},
			reason: v1alpha1.InvalidPlanReason, message: "ops/a: x.yaml:3: bad", stalld: true},
		{name: "invalid beats apply failed", in: []*subResult{sub("a", v1alpha1.SubscriptionFailed, v1alpha1.ApplyFailedReason, "refused"),
			sub("b", v1alpha1.SubscriptionFailed, v1alpha1.InvalidPlanReason, "moved")},
			reason: v1alpha1.InvalidPlanReason, message: "ops/a: refused; ops/b: moved", stalld: true},
		{name: "unhealthy waits", in: []*subResult{sub("a", v1alpha1.SubscriptionFailed, v1alpha1.HealthCheckFailedReason, "not available")},
			reason: v1alpha1.HealthCheckFailedReason, message: "ops/a: not available", waiting: true},
		{name: "prune failed is installed", in: []*subResult{sub("a", v1alpha1.SubscriptionInstalled, v1alpha1.PruneFailedReason, "prune: denied")},
			reason: v1alpha1.PruneFailedReason, message: "ops/a: prune: denied", settled: true},
		{name: "applying is not settled", in: []*subResult{sub("a", v1alpha1.SubscriptionApplying, v1alpha1.SucceededReason, "")},
			reason: v1alpha1.SucceededReason, message: "1 plans applied"},
		{name: "message sorted by subscription", in: []*subResult{held("z"), held("m"), held("a")}, reason: v1alpha1.UpgradeHeldReason,
			message: "ops/a: Upgradeable=False: backup; ops/m: Upgradeable=False: backup; ops/z: Upgradeable=False: backup", settled: true, waiting: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := outcome(tt.in)
			if out.Reason != tt.reason || out.Message != tt.message {
				t.Errorf("reason %q message %q, want %q %q", out.Reason, out.Message, tt.reason, tt.message)
			}
			if out.Settled != tt.settled || out.Waiting != tt.waiting || out.Stalled != tt.stalld {
				t.Errorf("settled %v waiting %v stalled %v, want %v %v %v", out.Settled, out.Waiting, out.Stalled, tt.settled, tt.waiting, tt.stalld)
			}
			if len(out.Subscriptions) != len(tt.in) {
				t.Errorf("%d subscriptions, want %d", len(out.Subscriptions), len(tt.in))
			}
		})
	}
}

func TestSeverity(t *testing.T) {
	// The order a person must act in, least urgent first.
	order := []string{"SomethingElse", v1alpha1.SucceededReason, v1alpha1.UpgradeHeldReason, v1alpha1.DependencyHeldReason,
		v1alpha1.MissingPermissionsReason, v1alpha1.PruneFailedReason,
		v1alpha1.HealthCheckFailedReason, v1alpha1.ApplyFailedReason, v1alpha1.InvalidPlanReason}
	for i := 1; i < len(order); i++ {
		if severity(order[i-1]) >= severity(order[i]) {
			t.Errorf("severity(%s) = %d is not below severity(%s) = %d", order[i-1], severity(order[i-1]), order[i], severity(order[i]))
		}
	}
}

func TestTransient(t *testing.T) {
	refused := &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/api", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}}
	gr := schema.GroupResource{Group: "apps", Resource: "deployments"}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"invalid", apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "d",
			field.ErrorList{field.Required(field.NewPath("spec", "selector"), "")}), false},
		{"forbidden", apierrors.NewForbidden(gr, "d", errors.New("denied by the webhook")), false},
		{"bad request", apierrors.NewBadRequest("bad"), false},
		{"not found", apierrors.NewNotFound(gr, "d"), false},
		{"no kind match", &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "example.com", Kind: "Widget"}, SearchedVersions: []string{"v1"}}, false},
		{"unhealthy", fmt.Errorf("hop 1: %w", apply.ErrUnhealthy), false},
		{"unsafe CRD update", fmt.Errorf("%w: CustomResourceDefinition w: updated validation is too restrictive", apply.ErrCRDUnsafe), false},
		{"refused certificate", fmt.Errorf("%w: the Secret ops/s-cert exists without label", certs.ErrRefused), false},
		{"service unavailable", apierrors.NewServiceUnavailable("etcd down"), true},
		{"timeout", apierrors.NewTimeoutError("slow", 1), true},
		{"too many requests", apierrors.NewTooManyRequests("slow down", 1), true},
		{"internal error", apierrors.NewInternalError(errors.New("etcd")), true},
		{"conflict", apierrors.NewConflict(gr, "d", errors.New("modified")), true},
		{"connection refused", refused, true},
		{"canceled", context.Canceled, true},
		{"deadline", context.DeadlineExceeded, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// As Apply returns them: wrapped with the subscription.
			for _, err := range []error{tt.err, fmt.Errorf("apply ops/etcd etcd.v1: %w", tt.err)} {
				if got := transient(err); got != tt.want {
					t.Errorf("transient(%v) = %v, want %v", err, got, tt.want)
				}
			}
		})
	}
}

func TestCredentialsRedact(t *testing.T) {
	const key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"
	scheme, err := Scheme()
	if err != nil {
		t.Fatal(err)
	}
	secret := func(name string, data map[string]string) *corev1.Secret {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: name}, Data: map[string][]byte{}}
		for k, v := range data {
			s.Data[k] = []byte(v)
		}
		return s
	}
	reader := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		secret("git", map[string]string{v1alpha1.SecretKeyToken: "tok-0123456789", v1alpha1.SecretKeyUsername: "olmops",
			v1alpha1.SecretKeyPassword: "pw-abcdefgh", v1alpha1.SecretKeyIdentity: key, v1alpha1.SecretKeyKnownHosts: "h ssh-ed25519 AAAA"}),
		secret("github", map[string]string{v1alpha1.SecretKeyToken: "ghp_forgetoken"}),
		secret("short", map[string]string{v1alpha1.SecretKeyPassword: "abc"}),
	).Build()
	repo := func(gitSecret string) *v1alpha1.Repository {
		return &v1alpha1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: "fleet"}, Spec: v1alpha1.RepositorySpec{
			SecretRef: &v1alpha1.LocalObjectReference{Name: gitSecret},
			Forge:     &v1alpha1.ForgeSpec{Type: v1alpha1.ForgeGitHub, TokenSecretRef: &v1alpha1.LocalObjectReference{Name: "github"}},
		}}
	}
	full, err := (&Sources{}).Credentials(t.Context(), reader, repo("git"))
	if err != nil {
		t.Fatal(err)
	}
	short, err := (&Sources{}).Credentials(t.Context(), reader, repo("short"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		creds    *credentials.Set
		in, want string
	}{
		{"token", full, "fetch: token tok-0123456789 refused", "fetch: token *** refused"},
		{"password", full, "basic auth pw-abcdefgh (olmops) refused", "basic auth *** (olmops) refused"},
		{"ssh key", full, "read key " + key + "failed", "read key ***failed"},
		{"forge token", full, "GET /repos: Bearer ghp_forgetoken: 401", "GET /repos: Bearer ***: 401"},
		{"url user info", full, "clone http://olmops:hunter2@127.0.0.1:8080/x.git: refused", "clone http://127.0.0.1:8080/x.git: refused"},
		{"quoted url", full, `Get "https://u:p4ss@git.example.com/x/info/refs?service=git-upload-pack": EOF`,
			`Get "https://git.example.com/x/info/refs?service=git-upload-pack": EOF`},
		{"url in parentheses", full, "(https://u:p4ss@git.example.com/x)", "(https://git.example.com/x)"},
		{"url user without password", full, "ssh://deploy@git.example.com/x failed", "ssh://git.example.com/x failed"},
		{"two urls", full, "http://a:b1@h1/x then http://c:d2@h2/y", "http://h1/x then http://h2/y"},
		{"no secret", full, "nothing to hide at https://git.example.com/x", "nothing to hide at https://git.example.com/x"},
		{"short values stay", short, "password abc is too short to hide", "password abc is too short to hide"},
		{"empty credentials", &credentials.Set{}, "clone https://u:p@h/x", "clone https://h/x"},
		// URLs that do not parse keep their passwords out too: a typo in
		// spec.url must not put its credentials in a condition.
		{"url with a bad port", full, `open http://olmops:hunter2@127.0.0.1:80a/x.git: parse "http://olmops:hunter2@127.0.0.1:80a/x.git": invalid port`,
			`open http://127.0.0.1:80a/x.git: parse "http://127.0.0.1:80a/x.git": invalid port`},
		{"unescaped percent", full, "clone http://olmops:50%off@127.0.0.1/x.git: invalid URL escape", "clone http://127.0.0.1/x.git: invalid URL escape"},
		{"key=value", full, "remote url=https://u:pw@h/x.git failed", "remote url=https://h/x.git failed"},
		{"angle brackets", full, "see <https://u:pw@h/x>", "see <https://h/x>"},
		{"braces", full, "{url: https://u:pw@h/x}", "{url: https://h/x}"},
		{"@ in the password", full, "clone https://u:p@ss@h/x", "clone https://h/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.creds.Redact(tt.in); got != tt.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNextMinor(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"4.20.3", "4.21", true},
		{"4.20", "4.21", true},
		{"v4.9.0", "4.10", true},
		{"4.16.0-ec.2", "4.17", true},
		{"", "", false},
		{"4", "", false},
		{"four.20", "", false},
		{"4.x", "", false},
		{"4.20-rc.1", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := nextMinor(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("nextMinor(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestRefs(t *testing.T) {
	crd := apply.Entry{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition", Name: "widgets.example.com", Digest: "1"}
	dep := apply.Entry{Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "ops", Name: "op", Digest: "2"}
	cm := apply.Entry{Version: "v1", Kind: "ConfigMap", Namespace: "ops", Name: "cfg"}
	depAgain := dep
	depAgain.Digest = "3"
	got := refs(apply.Inventory{dep, cm, crd, depAgain})
	want := []string{"apiextensions.k8s.io/v1/CustomResourceDefinition//widgets.example.com", "apps/v1/Deployment/ops/op", "v1/ConfigMap/ops/cfg"}
	if !slices.Equal(got, want) {
		t.Errorf("refs = %q, want %q", got, want)
	}
	if empty := refs(nil); empty == nil || len(empty) != 0 {
		t.Errorf("refs(nil) = %#v, want an empty list", empty)
	}
}

func TestSyncerInventory(t *testing.T) {
	dep := apply.Entry{Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "ops", Name: "op", Digest: "d1"}
	cm := apply.Entry{Version: "v1", Kind: "ConfigMap", Namespace: "ops", Name: "cfg", Digest: "d2"}
	mem := apply.Inventory{dep, cm}
	undigested := func(inv ...apply.Entry) apply.Inventory {
		out := apply.Inventory{}
		for _, e := range inv {
			e.Digest = ""
			out = append(out, e)
		}
		return out
	}
	status := func(refs ...string) v1alpha1.SubscriptionStatus {
		return v1alpha1.SubscriptionStatus{Namespace: "ops", Name: "etcd", Inventory: refs}
	}
	tests := []struct {
		name     string
		remember func(s *Syncer)
		id       string
		prev     v1alpha1.SubscriptionStatus
		want     apply.Inventory
	}{
		{"nothing remembered: the status", nil, "a", status(refs(mem)...), undigested(dep, cm)},
		{"memory agrees: with digests", func(s *Syncer) { s.remember("a", "ops", "etcd", mem) }, "a", status(refs(mem)...), mem},
		{"status has more: the status", func(s *Syncer) { s.remember("a", "ops", "etcd", apply.Inventory{dep}) }, "a",
			status(refs(mem)...), undigested(dep, cm)},
		{"status has less: the status", func(s *Syncer) { s.remember("a", "ops", "etcd", mem) }, "a",
			status(refs(apply.Inventory{dep})...), undigested(dep)},
		{"another target's memory", func(s *Syncer) { s.remember("b", "ops", "etcd", mem) }, "a", status(refs(mem)...), undigested(dep, cm)},
		{"another subscription's memory", func(s *Syncer) { s.remember("a", "ops", "other", mem) }, "a", status(refs(mem)...), undigested(dep, cm)},
		{"forgotten", func(s *Syncer) { s.remember("a", "ops", "etcd", mem); s.remember("a", "ops", "etcd", nil) }, "a",
			status(refs(mem)...), undigested(dep, cm)},
		{"unparsable entries dropped", nil, "a", status("v1/ConfigMap/ops/cfg", "not-a-ref", "/v1/ConfigMap/ops/x"), undigested(cm)},
		{"empty status", func(s *Syncer) { s.remember("a", "ops", "etcd", mem) }, "a", status(), apply.Inventory{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Syncer{}
			if tt.remember != nil {
				tt.remember(s)
			}
			if got := s.inventory(tt.id, tt.prev); !slices.Equal(got, tt.want) {
				t.Errorf("inventory = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestCutMessage(t *testing.T) {
	long := strings.Repeat("a", 2000)
	// "é" is two bytes: at an odd offset, byte 1021 falls inside one.
	accents := "x" + strings.Repeat("é", 1000)
	tests := []struct {
		name, in string
		cut      bool
	}{
		{"short", "applied 0123456789ab: 2 plans applied", false},
		{"at the limit", strings.Repeat("a", 1024), false},
		{"ascii", long, true},
		{"multi-byte at the cut", accents, true},
		{"four-byte runes", strings.Repeat("🙂", 400), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := v1alpha1.CutMessage(tt.in)
			if !tt.cut {
				if got != tt.in {
					t.Errorf("cut a message within the limit: %q", got)
				}
				return
			}
			body, ok := strings.CutSuffix(got, "…")
			switch {
			case len(got) > 1024:
				t.Errorf("%d bytes, want at most 1024", len(got))
			case !ok || !strings.HasPrefix(tt.in, body):
				t.Errorf("not a prefix of the message marked with …: %q", got)
			case !utf8.ValidString(got):
				t.Errorf("invalid UTF-8 at the cut: %q", got[len(got)-8:])
			case len(got) < 1024-utf8.UTFMax-len("…"):
				t.Errorf("cut too short: %d bytes", len(got))
			}
		})
	}
}

// recordingForge records the commit statuses it is asked to set; it
// stands for the forge's HTTP API in tests of what the Syncer sends.
type recordingForge struct {
	mu    sync.Mutex
	posts []string // commit + " " + context + " " + state + " " + description
	err   error
}

var errNotRecorded = errors.New("recordingForge: only statuses are recorded")

func (f *recordingForge) SetStatus(_ context.Context, commit string, st gitsource.Status) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.posts = append(f.posts, fmt.Sprintf("%.7s %s %s %s", commit, st.Context, st.State, st.Description))
	return f.err
}

func (f *recordingForge) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

func (f *recordingForge) sent() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.posts)
}

func (f *recordingForge) Statuses(context.Context, string) ([]gitsource.Status, error) {
	return nil, errNotRecorded
}

func (f *recordingForge) Proposals(context.Context, string) ([]gitsource.Proposal, error) {
	return nil, errNotRecorded
}

func (f *recordingForge) Propose(context.Context, gitsource.ProposalRequest) (*gitsource.Proposal, error) {
	return nil, errNotRecorded
}

func (f *recordingForge) Close(context.Context, *gitsource.Proposal, string) error {
	return errNotRecorded
}

func TestPostStatusDedupe(t *testing.T) {
	const c1, c2 = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	installed := gitsource.Status{Context: "olmops/staging/ops/etcd", State: gitsource.StatusSuccess, Description: "etcd.v1 installed · healthy"}
	applying := gitsource.Status{Context: installed.Context, State: gitsource.StatusPending, Description: "applying etcd.v2 (hop 1/1)"}
	other := gitsource.Status{Context: "olmops/staging", State: gitsource.StatusSuccess, Description: "every installed operator allows OpenShift 4.21"}
	forge := &recordingForge{}
	s := &Syncer{}
	var events []Event
	target := func(id string) Target {
		return Target{ID: id, Cluster: "staging", statuses: forge, Event: func(e Event) { events = append(events, e) }}
	}
	// Steps run in order on one Syncer: each says whether it reaches the forge.
	steps := []struct {
		name   string
		id     string
		commit string
		st     gitsource.Status
		fail   bool
		post   bool
	}{
		{"first post", "ops/fleet", c1, installed, false, true},
		{"same again", "ops/fleet", c1, installed, false, false},
		{"another context", "ops/fleet", c1, other, false, true},
		{"another commit", "ops/fleet", c2, installed, false, true},
		{"another state", "ops/fleet", c2, applying, false, true},
		{"back to the first", "ops/fleet", c2, installed, false, true},
		{"another target", "other/fleet", c2, installed, false, true},
		{"forge fails", "ops/fleet", c2, applying, true, true},
		{"a failure is not remembered", "ops/fleet", c2, applying, false, true},
		{"remembered once posted", "ops/fleet", c2, applying, false, false},
	}
	for _, step := range steps {
		before, eventsBefore := len(forge.sent()), len(events)
		if step.fail {
			forge.fail(gitsource.ErrForge)
		}
		s.postStatus(t.Context(), target(step.id), step.commit, step.st)
		forge.fail(nil)
		if posted := len(forge.sent()) > before; posted != step.post {
			t.Errorf("%s: posted %v, want %v (sent %q)", step.name, posted, step.post, forge.sent())
		}
		if failed := len(events) > eventsBefore; failed != step.fail {
			t.Errorf("%s: events %+v", step.name, events[eventsBefore:])
		} else if failed && (events[eventsBefore].Reason != "StatusFailed" || !events[eventsBefore].Warning) {
			t.Errorf("%s: event %+v, want a StatusFailed warning", step.name, events[eventsBefore])
		}
	}

	t.Run("no forge, no carrier", func(t *testing.T) {
		s := &Syncer{}
		s.postStatus(t.Context(), Target{ID: "ops/fleet"}, c1, installed)
		forge := &recordingForge{}
		s.post(t.Context(), Target{ID: "ops/fleet", statuses: forge}, &loadedPlan{namespace: "ops", name: "etcd"},
			commitstatus.Report{Phase: commitstatus.Installed, Bundle: "etcd.v1", Healthy: true})
		if got := forge.sent(); len(got) != 0 {
			t.Errorf("posted %q for a plan whose carrier is unknown", got)
		}
	})
}
