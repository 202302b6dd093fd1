package resolver_test

import (
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/resolver"
	"github.com/olmops/olmops/subscription"
)

// demoFBC has a default channel (stable: 0.1.0 -> 0.2.0 -> 0.2.1) and a
// newer candidate channel (0.3.0), the shape in which "no channel" and
// "any channel" give different answers; and skippy, whose skipped 2.0.0
// is an upgrade from 1.0.0 for Semver and off the replaces chain for
// Classic (docs/resolver-semantics.md), so the two policies part.
const demoFBC = `
schema: olm.package
name: demo-operator
defaultChannel: stable
---
schema: olm.channel
package: demo-operator
name: stable
entries:
  - name: demo-operator.v0.1.0
  - name: demo-operator.v0.2.0
    replaces: demo-operator.v0.1.0
  - name: demo-operator.v0.2.1
    replaces: demo-operator.v0.2.0
---
schema: olm.channel
package: demo-operator
name: candidate
entries:
  - name: demo-operator.v0.3.0
    skipRange: "<0.3.0"
---
schema: olm.package
name: skippy
defaultChannel: stable
---
schema: olm.channel
package: skippy
name: stable
entries:
  - name: skippy.v1.0.0
  - name: skippy.v2.0.0
    replaces: skippy.v1.0.0
  - name: skippy.v3.0.0
    replaces: skippy.v2.0.0
    skips: [skippy.v2.0.0]
---
schema: olm.bundle
package: skippy
name: skippy.v1.0.0
image: example.com/skippy:v1.0.0
properties: [{type: olm.package, value: {packageName: skippy, version: 1.0.0}}]
---
schema: olm.bundle
package: skippy
name: skippy.v2.0.0
image: example.com/skippy:v2.0.0
properties: [{type: olm.package, value: {packageName: skippy, version: 2.0.0}}]
---
schema: olm.bundle
package: skippy
name: skippy.v3.0.0
image: example.com/skippy:v3.0.0
properties: [{type: olm.package, value: {packageName: skippy, version: 3.0.0}}]
` + demoBundles

const demoBundles = `---
schema: olm.bundle
package: demo-operator
name: demo-operator.v0.1.0
image: example.com/demo:v0.1.0
properties: [{type: olm.package, value: {packageName: demo-operator, version: 0.1.0}}]
---
schema: olm.bundle
package: demo-operator
name: demo-operator.v0.2.0
image: example.com/demo:v0.2.0
properties: [{type: olm.package, value: {packageName: demo-operator, version: 0.2.0}}]
---
schema: olm.bundle
package: demo-operator
name: demo-operator.v0.2.1
image: example.com/demo:v0.2.1
properties: [{type: olm.package, value: {packageName: demo-operator, version: 0.2.1}}]
---
schema: olm.bundle
package: demo-operator
name: demo-operator.v0.3.0
image: example.com/demo:v0.3.0
properties: [{type: olm.package, value: {packageName: demo-operator, version: 0.3.0}}]
`

func demoCatalogs(t *testing.T) []*catalog.Catalog {
	t.Helper()
	cfg, err := fbc.Decode("demo.yaml", []byte(demoFBC))
	if err != nil {
		t.Fatal(err)
	}
	return []*catalog.Catalog{catalog.New("demo", cfg)}
}

const (
	subHead = "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata:\n  name: demo\n  namespace: ns\n"
	ceHead  = "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: demo\n"
	ceSpec  = "spec:\n  namespace: ns\n  serviceAccount: {name: installer}\n  source:\n    sourceType: Catalog\n    catalog: {packageName: demo-operator}\n"
	semverA = "  annotations: {olmops.io/successor-policy: Semver}\n"
)

// TestIntentPolicyFollowsKind pins issue 15 items 1 and 2: with no policy
// named anywhere, each kind resolves as its own OLM does; whatever the
// policy, a Subscription never reads "no channel" as "any channel", and
// its startingCSV is installed first or refused, never dropped.
func TestIntentPolicyFollowsKind(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		policy  subscription.Policy // the cluster's, "" when olmops.yaml names none
		want    []string            // UpgradePath, bundle by bundle
		wantErr string
	}{
		{name: "subscription without channel takes the default channel's head",
			doc: subHead + "spec: {name: demo-operator}\n", want: []string{"demo-operator.v0.2.1"}},
		{name: "subscription without channel stays on the default channel under Semver",
			doc: subHead + semverA + "spec: {name: demo-operator}\n", want: []string{"demo-operator.v0.2.1"}},
		{name: "cluster-wide Semver keeps a subscription on its default channel",
			doc: subHead + "spec: {name: demo-operator}\n", policy: subscription.Semver, want: []string{"demo-operator.v0.2.1"}},
		{name: "subscription upgrades one hop per resolution by default",
			doc:  subHead + "spec: {name: demo-operator}\nstatus: {installedCSV: demo-operator.v0.1.0}\n",
			want: []string{"demo-operator.v0.2.0", "demo-operator.v0.2.1"}},
		{name: "subscription follows the replaces chain by default",
			doc:  subHead + "spec: {name: skippy}\nstatus: {installedCSV: skippy.v1.0.0}\n",
			want: nil},
		{name: "subscription with a Semver annotation takes any direct edge",
			doc:  subHead + semverA + "spec: {name: skippy}\nstatus: {installedCSV: skippy.v1.0.0}\n",
			want: []string{"skippy.v2.0.0", "skippy.v3.0.0"}},
		{name: "startingCSV is installed first by default",
			doc:  subHead + "spec: {name: demo-operator, startingCSV: demo-operator.v0.1.0}\n",
			want: []string{"demo-operator.v0.1.0", "demo-operator.v0.2.0", "demo-operator.v0.2.1"}},
		{name: "startingCSV is installed first under Semver",
			doc:  subHead + semverA + "spec: {name: demo-operator, startingCSV: demo-operator.v0.1.0}\n",
			want: []string{"demo-operator.v0.1.0", "demo-operator.v0.2.0", "demo-operator.v0.2.1"}},
		{name: "a startingCSV no channel holds is refused under Semver",
			doc:     subHead + semverA + "spec: {name: demo-operator, startingCSV: demo-operator.v0.0.9}\n",
			wantErr: "no operators found with name demo-operator.v0.0.9 in channel  of package demo-operator in the catalog referenced by subscription demo"},
		{name: "a startingCSV outside the named channel is refused under Semver",
			doc:     subHead + semverA + "spec: {name: demo-operator, channel: candidate, startingCSV: demo-operator.v0.1.0}\n",
			wantErr: "no operators found with name demo-operator.v0.1.0 in channel candidate"},
		{name: "a startingCSV outside the named channel is refused by default",
			doc:     subHead + "spec: {name: demo-operator, channel: candidate, startingCSV: demo-operator.v0.1.0}\n",
			wantErr: "no operators found with name demo-operator.v0.1.0 in channel candidate"},
		{name: "startingCSV means nothing once installed",
			doc:  subHead + semverA + "spec: {name: demo-operator, startingCSV: demo-operator.v0.1.0}\nstatus: {installedCSV: demo-operator.v0.2.0}\n",
			want: []string{"demo-operator.v0.2.1"}},
		{name: "cluster extension without channel takes any channel, highest first",
			doc: ceHead + ceSpec, want: []string{"demo-operator.v0.3.0"}},
		{name: "cluster extension follows a cluster-wide Classic",
			doc: ceHead + ceSpec, policy: subscription.Classic, want: []string{"demo-operator.v0.2.1"}},
	}
	cats := demoCatalogs(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			intents, err := subscription.Parse("sub.yaml", []byte(tt.doc))
			if err != nil || len(intents) != 1 {
				t.Fatalf("Parse = %v, %v", intents, err)
			}
			path, err := resolver.UpgradePath(cats, intents[0].Request(tt.policy))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("UpgradePath error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range path {
				got = append(got, h.Edge.To)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("path = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestIntentErrorsCarryPosition: whatever goes wrong with one subscription
// (no such package, channel or catalog; a bad range) names its file and
// line, so `olmops plan --check` annotates the right line.
func TestIntentErrorsCarryPosition(t *testing.T) {
	for _, tc := range []struct{ name, spec, want string }{
		{"missing package", "spec: {name: nope}\n", "sub.yaml:1: no operators found in package nope"},
		{"missing channel", "spec: {name: demo-operator, channel: beta}\n", "sub.yaml:1: no operators found in channel beta"},
		{"missing catalog", "spec: {name: demo-operator, source: other, sourceNamespace: olm}\n",
			"sub.yaml:1: no operators found from catalog other in namespace olm referenced by subscription demo"},
		{"bad range", "spec: {name: demo-operator}\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			intents, err := subscription.Parse("sub.yaml", []byte(subHead+tc.spec))
			if err != nil {
				t.Fatal(err)
			}
			req := intents[0].Request("")
			if tc.name == "bad range" {
				req.VersionRange, tc.want = ">>1", "sub.yaml:1: subscription demo:"
			}
			_, err = resolver.Resolve(t.Context(), resolver.Namespace{Catalogs: demoCatalogs(t), Subscriptions: []resolver.Subscription{{Request: req}}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Resolve error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func selCatalog(t *testing.T, name string, priority int, version string, lbls map[string]string) *catalog.Catalog {
	t.Helper()
	doc := "schema: olm.package\nname: sel\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: sel\nname: stable\nentries: [{name: sel.v" + version + "}]\n---\nschema: olm.bundle\npackage: sel\nname: sel.v" + version + "\nimage: example.com/sel:v" + version + "\nproperties: [{type: olm.package, value: {packageName: sel, version: " + version + "}}]\n"
	cfg, err := fbc.Decode(name+".yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := catalog.New(name, cfg)
	c.Priority, c.Labels = priority, lbls
	return c
}

// TestIntentCatalogSelector pins issue 15 item 4: a ClusterExtension's
// catalog selector (matchLabels and matchExpressions, Kubernetes' rules)
// chooses among the catalogs by their labels and the implicit name label;
// an invalid selector is a path:line error.
func TestIntentCatalogSelector(t *testing.T) {
	cats := []*catalog.Catalog{
		selCatalog(t, "internal", 0, "0.1.0", map[string]string{"tier": "internal"}),
		selCatalog(t, "community", 5, "0.2.0", nil),
		selCatalog(t, "z", 10, "0.3.0", map[string]string{"tier": "edge"}),
	}
	spec := func(selector string) string {
		return ceHead + "spec:\n  namespace: ns\n  serviceAccount: {name: installer}\n  source:\n    sourceType: Catalog\n    catalog:\n      packageName: sel\n" + selector
	}
	for _, tc := range []struct{ name, selector, want, wantErr string }{
		{name: "no selector: highest priority", want: "sel.v0.3.0"},
		{name: "NotIn excludes a catalog by name",
			selector: "      selector:\n        matchExpressions: [{key: olm.operatorframework.io/metadata.name, operator: NotIn, values: [z]}]\n",
			want:     "sel.v0.2.0"},
		{name: "matchLabels on a catalog label",
			selector: "      selector: {matchLabels: {tier: internal}}\n", want: "sel.v0.1.0"},
		{name: "DoesNotExist on a catalog label",
			selector: "      selector:\n        matchExpressions: [{key: tier, operator: DoesNotExist}]\n", want: "sel.v0.2.0"},
		{name: "matchLabels and matchExpressions AND",
			selector: "      selector:\n        matchLabels: {tier: edge}\n        matchExpressions: [{key: olm.operatorframework.io/metadata.name, operator: In, values: [internal]}]\n",
			wantErr:  "no bundles found"},
		{name: "invalid label value",
			selector: "      selector: {matchLabels: {tier: \"not valid!\"}}\n",
			wantErr:  "sel.yaml:12: ClusterExtension spec.source.catalog.selector: desired catalog selector is invalid"},
		{name: "invalid operator",
			selector: "      selector:\n        matchExpressions: [{key: tier, operator: Near, values: [x]}]\n",
			wantErr:  "sel.yaml:13: ClusterExtension spec.source.catalog.selector: desired catalog selector is invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			intents, err := subscription.Parse("sel.yaml", []byte(spec(tc.selector)))
			if err == nil {
				var res resolver.Result
				res, err = resolver.Successors(cats, intents[0].Request(""))
				if err == nil && res.Best().Name() != tc.want {
					t.Errorf("bundle = %s, want %s", res.Best().Name(), tc.want)
				}
			}
			if tc.wantErr == "" && err != nil {
				t.Fatal(err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.wantErr)
			}
		})
	}
}
