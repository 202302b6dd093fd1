package review

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestReviewCatalogScope: the labels and namespaces olmops.yaml gives a
// catalog reach the resolver, so a ClusterExtension's selector matches the
// labels and a Subscription in another namespace loses a restricted
// catalog.
func TestReviewCatalogScope(t *testing.T) {
	const (
		ce       = "clusters/staging/subscriptions/etcd.yaml"
		hub      = "    - name: operatorhub\n      path: catalogs/operatorhub\n"
		selector = "      packageName: etcd\n      selector: {matchLabels: {tier: public}}\n"
	)
	for _, tc := range []struct {
		name    string
		edit    func(t *testing.T, m fstest.MapFS)
		key     string
		wantErr string // "" for a resolution
	}{
		{"selector without the label", func(t *testing.T, m fstest.MapFS) {
			edit(t, m, ce, "      packageName: etcd\n", selector)
		}, "staging/etcd-system/etcd", "no bundles found"},
		{"selector with the label", func(t *testing.T, m fstest.MapFS) {
			edit(t, m, ce, "      packageName: etcd\n", selector)
			edit(t, m, "olmops.yaml", hub, hub+"      labels: {tier: public}\n")
		}, "staging/etcd-system/etcd", ""},
		{"catalog restricted to another namespace", func(t *testing.T, m fstest.MapFS) {
			edit(t, m, "olmops.yaml", hub, hub+"      namespaces: [team-a]\n")
		}, "prod-east/etcd-system/etcd", "catalog operatorhub is restricted to namespaces team-a, not etcd-system"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := examples(t)
			head := clone(base)
			tc.edit(t, head)
			r := compare(t, base, head, Options{Branch: "main"})
			for _, im := range r.Impact {
				if im.Key() != tc.key {
					continue
				}
				got := ""
				if im.Head != nil {
					got = im.Head.Error + strings.Join(im.Head.Explanation, "\n")
				}
				if tc.wantErr == "" && got != "" || !strings.Contains(got, tc.wantErr) {
					t.Fatalf("%s at the head: %q, want %q", tc.key, got, tc.wantErr)
				}
				return
			}
			if tc.wantErr != "" {
				t.Fatalf("no impact on %s: %+v", tc.key, r.Impact)
			}
		})
	}
}

// TestReviewCatalogWarnings: a key written twice and a CEL rule that does
// not compile, new at the head, are warnings of the review, not errors.
func TestReviewCatalogWarnings(t *testing.T) {
	base := examples(t)
	head := clone(base)
	edit(t, head, acmeCatalog, "schema: olm.package\n", "schema: olm.package\nschema: olm.package\n")
	edit(t, head, acmeCatalog, "properties:\n", "properties:\n  - {type: olm.constraint, value: {cel: {rule: 'x +'}}}\n")
	r := compare(t, base, head, Options{Branch: "main"})
	var warns, errs []string
	for _, f := range r.Findings() {
		switch f.Severity {
		case Warning:
			warns = append(warns, f.Message)
		case Error:
			errs = append(errs, f.Message)
		}
	}
	all := strings.Join(warns, "\n")
	if len(warns) != 2 || !strings.Contains(all, `duplicate key "schema"`) || !strings.Contains(all, `cel rule "x +" does not compile`) {
		t.Errorf("warnings:\n%s", all)
	}
	// The subscriptions that resolve to the bundle break, as in OLM: those
	// are errors; the catalog problems themselves are not.
	for _, e := range errs {
		if strings.Contains(e, "duplicate key") || strings.HasPrefix(e, "bundle acme-db") {
			t.Errorf("error %q, want a warning", e)
		}
	}
}
