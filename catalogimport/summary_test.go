package catalogimport

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/oci/ocitest"
)

// A re-import whose bundles kept their versions but not their content is
// reported as such, not as "no changes".
func TestRunRebuilt(t *testing.T) {
	tests := []struct {
		name   string
		edit   string // replaced by with in etcd's catalog
		with   string
		title  string
		detail string
	}{
		{"new image", "image: quay.io/olmops-examples/etcd-operator-bundle:v0.9.4\nproperties:", "image: quay.io/olmops-examples/etcd-operator-bundle@sha256:" + strings.Repeat("a", 64) + "\nproperties:",
			"catalog operatorhub: etcd 0.9.4 rebuilt: same version, new content",
			"image quay.io/olmops-examples/etcd-operator-bundle:v0.9.4 → quay.io/olmops-examples/etcd-operator-bundle@sha256:" + strings.Repeat("a", 64)},
		{"new related image", "    image: quay.io/olmops-examples/etcd-operator:v0.9.4\n", "    image: quay.io/olmops-examples/etcd-operator:v0.9.4-1\n",
			"catalog operatorhub: etcd 0.9.4 rebuilt: same version, new content", "related images changed"},
		{"new property value", "      kind: EtcdCluster\n      version: v1beta2\n  - type: olm.bundle.object\n    value:\n      data: eyJhcGlWZXJzaW9uIjoib3BlcmF0b3JzLmNvcmVvcy5jb20vdjFhbHBoYTEiLCJraW5kIjoiQ2x1c3RlclNlcnZpY2VWZXJzaW9uIiwibWV0YWRhdGEiOnsiYW5ub3RhdGlvbnMiOnsiY2FwYWJpbGl0aWVzIjoiQmFzaWMgSW5zdGFsbCIsImNvbnRhaW5lckltYWdlIjoicXVheS5pby9vbG1vcHMtZXhhbXBsZXMvZXRjZC1vcGVyYXRvcjp2MC45LjQi",
			"      kind: EtcdCluster\n      version: v1beta3\n  - type: olm.bundle.object\n    value:\n      data: eyJhcGlWZXJzaW9uIjoib3BlcmF0b3JzLmNvcmVvcy5jb20vdjFhbHBoYTEiLCJraW5kIjoiQ2x1c3RlclNlcnZpY2VWZXJzaW9uIiwibWV0YWRhdGEiOnsiYW5ub3RhdGlvbnMiOnsiY2FwYWJpbGl0aWVzIjoiQmFzaWMgSW5zdGFsbCIsImNvbnRhaW5lckltYWdlIjoicXVheS5pby9vbG1vcHMtZXhhbXBsZXMvZXRjZC1vcGVyYXRvcjp2MC45LjQi",
			"catalog operatorhub: etcd 0.9.4 rebuilt: same version, new content", "properties changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := ocitest.NewRegistry(t)
			ref := reg.Ref("olmops/operatorhub:latest")
			repo, images := t.TempDir(), importer(t)
			reg.Push(t, ref, ocitest.CatalogImage(t, catalogFS(t, nil)))
			if _, err := Run(t.Context(), into(ref, repo, images)); err != nil {
				t.Fatal(err)
			}
			reg.Push(t, ref, ocitest.CatalogImage(t, catalogFS(t, func(s string) string {
				if !strings.Contains(s, tt.edit) {
					t.Fatalf("the example etcd catalog changed; update the test")
				}
				return strings.Replace(s, tt.edit, tt.with, 1)
			})))
			sum, err := Run(t.Context(), into(ref, repo, images))
			if err != nil {
				t.Fatal(err)
			}
			if got := sum.Title(); got != tt.title || !sum.Changed {
				t.Errorf("title %q (changed %v), want %q", got, sum.Changed, tt.title)
			}
			if len(sum.RebuiltBundles) != 1 || sum.RebuiltBundles[0].Name != "etcdoperator.v0.9.4" || sum.RebuiltBundles[0].Detail != tt.detail {
				t.Errorf("rebuilt = %+v, want etcdoperator.v0.9.4: %s", sum.RebuiltBundles, tt.detail)
			}
			if len(sum.NewBundles)+len(sum.RemovedBundles) != 0 {
				t.Errorf("new %v, removed %v; want none", sum.NewBundles, sum.RemovedBundles)
			}
			if body := sum.Body(); !strings.Contains(body, "### Rebuilt bundles") || !strings.Contains(body, tt.detail) {
				t.Errorf("body lacks the rebuilt bundle:\n%s", body)
			}
		})
	}
}

// Titles and bodies stay within what GitHub accepts however big the
// import, with the counts first and the cut lists saying so.
func TestTextLimits(t *testing.T) {
	big := func(n int, name string) []BundleChange {
		var out []BundleChange
		for i := range n {
			pkg := fmt.Sprintf("%s-operator-with-a-long-name-%04d", name, i)
			out = append(out, BundleChange{Package: pkg, Name: pkg + ".v1.2.3", Version: "1.2.3"})
		}
		return out
	}
	var moves []HeadMove
	for i := range 3000 {
		moves = append(moves, HeadMove{Package: fmt.Sprintf("p%04d", i), Channel: "stable", From: "1.0.0", To: "1.0.1"})
	}
	tests := []struct {
		name  string
		sum   Summary
		title string // a prefix of the title
	}{
		{"many new", Summary{NewBundles: big(2000, "new"), HeadMoves: moves, RemovedBundles: big(1000, "gone")}, "catalog redhat: new-operator-with-a-long-name-0000 1.2.3, "},
		{"many rebuilt", Summary{RebuiltBundles: big(2000, "re")}, "catalog redhat: re-operator-with-a-long-name-0000 1.2.3, "},
		{"many new and rebuilt", Summary{NewBundles: big(5, "new"), RebuiltBundles: big(2000, "re")}, "catalog redhat: new-operator-with-a-long-name-0000 1.2.3, "},
		{"one huge name", Summary{NewBundles: []BundleChange{{Package: strings.Repeat("é", 300), Version: "1"}}}, "catalog redhat: 1 package(s) available"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.sum
			s.Catalog, s.Image, s.Digest, s.Dir = "redhat", "registry.redhat.io/redhat/redhat-operator-index:v4.20", "sha256:0", "catalogs/redhat"
			title, body := s.Title(), s.Body()
			if n := utf8.RuneCountInString(title); n > MaxTitle || !strings.HasPrefix(title, tt.title) {
				t.Errorf("title (%d characters) = %q, want ≤ %d starting %q", n, title, MaxTitle, tt.title)
			}
			if len(body) > MaxBody {
				t.Errorf("body is %d bytes, want ≤ %d", len(body), MaxBody)
			}
			counts := fmt.Sprintf("%d new bundle(s), %d rebuilt, %d removed; %d channel head(s) moved.", len(s.NewBundles), len(s.RebuiltBundles), len(s.RemovedBundles), len(s.HeadMoves))
			if !strings.Contains(body[:300], counts) {
				t.Errorf("body does not start with the counts %q:\n%.300s", counts, body)
			}
			if len(s.NewBundles) > 100 && !strings.Contains(body, "more: see the files under `catalogs/redhat`") {
				t.Errorf("a cut list does not say so")
			}
		})
	}
}

// The first import of a real catalog (every bundle new) stays within
// GitHub's limits: ocp-v4.20 gave a ~3,200-character title and a
// ~127,000-character body.
func TestTextLimitsRealCatalog(t *testing.T) {
	const dir = "../../shared/catalogs/ocp-v4.20"
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the corpus is expected at %s (beside the repository): %v", dir, err)
	}
	next, err := catalog.LoadDir(t.Context(), dir, "redhat")
	if err != nil {
		t.Fatal(err)
	}
	s := Summary{Catalog: "redhat", Image: "registry.redhat.io/redhat/redhat-operator-index:v4.20", Digest: "sha256:0", Dir: "catalogs/redhat"}
	s.diff(nil, next)
	title, body := s.Title(), s.Body()
	t.Logf("%d new bundles: title %d characters, body %d bytes", len(s.NewBundles), utf8.RuneCountInString(title), len(body))
	if n := utf8.RuneCountInString(title); n > MaxTitle {
		t.Errorf("title is %d characters: %q", n, title)
	}
	if len(body) > MaxBody || len(s.NewBundles) < 1000 {
		t.Errorf("body is %d bytes for %d new bundles, want ≤ %d", len(body), len(s.NewBundles), MaxBody)
	}
}
