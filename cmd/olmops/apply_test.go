//go:build !olmops_cli

package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/internal/kubetest"
	"github.com/olmops/olmops/reconciler"
	"github.com/olmops/olmops/test/harness"
)

const (
	stagingPlan   = "clusters/staging/plans/etcd-system/etcd"
	stagingBundle = "etcdoperator.v0.10.0"
	etcdCRD       = "etcdclusters.etcd.database.coreos.com"
)

// plannedExamples is exampleRepo after `olmops plan`: staging's Automatic
// plan for etcd is committed on main, as the head.
func plannedExamples(t *testing.T) string {
	t.Helper()
	dir := exampleRepo(t)
	if out, errOut, code := runCLI(t, "plan", "--repo", dir); code != exitOK {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}
	return dir
}

// envKubeconfig writes a kubeconfig file for the shared control plane.
func envKubeconfig(t *testing.T) string {
	t.Helper()
	cfg := kube.Env(t).Config
	return writeKubeconfig(t, &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData},
		&clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken})
}

func writeKubeconfig(t *testing.T, cluster *clientcmdapi.Cluster, user *clientcmdapi.AuthInfo) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["test"], kc.AuthInfos["test"] = cluster, user
	kc.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "test"}
	kc.CurrentContext = "test"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// newRepository creates a Repository recording cluster in namespace ns
// and deletes it when the test ends, so that later tests find one
// Repository per cluster at most.
func newRepository(t *testing.T, ns, name string, spec v1alpha1.RepositorySpec) *v1alpha1.Repository {
	t.Helper()
	c := kube.Env(t).Client
	obj := &v1alpha1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: spec}
	if err := c.Create(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
	ctx := context.WithoutCancel(t.Context()) // t.Context ends before cleanups run
	t.Cleanup(func() {
		if err := c.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
			t.Errorf("delete repository: %v", err)
		}
	})
	return obj
}

// A pass from the command line installs staging's plan; with a
// Repository for the cluster it is recorded there, and what leaves the
// plans is pruned, CRDs and namespaces excepted.
func TestApply(t *testing.T) {
	env := kube.Env(t)
	dir := plannedExamples(t)
	kc := envKubeconfig(t)
	t.Cleanup(kubetest.Rollout(t.Context(), env.Client, "", 20*time.Millisecond))
	// staging's ClusterExtension is applied as its service account.
	if err := harness.CreateInstallers(t.Context(), env.Client, filepath.Join(examplesDir, "installers")); err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "main"))
	apply := func(t *testing.T, extra ...string) (string, string) {
		t.Helper()
		args := append([]string{"apply", "--repo", dir, "--cluster", "staging", "--kubeconfig", kc}, extra...)
		out, errOut, code := runCLI(t, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
		return out, errOut
	}

	t.Run("without a Repository", func(t *testing.T) {
		out, errOut := apply(t)
		row := regexp.MustCompile(`(?m)^etcd-system +etcd +Installed +` + regexp.QuoteMeta(stagingBundle) + ` +` + regexp.QuoteMeta(stagingBundle) + ` +true`)
		if !row.MatchString(out) || !strings.Contains(out, "Succeeded: 1 plans applied") {
			t.Errorf("output:\n%s", out)
		}
		for _, s := range []string{
			"no Repository records cluster staging: nothing is recorded, and nothing pruned",
			"HopInstalled: etcd-system/etcd: " + stagingBundle + " installed and healthy (hop 1/1)",
		} {
			if !strings.Contains(errOut, s) {
				t.Errorf("stderr lacks %q:\n%s", s, errOut)
			}
		}
		d := &appsv1.Deployment{}
		if err := env.Client.Get(t.Context(), client.ObjectKey{Namespace: "etcd-system", Name: "etcd-operator"}, d); err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(d.ManagedFields, func(m metav1.ManagedFieldsEntry) bool {
			return m.Manager == "olmops" && m.Operation == metav1.ManagedFieldsOperationApply
		}) {
			t.Errorf("no fields of the Deployment are applied by olmops: %+v", d.ManagedFields)
		}
	})

	ns := env.NewNamespace(t)
	repo := newRepository(t, ns, "staging", v1alpha1.RepositorySpec{URL: "https://git.example.com/fleet.git", Cluster: "staging", Suspend: true})
	key := client.ObjectKeyFromObject(repo)

	t.Run("recorded in the cluster's Repository", func(t *testing.T) {
		out, errOut := apply(t, "-o", "json")
		if strings.Contains(errOut, "no Repository") {
			t.Errorf("the Repository was not found:\n%s", errOut)
		}
		var outcome reconciler.Outcome
		if err := json.Unmarshal([]byte(out), &outcome); err != nil || outcome.Reason != v1alpha1.SucceededReason || !outcome.Settled {
			t.Errorf("-o json: %v\n%s", err, out)
		}
		got := &v1alpha1.Repository{}
		if err := env.Client.Get(t.Context(), key, got); err != nil {
			t.Fatal(err)
		}
		if got.Status.LastAppliedCommit != head || len(got.Status.Subscriptions) != 1 {
			t.Fatalf("status: %+v", got.Status)
		}
		st := got.Status.Subscriptions[0]
		if st.Namespace != "etcd-system" || st.Name != "etcd" || st.Phase != v1alpha1.SubscriptionInstalled ||
			st.InstalledBundle != stagingBundle || !st.Healthy || st.LastAppliedCommit != head ||
			!slices.Contains(st.Inventory, "apps/v1/Deployment/etcd-system/etcd-operator") {
			t.Errorf("subscription status: %+v", st)
		}
	})

	t.Run("several Repositories for the cluster", func(t *testing.T) {
		other := newRepository(t, ns, "staging-too", repo.Spec)
		_, errOut, code := runCLI(t, "apply", "--repo", dir, "--cluster", "staging", "--kubeconfig", kc)
		if code != exitError || !strings.Contains(errOut, "several Repositories record cluster staging") {
			t.Errorf("exit %d\n%s", code, errOut)
		}
		apply(t, "-n", other.Namespace, "--repository", other.Name, "--context", "test")
	})

	t.Run("a plan that left the branch is pruned", func(t *testing.T) {
		gittest.Git(t, dir, "rm", "--quiet", "-r", stagingPlan)
		gittest.Git(t, dir, "commit", "--quiet", "-m", "drop etcd from staging")
		_, errOut := apply(t, "--repository", key.String())
		if !regexp.MustCompile(`Removed: etcd-system/etcd: its plan left the branch; \d+ objects deleted, 1 kept`).MatchString(errOut) {
			t.Errorf("stderr:\n%s", errOut)
		}
		ctx := t.Context()
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "etcd-system", Name: "etcd-operator"}, &appsv1.Deployment{}); !apierrors.IsNotFound(err) {
			t.Errorf("the Deployment was not pruned: %v", err)
		}
		if err := env.Client.Get(ctx, client.ObjectKey{Name: etcdCRD}, &apiextensionsv1.CustomResourceDefinition{}); err != nil {
			t.Errorf("the CRD was pruned: %v", err)
		}
		if err := env.Client.Get(ctx, client.ObjectKey{Name: "etcd-system"}, &corev1.Namespace{}); err != nil {
			t.Errorf("the namespace was pruned: %v", err)
		}
		got := &v1alpha1.Repository{}
		if err := env.Client.Get(ctx, key, got); err != nil || len(got.Status.Subscriptions) != 0 {
			t.Errorf("status after the removal: %v %+v", err, got.Status)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		tests := []struct {
			name string
			args []string
			want string
		}{
			{"no cluster", []string{"--kubeconfig", kc}, "--cluster is required"},
			{"unknown cluster", []string{"--cluster", "nope", "--kubeconfig", kc}, "--cluster nope: olmops.yaml lists prod-east, staging"},
			{"repository by name in another namespace", []string{"--cluster", "staging", "--kubeconfig", kc, "-n", "elsewhere", "--repository", "staging"}, `repository elsewhere/staging: `},
			{"unknown context", []string{"--cluster", "staging", "--kubeconfig", kc, "--context", "nope"}, `kubeconfig: context "nope" does not exist`},
			{"repository of another cluster", []string{"--cluster", "prod-east", "--kubeconfig", kc, "--repository", key.String()}, `records cluster "staging", not "prod-east"`},
			{"missing repository", []string{"--cluster", "staging", "--kubeconfig", kc, "--repository", ns + "/nope"}, "not found"},
			{"bad output", []string{"--cluster", "staging", "--kubeconfig", kc, "-o", "xml"}, `invalid --output "xml"`},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				out, errOut, code := runCLI(t, append([]string{"apply", "--repo", dir}, tt.args...)...)
				if code != exitError || !strings.Contains(errOut, tt.want) {
					t.Errorf("exit %d, want %d with %q\n%s%s", code, exitError, tt.want, out, errOut)
				}
			})
		}
	})
}
