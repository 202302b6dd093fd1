package subscription

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Intent
	}{
		{
			name: "subscription",
			in: `apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata:
  name: etcd
  namespace: etcd-system
  labels: {team: storage}
  annotations:
    olmops.io/successor-policy: Classic
    example.com/other: x
spec:
  name: etcd
  channel: stable
  source: operatorhub
  sourceNamespace: olm
  startingCSV: etcdoperator.v0.9.2
  installPlanApproval: Manual
  config:
    env:
      - name: LOG_LEVEL
        value: debug
    resources:
      limits: {cpu: 100m, memory: 1}
    nodeSelector:
      disk: ssd
status:
  currentCSV: etcdoperator.v0.9.4
  installedCSV: etcdoperator.v0.9.2
  state: UpgradePending
`,
			want: []Intent{{
				Kind: KindSubscription, Name: "etcd", Namespace: "etcd-system", Package: "etcd",
				Channels: []string{"stable"}, Catalog: "operatorhub", CatalogNamespace: "olm",
				Approval: Manual, UpgradeConstraintPolicy: CatalogProvided, Policy: Classic,
				StartingCSV: "etcdoperator.v0.9.2",
				Config: map[string]any{
					"env":          []any{map[string]any{"name": "LOG_LEVEL", "value": "debug"}},
					"resources":    map[string]any{"limits": map[string]any{"cpu": "100m", "memory": int64(1)}},
					"nodeSelector": map[string]any{"disk": "ssd"},
				},
				Installed:  &Installed{Bundle: "etcdoperator.v0.9.2"},
				CurrentCSV: "etcdoperator.v0.9.4",
				Pos:        Pos{File: "f.yaml", Line: 1},
			}},
		},
		{
			name: "cluster extension",
			in: `apiVersion: olm.operatorframework.io/v1
kind: ClusterExtension
metadata:
  name: etcd
  annotations:
    olmops.io/approval: Manual
spec:
  namespace: etcd-system
  serviceAccount:
    name: etcd-installer
  source:
    sourceType: Catalog
    catalog:
      packageName: etcd
      channels: [fast, stable]
      version: ">=0.9.0 <1.0.0"
      upgradeConstraintPolicy: SelfCertified
      selector:
        matchLabels:
          olm.operatorframework.io/metadata.name: operatorhub
  install:
    preflight:
      crdUpgradeSafety:
        enforcement: None
  config:
    configType: Inline
    inline:
      watchNamespace: etcd
status:
  install:
    bundle:
      name: etcdoperator.v0.9.4
      version: 0.9.4
`,
			want: []Intent{{
				Kind: KindClusterExtension, Name: "etcd", Namespace: "etcd-system", Package: "etcd",
				Channels: []string{"fast", "stable"}, VersionRange: ">=0.9.0 <1.0.0", Catalog: "operatorhub",
				CatalogSelector: map[string]any{"matchLabels": map[string]any{"olm.operatorframework.io/metadata.name": "operatorhub"}},
				Approval:        Manual, UpgradeConstraintPolicy: SelfCertified, ServiceAccount: "etcd-installer",
				CRDUpgradeSafety: None,
				Config:           map[string]any{"watchNamespace": "etcd"},
				Installed:        &Installed{Bundle: "etcdoperator.v0.9.4", Version: "0.9.4"},
				Pos:              Pos{File: "f.yaml", Line: 1},
			}},
		},
		{
			name: "multi-document with empty documents and JSON",
			in: `---
# nothing here
---
apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata: {name: a, namespace: ns}
spec: {name: pkg-a}
---
{"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterExtension",
 "metadata": {"name": "b"},
 "spec": {"namespace": "ns", "source": {"sourceType": "Catalog", "catalog": {"packageName": "pkg-b"}}}}
...
`,
			want: []Intent{
				{Kind: KindSubscription, Name: "a", Namespace: "ns", Package: "pkg-a", UpgradeConstraintPolicy: CatalogProvided, Pos: Pos{File: "f.yaml", Line: 4}},
				{Kind: KindClusterExtension, Name: "b", Namespace: "ns", Package: "pkg-b", UpgradeConstraintPolicy: CatalogProvided, Pos: Pos{File: "f.yaml", Line: 9}},
			},
		},
		{
			name: "empty file",
			in:   "# just a comment\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse("f.yaml", []byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse:\n got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	const sub = "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\n"
	const ce = "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\n"
	tests := []struct {
		name string
		in   string
		want []string // the lines of the joined error, in order
	}{
		{
			name: "unknown field in spec",
			in:   sub + "metadata: {name: a, namespace: ns}\nspec:\n  name: etcd\n  chanel: stable\n",
			want: []string{`f.yaml:6: unknown field "chanel" in Subscription spec`},
		},
		{
			name: "unknown fields everywhere, all reported",
			in:   sub + "metadata:\n  name: a\n  namespace: ns\n  nmae: x\nspec:\n  name: etcd\n  config: {anything: [goes]}\n  foo: 1\nstatu: {}\n",
			want: []string{
				`f.yaml:6: unknown field "nmae" in Subscription metadata`,
				`f.yaml:10: unknown field "foo" in Subscription spec`,
				`f.yaml:11: unknown field "statu" in Subscription`,
			},
		},
		{
			name: "unknown field deep in a ClusterExtension",
			in:   ce + "metadata: {name: a}\nspec:\n  namespace: ns\n  source:\n    sourceType: Catalog\n    catalog:\n      packageName: etcd\n      channel: stable\n",
			want: []string{`f.yaml:10: unknown field "channel" in ClusterExtension spec.source.catalog`},
		},
		{
			name: "wrong types",
			in:   sub + "metadata: {name: a, namespace: ns}\nspec:\n  name: [etcd]\n  channel: 5\n  config: [x]\n",
			want: []string{
				`f.yaml:5: Subscription spec.name must be a string, not a list`,
				`f.yaml:6: Subscription spec.channel must be a string, not a number`,
				`f.yaml:7: Subscription spec.config must be a mapping, not a list`,
			},
		},
		{
			name: "missing package, namespace and name",
			in:   sub + "metadata: {}\nspec:\n  channel: stable\n",
			want: []string{
				`f.yaml:3: Subscription metadata.name is required`,
				`f.yaml:3: Subscription metadata.namespace is required`,
				`f.yaml:4: Subscription spec.name (the package name) is required`,
			},
		},
		{
			name: "invalid names",
			in:   ce + "metadata: {name: Etcd_1}\nspec:\n  namespace: etcd.system\n  source: {sourceType: Catalog, catalog: {packageName: etcd}}\n",
			want: []string{
				`f.yaml:3: ClusterExtension metadata.name "Etcd_1" must be a DNS-1123 subdomain (lowercase letters, digits, '-' and '.')`,
				`f.yaml:5: ClusterExtension spec.namespace "etcd.system" must be a DNS-1123 label (lowercase letters, digits and '-', at most 63)`,
			},
		},
		{
			name: "invalid approval and policy",
			in:   sub + "metadata:\n  name: a\n  namespace: ns\n  annotations:\n    olmops.io/successor-policy: semver\n    olmops.io/sucessor-policy: Classic\nspec:\n  name: etcd\n  installPlanApproval: Auto\n",
			want: []string{
				`f.yaml:7: Subscription annotation olmops.io/successor-policy must be Semver or Classic, not "semver"`,
				`f.yaml:8: unknown annotation "olmops.io/sucessor-policy" (olmops reads olmops.io/approval and olmops.io/successor-policy)`,
				`f.yaml:11: Subscription spec.installPlanApproval must be Automatic or Manual, not "Auto"`,
			},
		},
		{
			name: "approval annotation on a Subscription",
			in:   sub + "metadata:\n  name: a\n  namespace: ns\n  annotations: {olmops.io/approval: Manual}\nspec: {name: etcd}\n",
			want: []string{`f.yaml:6: annotation olmops.io/approval is for ClusterExtensions; a Subscription sets spec.installPlanApproval`},
		},
		{
			name: "invalid ClusterExtension enums",
			in:   ce + "metadata: {name: a, annotations: {olmops.io/approval: manual}}\nspec:\n  namespace: ns\n  source:\n    sourceType: OCIImage\n    catalog: {packageName: etcd, upgradeConstraintPolicy: Never}\n",
			want: []string{
				`f.yaml:3: ClusterExtension annotation olmops.io/approval must be Automatic or Manual, not "manual"`,
				`f.yaml:7: ClusterExtension spec.source.sourceType "OCIImage" is not supported: olmops resolves from catalogs (Catalog)`,
				`f.yaml:8: ClusterExtension spec.source.catalog.upgradeConstraintPolicy must be CatalogProvided or SelfCertified, not "Never"`,
			},
		},
		{
			name: "ClusterExtension without source",
			in:   ce + "metadata: {name: a}\nspec:\n  namespace: ns\n",
			want: []string{
				`f.yaml:4: ClusterExtension spec.source is required`,
				`f.yaml:4: ClusterExtension spec.source.catalog.packageName (the package name) is required`,
			},
		},
		{
			name: "ClusterExtension with metadata.namespace",
			in:   ce + "metadata: {name: a, namespace: ns}\nspec:\n  namespace: ns\n  source: {sourceType: Catalog, catalog: {packageName: etcd}}\n",
			want: []string{`f.yaml:3: ClusterExtension is cluster-scoped: set spec.namespace, not metadata.namespace`},
		},
		{
			name: "other kinds",
			in:   "apiVersion: v1\nkind: ConfigMap\n---\napiVersion: operators.coreos.com/v1\nkind: Subscription\n---\nkind: 5\n---\nmetadata: {}\n---\n- a list\n",
			want: []string{
				`f.yaml:2: kind "ConfigMap" is not Subscription or ClusterExtension`,
				`f.yaml:4: Subscription apiVersion must be operators.coreos.com/v1alpha1, not "operators.coreos.com/v1"`,
				`f.yaml:7: kind must be a string, not a number`,
				`f.yaml:9: kind is required (Subscription or ClusterExtension)`,
				`f.yaml:11: document must be a Kubernetes object (a mapping), not a list`,
			},
		},
		{
			name: "duplicate field",
			in:   sub + "metadata: {name: a, namespace: ns}\nspec:\n  name: etcd\n  name: etcd2\n",
			want: []string{`f.yaml:6: duplicate field "name" in Subscription spec`},
		},
		{
			name: "invalid YAML",
			in:   sub + "metadata: {name: a, namespace: ns}\nspec:\n  name: etcd\n channel: x\n",
			want: []string{`f.yaml:5: invalid YAML: line 5: did not find expected key`},
		},
		{
			name: "config JSON cannot hold",
			in:   sub + "metadata: {name: a, namespace: ns}\nspec:\n  name: etcd\n  config:\n    env:\n      - value: .inf\n        {a: b}: c\n",
			want: []string{
				`f.yaml:8: Subscription spec.config.env[0].value: ".inf" is not a number JSON can hold`,
				`f.yaml:9: Subscription spec.config.env[0] has a key that is not a string`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse("f.yaml", []byte(tt.in))
			if err == nil {
				t.Fatalf("Parse: no error, got %+v", got)
			}
			if len(got) != 0 {
				t.Errorf("Parse returned intents for a broken document: %+v", got)
			}
			if lines := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(lines, tt.want) {
				t.Errorf("Parse error:\n got %q\nwant %q", lines, tt.want)
			}
		})
	}
}

func TestParseKeepsGoodDocuments(t *testing.T) {
	in := "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: a, namespace: ns}\nspec: {name: etcd}\n---\nkind: Deployment\n"
	got, err := Parse("f.yaml", []byte(in))
	if err == nil || len(got) != 1 || got[0].Name != "a" {
		t.Fatalf("Parse = %+v, %v; want the Subscription and an error", got, err)
	}
}

func TestIntentDefaults(t *testing.T) {
	in := Intent{}
	if got := in.ApprovalOr(""); got != Automatic {
		t.Errorf("ApprovalOr(\"\") = %s, want Automatic", got)
	}
	if got := in.ApprovalOr(Manual); got != Manual {
		t.Errorf("ApprovalOr(Manual) = %s, want Manual", got)
	}
	for kind, want := range map[Kind]Policy{KindSubscription: Classic, KindClusterExtension: Semver} {
		in := Intent{Kind: kind}
		if got := in.PolicyOr(""); got != want {
			t.Errorf("%s: PolicyOr(\"\") = %s, want %s", kind, got, want)
		}
		if got := in.PolicyOr(Semver); got != Semver {
			t.Errorf("%s: PolicyOr(Semver) = %s, want the cluster's Semver", kind, got)
		}
	}
	in = Intent{Approval: Automatic, Policy: Classic}
	if in.ApprovalOr(Manual) != Automatic || in.PolicyOr(Semver) != Classic {
		t.Errorf("the intent's own values must win")
	}
}

func TestValidate(t *testing.T) {
	in := Intent{Kind: KindSubscription, Name: "a", Namespace: "ns", Package: "p", Pos: Pos{File: "x.yaml", Line: 3}}
	if err := in.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	in.Approval, in.Namespace = "Sometimes", ""
	want := "x.yaml:3: Subscription metadata.namespace is required\nx.yaml:3: Subscription spec.installPlanApproval must be Automatic or Manual, not \"Sometimes\""
	if err := in.Validate(); err == nil || err.Error() != want {
		t.Errorf("Validate = %v, want %s", err, want)
	}
}
