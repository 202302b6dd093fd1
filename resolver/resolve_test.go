package resolver

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
)

// depsCatalog: etcd needs the Backup API that backup-operator provides
// (two channels), and a db package bound by olm.package.required.
const depsCatalog = `
schema: olm.package
name: etcd
defaultChannel: stable
---
schema: olm.channel
package: etcd
name: stable
entries:
- name: etcd.v1.0.0
- name: etcd.v1.1.0
  replaces: etcd.v1.0.0
- name: etcd.v1.2.0
  replaces: etcd.v1.1.0
---
schema: olm.bundle
package: etcd
name: etcd.v1.0.0
image: quay.io/etcd/bundle:v1.0.0
properties:
- {type: olm.package, value: {packageName: etcd, version: 1.0.0}}
---
schema: olm.bundle
package: etcd
name: etcd.v1.1.0
image: quay.io/etcd/bundle:v1.1.0
properties:
- {type: olm.package, value: {packageName: etcd, version: 1.1.0}}
- {type: olm.gvk.required, value: {group: backup.io, kind: Backup, version: v1}}
- {type: olm.maxOpenShiftVersion, value: "4.16"}
---
schema: olm.bundle
package: etcd
name: etcd.v1.2.0
image: quay.io/etcd/bundle:v1.2.0
properties:
- {type: olm.package, value: {packageName: etcd, version: 1.2.0}}
- {type: olm.gvk.required, value: {group: backup.io, kind: Backup, version: v1}}
- {type: olm.kubeversion, value: {version: 1.30.0}}
---
schema: olm.package
name: backup-operator
defaultChannel: stable
---
schema: olm.channel
package: backup-operator
name: stable
entries:
- name: backup-operator.v0.1.0
- name: backup-operator.v0.2.0
  replaces: backup-operator.v0.1.0
---
schema: olm.channel
package: backup-operator
name: alpha
entries:
- name: backup-operator.v0.3.0
---
schema: olm.bundle
package: backup-operator
name: backup-operator.v0.1.0
image: quay.io/backup/bundle:v0.1.0
properties:
- {type: olm.package, value: {packageName: backup-operator, version: 0.1.0}}
- {type: olm.gvk, value: {group: backup.io, kind: Backup, version: v1}}
---
schema: olm.bundle
package: backup-operator
name: backup-operator.v0.2.0
image: quay.io/backup/bundle:v0.2.0
properties:
- {type: olm.package, value: {packageName: backup-operator, version: 0.2.0}}
- {type: olm.gvk, value: {group: backup.io, kind: Backup, version: v1}}
---
schema: olm.bundle
package: backup-operator
name: backup-operator.v0.3.0
image: quay.io/backup/bundle:v0.3.0
properties:
- {type: olm.package, value: {packageName: backup-operator, version: 0.3.0}}
- {type: olm.gvk, value: {group: backup.io, kind: Backup, version: v1}}
---
schema: olm.package
name: rival-backup
defaultChannel: stable
---
schema: olm.channel
package: rival-backup
name: stable
entries:
- name: rival-backup.v1.0.0
---
schema: olm.bundle
package: rival-backup
name: rival-backup.v1.0.0
image: quay.io/rival/bundle:v1.0.0
properties:
- {type: olm.package, value: {packageName: rival-backup, version: 1.0.0}}
- {type: olm.gvk, value: {group: backup.io, kind: Backup, version: v1}}
---
schema: olm.package
name: app
defaultChannel: stable
---
schema: olm.channel
package: app
name: stable
entries:
- name: app.v1.0.0
---
schema: olm.bundle
package: app
name: app.v1.0.0
image: quay.io/app/bundle:v1.0.0
properties:
- {type: olm.package, value: {packageName: app, version: 1.0.0}}
- {type: olm.package.required, value: {packageName: etcd, versionRange: ">=1.0.0 <1.2.0"}}
- type: olm.constraint
  value:
    failureMessage: app needs a certified backup operator
    cel: {rule: 'properties.exists(p, p.type == "olm.package" && p.value.packageName == "backup-operator" && semver_compare(p.value.version, "0.2.0") >= 0)'}
- type: olm.constraint
  value:
    not:
      constraints:
      - package: {packageName: rival-backup, versionRange: ">=0.0.0"}
`

func testCatalog(t testing.TB, name, doc string) *catalog.Catalog {
	t.Helper()
	cfg, err := fbc.Decode(name+".yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := catalog.New(name, cfg)
	if ps := c.Validate(); len(ps) > 0 {
		t.Fatalf("test catalog is invalid: %v", ps)
	}
	return c
}

func TestResolve(t *testing.T) {
	cat := testCatalog(t, "operatorhub", depsCatalog)
	sub := func(name, pkg string, mod ...func(*Subscription)) Subscription {
		s := Subscription{Request: Request{Name: name, Package: pkg, Policy: Classic}}
		for _, m := range mod {
			m(&s)
		}
		return s
	}
	installed := func(b string) func(*Subscription) {
		return func(s *Subscription) { s.Installed = &Installed{Bundle: b} }
	}
	for _, tc := range []struct {
		name     string
		subs     []Subscription
		cluster  Cluster
		want     map[string]string // subscription -> bundle
		wantPath map[string][]string
		wantDeps []string // package/bundle<-requiredBy
		wantHeld string
		findings []string
		errorHas []string
	}{
		{
			name:     "dependency proposed from the default channel, head first",
			subs:     []Subscription{sub("etcd", "etcd")},
			want:     map[string]string{"etcd": "etcd.v1.2.0"},
			wantDeps: []string{"backup-operator/backup-operator.v0.2.0<-etcd.v1.2.0"},
		},
		{
			name:     "classic path walks every hop to the head",
			subs:     []Subscription{sub("etcd", "etcd", installed("etcd.v1.0.0"))},
			want:     map[string]string{"etcd": "etcd.v1.1.0"},
			wantPath: map[string][]string{"etcd": {"etcd.v1.1.0", "etcd.v1.2.0"}},
			wantDeps: []string{"backup-operator/backup-operator.v0.2.0<-etcd.v1.1.0"},
			findings: nil,
		},
		{
			name:     "Upgradeable=False holds the operator",
			subs:     []Subscription{sub("etcd", "etcd", installed("etcd.v1.0.0"), func(s *Subscription) { s.Held = "migration running" })},
			want:     map[string]string{"etcd": "etcd.v1.0.0"},
			wantHeld: "migration running",
		},
		{
			name:     "kubeversion keeps the head off an old cluster",
			subs:     []Subscription{sub("etcd", "etcd")},
			cluster:  Cluster{KubernetesVersion: "1.29.0", OpenShiftVersion: "4.16.3"},
			want:     map[string]string{"etcd": "etcd.v1.1.0"},
			wantDeps: []string{"backup-operator/backup-operator.v0.2.0<-etcd.v1.1.0"},
			findings: []string{"cluster not upgradeable: bundle etcd.v1.1.0 allows OpenShift up to 4.16, and the cluster's next minor version is 4.17"},
		},
		{
			name: "package range, CEL and not-constraints together",
			subs: []Subscription{sub("app", "app")},
			want: map[string]string{"app": "app.v1.0.0"},
			wantDeps: []string{
				"etcd/etcd.v1.1.0<-app.v1.0.0",
				"backup-operator/backup-operator.v0.2.0<-app.v1.0.0,etcd.v1.1.0",
			},
		},
		{
			name:     "a subscribed provider is not proposed again",
			subs:     []Subscription{sub("etcd", "etcd"), sub("backup", "backup-operator", func(s *Subscription) { s.Channels = []string{"alpha"} })},
			want:     map[string]string{"etcd": "etcd.v1.2.0", "backup": "backup-operator.v0.3.0"},
			wantDeps: nil,
		},
		{
			name:     "two providers of one API conflict",
			subs:     []Subscription{sub("backup", "backup-operator"), sub("rival", "rival-backup")},
			errorHas: []string{"API backup.io/v1/Backup is provided by at most one operator"},
		},
		{
			name:     "a not-constraint conflicts with a subscription",
			subs:     []Subscription{sub("app", "app"), sub("rival", "rival-backup")},
			errorHas: []string{"subscription app exists", "subscription rival exists"},
		},
		{
			name:     "no candidates is explained with the subscription",
			subs:     []Subscription{sub("ghost", "ghost")},
			errorHas: []string{"subscription ghost exists", "no operators found in package ghost"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sol, err := Resolve(t.Context(), Namespace{Catalogs: []*catalog.Catalog{cat}, Subscriptions: tc.subs, Cluster: tc.cluster})
			if len(tc.errorHas) > 0 {
				var u *Unsatisfiable
				if !errors.As(err, &u) {
					t.Fatalf("want Unsatisfiable, got %v", err)
				}
				for _, w := range tc.errorHas {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range sol.Subscriptions {
				if w := tc.want[r.Name]; r.BundleName != w {
					t.Errorf("%s resolved to %q, want %q", r.Name, r.BundleName, w)
				}
				if w, ok := tc.wantPath[r.Name]; ok {
					var got []string
					for _, h := range r.Path {
						got = append(got, h.Edge.To)
					}
					if !slices.Equal(got, w) {
						t.Errorf("%s path %v, want %v", r.Name, got, w)
					}
				}
				if r.Held != tc.wantHeld {
					t.Errorf("%s held %q, want %q", r.Name, r.Held, tc.wantHeld)
				}
			}
			var deps []string
			for _, d := range sol.Dependencies {
				deps = append(deps, d.Package+"/"+d.StartingCSV+"<-"+strings.Join(d.RequiredBy, ","))
			}
			if !slices.Equal(deps, tc.wantDeps) {
				t.Errorf("dependencies %q, want %q", deps, tc.wantDeps)
			}
			var findings []string
			for _, f := range sol.Findings {
				findings = append(findings, f.Message)
			}
			if !slices.Equal(findings, tc.findings) {
				t.Errorf("findings %q, want %q", findings, tc.findings)
			}
		})
	}
}

func TestResolveIsDeterministic(t *testing.T) {
	cat := testCatalog(t, "operatorhub", depsCatalog)
	ns := Namespace{Catalogs: []*catalog.Catalog{cat}, Subscriptions: []Subscription{
		{Request: Request{Name: "app", Package: "app"}}, {Request: Request{Name: "etcd", Package: "etcd"}},
	}}
	first, err := Resolve(t.Context(), ns)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		again, err := Resolve(t.Context(), ns)
		if err != nil {
			t.Fatal(err)
		}
		for i := range first.Subscriptions {
			if first.Subscriptions[i].BundleName != again.Subscriptions[i].BundleName {
				t.Fatalf("run differs: %s vs %s", first.Subscriptions[i].BundleName, again.Subscriptions[i].BundleName)
			}
		}
		if len(first.Dependencies) != len(again.Dependencies) {
			t.Fatal("dependencies differ between runs")
		}
	}
}

// A requirement that does not parse must stop the resolution: dropping it
// would install the bundle without what it needs.
func TestResolveBrokenRequirement(t *testing.T) {
	for _, tc := range []struct{ name, from, to string }{
		{"gvk.required", "{type: olm.gvk.required, value: {group: backup.io, kind: Backup, version: v1}}", "{type: olm.gvk.required, value: [backup.io]}"},
		{"package.required", `{type: olm.package.required, value: {packageName: etcd, versionRange: ">=1.0.0 <1.2.0"}}`, "{type: olm.package.required, value: 42}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(depsCatalog, tc.from, tc.to, 1)
			if doc == depsCatalog {
				t.Fatal("fixture did not change")
			}
			cfg, err := fbc.Decode("operatorhub.yaml", []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			cat := catalog.New("operatorhub", cfg)
			pkg := "etcd"
			if tc.name == "package.required" {
				pkg = "app"
			}
			_, err = Resolve(t.Context(), Namespace{Catalogs: []*catalog.Catalog{cat}, Subscriptions: []Subscription{{Request: Request{Name: pkg, Package: pkg}}}})
			if err == nil || !strings.Contains(err.Error(), "operatorhub.yaml:") || !strings.Contains(err.Error(), "olm."+tc.name) {
				t.Fatalf("error %v, want one naming the file and olm.%s", err, tc.name)
			}
		})
	}
}

func TestResolveBadConstraints(t *testing.T) {
	for _, tc := range []struct{ name, rule, want string }{
		{"does not compile", `properties.exists(p, `, "does not compile"},
		{"not a bool", `1 + 1`, "not a bool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(depsCatalog, `properties.exists(p, p.type == "olm.package" && p.value.packageName == "backup-operator" && semver_compare(p.value.version, "0.2.0") >= 0)`, tc.rule, 1)
			cat := testCatalog(t, "operatorhub", doc)
			_, err := Resolve(t.Context(), Namespace{Catalogs: []*catalog.Catalog{cat}, Subscriptions: []Subscription{{Request: Request{Name: "app", Package: "app"}}}})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "operatorhub.yaml:") {
				t.Fatalf("error %v, want %q with the catalog file", err, tc.want)
			}
		})
	}
}
