package planning_test

import (
	"encoding/base64"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog/oci/ocitest"
	"github.com/olmops/olmops/gitsource/github/githubtest"
	"github.com/olmops/olmops/internal/gittest"
)

const importBranch = "olmops/import/operatorhub"

// registryCount counts what the registry was asked: HEADs of manifests
// (polls) apart from everything else (pulls, pings, token exchanges).
type registryCount struct{ heads, others atomic.Int64 }

func (c *registryCount) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead && strings.Contains(r.URL.Path, "/manifests/") {
			c.heads.Add(1)
		} else {
			c.others.Add(1)
		}
		next.ServeHTTP(w, r)
	})
}

// catalogImage is the example operatorhub catalog plus, for each version
// given, a bundle of a package tiny in its channel stable.
func catalogImage(t testing.TB, versions ...string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	root := "../../examples/catalogs/operatorhub"
	err := fs.WalkDir(os.DirFS(root), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(root + "/" + p)
		m[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(versions) == 0 {
		return m
	}
	var b strings.Builder
	fmt.Fprintf(&b, "---\nschema: olm.package\nname: tiny\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: tiny\nname: stable\nentries:\n")
	for i, v := range versions {
		fmt.Fprintf(&b, "  - name: tiny.v%s\n", v)
		if i > 0 {
			fmt.Fprintf(&b, "    replaces: tiny.v%s\n", versions[i-1])
		}
	}
	for _, v := range versions {
		fmt.Fprintf(&b, "---\nschema: olm.bundle\npackage: tiny\nname: tiny.v%s\nimage: quay.io/olmops-examples/tiny-bundle:v%s\n"+
			"properties:\n  - type: olm.package\n    value:\n      packageName: tiny\n      version: %s\n", v, v, v)
	}
	m["tiny/catalog.yaml"] = &fstest.MapFile{Data: []byte(b.String())}
	return m
}

// withSource commits olmops.yaml with operatorhub sourced from image.
func (f *fleet) withSource(t testing.TB, image, extra string) {
	t.Helper()
	cfg := string(mustFile(t, "../../examples/olmops.yaml"))
	cfg = strings.Replace(cfg, "spec:\n", "spec:\n  forge: {type: github, owner: acme, repo: fleet}\n", 1)
	cfg = strings.Replace(cfg, "      path: catalogs/operatorhub\n",
		fmt.Sprintf("      path: catalogs/operatorhub\n      source: {image: %q, pollInterval: 1s%s}\n", image, extra), 1)
	gittest.Commit(t, f.dir, "main", gittest.Change{Files: map[string][]byte{"olmops.yaml": []byte(cfg)}, Message: "poll operatorhub"})
}

// withRegistrySecret names a dockerconfigjson Secret for host.
func withRegistrySecret(t *testing.T, f *fleet, host, user, pass string) func(string, *v1alpha1.Planner) {
	return func(ns string, obj *v1alpha1.Planner) {
		auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pull"}, Type: corev1.SecretTypeDockerConfigJson,
			Data: map[string][]byte{corev1.DockerConfigJsonKey: fmt.Appendf(nil, `{"auths":{%q:{"auth":%q}}}`, host, auth)}}
		if err := f.env.Client.Create(t.Context(), sec); err != nil {
			t.Fatal(err)
		}
		obj.Spec.Registry = &v1alpha1.RegistrySpec{SecretRef: &v1alpha1.LocalObjectReference{Name: "pull"}}
	}
}

// catalogPoll waits for the operatorhub catalog's poll to satisfy cond.
func (f *fleet) catalogPoll(t testing.TB, what string, cond func(v1alpha1.CatalogPoll) bool) (*v1alpha1.Planner, v1alpha1.CatalogPoll) {
	t.Helper()
	var (
		obj *v1alpha1.Planner
		got v1alpha1.CatalogPoll
	)
	eventually(t, what, func() (bool, string) {
		obj = f.get(t)
		for _, c := range obj.Status.Catalogs {
			if c.Name == "operatorhub" {
				got = c
				return cond(c), fmt.Sprintf("%+v", obj.Status)
			}
		}
		return false, fmt.Sprintf("%+v", obj.Status)
	})
	return obj, got
}

// prsOf lists the pull requests whose head is branch.
func prsOf(gh *githubtest.Server, branch string) []githubtest.PR {
	var out []githubtest.PR
	for n := 1; ; n++ {
		pr, ok := gh.PR(n)
		if !ok {
			return out
		}
		if pr.Head == branch {
			out = append(out, pr)
		}
	}
}

// Catalog polling on the real parts: a registry asking for credentials
// from a dockerconfigjson Secret, git http-backend, the GitHub fake and
// the controller in envtest. A new image is proposed within the poll
// interval, in one pull request updated in place; an unchanged poll is
// one HEAD and nothing else; a registry down leaves the last good catalog
// and says so.
func TestCatalogPolling(t *testing.T) {
	count := &registryCount{}
	reg := ocitest.NewRegistry(t, ocitest.WithBasicAuth("puller", "pull-s3cret"), ocitest.WithMiddleware(count.middleware))
	ref := reg.Ref("olmops/operatorhub:v4.20")
	first := reg.Push(t, ref, ocitest.CatalogImage(t, catalogImage(t)))
	f := newFleet(t)
	f.withSource(t, ref, "")
	f.planner(t, withRegistrySecret(t, f, reg.Host, "puller", "pull-s3cret"))
	pulls := "/repos/acme/fleet/pulls"
	digest := func(ref string) string { return ref[strings.Index(ref, "@")+1:] }

	// The example's files are not laid out as an import renders them: the
	// first import proposes the rendering, which later imports update.
	var pr githubtest.PR
	t.Run("the first poll imports the image", func(t *testing.T) {
		_, c := f.catalogPoll(t, "first poll", func(c v1alpha1.CatalogPoll) bool { return c.ImportedDigest == digest(first) })
		prs := prsOf(f.gh, importBranch)
		if c.Error != "" || c.Digest != digest(first) || c.LastPollTime == nil || c.Image != ref || len(prs) != 1 || !strings.HasSuffix(c.Proposal, fmt.Sprintf("/pull/%d", prs[0].Number)) {
			t.Fatalf("poll %+v, import proposals %+v", c, prs)
		}
		pr = prs[0]
		f.planned(t)
	})

	t.Run("a new image is proposed within the poll interval, in place", func(t *testing.T) {
		next := reg.Push(t, ref, ocitest.CatalogImage(t, catalogImage(t, "0.1.0")))
		start := time.Now()
		_, c := f.catalogPoll(t, "import proposed", func(c v1alpha1.CatalogPoll) bool { return c.ImportedDigest == digest(next) })
		t.Logf("image pushed → import proposed in %v", time.Since(start))
		prs := prsOf(f.gh, importBranch)
		if len(prs) != 1 || prs[0].Number != pr.Number || prs[0].HeadSHA == pr.HeadSHA || prs[0].State != "open" || c.Proposal == "" {
			t.Fatalf("import proposals %+v, status %+v; want PR #%d alone, moved from %s", prs, c, pr.Number, pr.HeadSHA)
		}
		pr = prs[0]
	})

	t.Run("an unchanged image costs one HEAD a poll and no planning", func(t *testing.T) {
		obj := f.get(t)
		planned, heads, others := obj.Status.LastPlannedTime, count.heads.Load(), count.others.Load()
		ghPosts, ghLists := f.gh.CountRequests(http.MethodPost, pulls), f.gh.CountRequests(http.MethodGet, pulls)
		// The same bytes pushed again: the same digest.
		reg.Push(t, ref, ocitest.CatalogImage(t, catalogImage(t, "0.1.0")))
		heads, others = count.heads.Load(), count.others.Load()
		eventually(t, "two more polls", func() (bool, string) {
			return count.heads.Load() >= heads+2, fmt.Sprintf("%d HEADs", count.heads.Load()-heads)
		})
		// A poll that starts after now (lastPollTime has whole seconds)
		// means the pass of the second HEAD ended: what it did is counted.
		after := time.Now().Truncate(time.Second).Add(time.Second)
		f.catalogPoll(t, "a later poll", func(c v1alpha1.CatalogPoll) bool { return !c.LastPollTime.Time.Before(after) })
		if n := count.heads.Load() - heads; n > 3 {
			t.Errorf("%d HEADs for at most three polls: more than one a poll", n)
		}
		if n := count.others.Load() - others; n != 0 {
			t.Errorf("unchanged polls sent %d registry requests besides their HEADs", n)
		}
		if got := f.get(t).Status.LastPlannedTime; !got.Equal(planned) {
			t.Errorf("an unchanged poll planned: lastPlannedTime %v → %v", planned, got)
		}
		if f.gh.CountRequests(http.MethodPost, pulls) != ghPosts || f.gh.CountRequests(http.MethodGet, pulls) != ghLists {
			t.Error("an unchanged poll asked the forge about pull requests")
		}
		if now := mustPR(t, f.gh, pr.Number); now.HeadSHA != pr.HeadSHA {
			t.Errorf("an unchanged image moved the proposal from %s to %s", pr.HeadSHA, now.HeadSHA)
		}
	})

	t.Run("a newer image updates the proposal in place", func(t *testing.T) {
		next := reg.Push(t, ref, ocitest.CatalogImage(t, catalogImage(t, "0.1.0", "0.2.0")))
		f.catalogPoll(t, "import updated", func(c v1alpha1.CatalogPoll) bool { return c.ImportedDigest == digest(next) })
		prs := prsOf(f.gh, importBranch)
		if len(prs) != 1 || prs[0].Number != pr.Number || prs[0].HeadSHA == pr.HeadSHA {
			t.Fatalf("import proposals %+v; want PR #%d alone, moved from %s", prs, pr.Number, pr.HeadSHA)
		}
		pr = prs[0]
	})

	t.Run("a registry down leaves the last good catalog and says so", func(t *testing.T) {
		imported := f.get(t).Status.Catalogs[0].ImportedDigest
		main, proposed := f.head(t), strings.TrimSpace(gittest.Git(t, f.dir, "rev-parse", importBranch))
		reg.Close()
		obj, c := f.catalogPoll(t, "poll failed", func(c v1alpha1.CatalogPoll) bool { return c.Error != "" })
		cond := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.CatalogsPolledCondition)
		if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != v1alpha1.PollFailedReason || !strings.Contains(cond.Message, "operatorhub") {
			t.Errorf("CatalogsPolled = %+v", cond)
		}
		if c.ImportedDigest != imported || !strings.Contains(c.Error, "stays as it is") || strings.Contains(c.Error, "pull-s3cret") {
			t.Errorf("poll %+v; want the import of %s kept, said so, and no secret", c, imported)
		}
		if !meta.IsStatusConditionTrue(obj.Status.Conditions, v1alpha1.ReadyCondition) {
			t.Errorf("a registry down made the plans not ready: %+v", obj.Status.Conditions)
		}
		if now := mustPR(t, f.gh, pr.Number); now.HeadSHA != pr.HeadSHA || now.State != "open" {
			t.Errorf("a registry down changed the proposal: %+v, was %+v", now, pr)
		}
		// The catalog in Git, on the branch and on the import's branch.
		if now, prop := f.head(t), strings.TrimSpace(gittest.Git(t, f.dir, "rev-parse", importBranch)); now != main || prop != proposed {
			t.Errorf("a registry down moved main %s → %s, %s %s → %s", main, now, importBranch, proposed, prop)
		}
	})

	t.Run("a mirror of spec.registry serves while the registry is down", func(t *testing.T) {
		mirror := ocitest.NewRegistry(t)
		next := mirror.Push(t, mirror.Ref("olmops/operatorhub:v4.20"), ocitest.CatalogImage(t, catalogImage(t, "0.1.0", "0.2.0", "0.3.0")))
		f.edit(t, func(obj *v1alpha1.Planner) {
			obj.Spec.Registry.Mirrors = []v1alpha1.ImageMirror{{Source: reg.Host + "/olmops", Mirrors: []string{mirror.Host + "/olmops"}}}
		})
		obj, c := f.catalogPoll(t, "polled through the mirror", func(c v1alpha1.CatalogPoll) bool { return c.ImportedDigest == digest(next) && c.Error == "" })
		if !meta.IsStatusConditionTrue(obj.Status.Conditions, v1alpha1.CatalogsPolledCondition) || c.Image != ref {
			t.Errorf("poll %+v, conditions %+v", c, obj.Status.Conditions)
		}
		if prs := prsOf(f.gh, importBranch); len(prs) != 1 || prs[0].Number != pr.Number {
			t.Errorf("import proposals %+v; want PR #%d alone", prs, pr.Number)
		}
	})
}
