package v1alpha1

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func samplePlan() *InstallPlan {
	return &InstallPlan{
		APIVersion: GroupVersion, Kind: InstallPlanKind,
		Metadata: PlanMeta{Name: "etcd", Namespace: "operators"},
		Spec: InstallPlanSpec{
			Cluster:         "prod-east",
			Subscription:    PlanSubscription{Kind: "Subscription", File: "clusters/prod-east/subscriptions/etcd.yaml"},
			Package:         "etcd",
			Approval:        ApprovalManual,
			SuccessorPolicy: SuccessorPolicyClassic,
			From:            &PlanBundle{Name: "etcdoperator.v0.9.0", Version: "0.9.0"},
			To:              PlanBundle{Name: "etcdoperator.v0.9.4", Version: "0.9.4"},
			Path: []PlanHop{
				{PlanBundle: PlanBundle{Name: "etcdoperator.v0.9.2", Version: "0.9.2"}, Channel: "singlenamespace-alpha", Edge: "replaces", Manifests: "hops/01-etcdoperator.v0.9.2"},
				{PlanBundle: PlanBundle{Name: "etcdoperator.v0.9.4", Version: "0.9.4"}, Channel: "singlenamespace-alpha", Edge: "skipRange", SkipRange: "<0.9.4", Manifests: "manifests"},
			},
			Catalog:         PlanCatalog{Name: "operatorhub", Digest: "sha256:00"},
			Warnings:        []string{"ChannelDeprecated alpha: use stable"},
			InputsDigest:    "sha256:11",
			ManifestsDigest: "sha256:22",
			OlmopsVersion:   "v0.1.0",
		},
	}
}

func TestInstallPlanRoundTrip(t *testing.T) {
	p := samplePlan()
	a, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := samplePlan().Marshal()
	if !bytes.Equal(a, b) {
		t.Fatal("the same plan marshals to different bytes")
	}
	if !bytes.HasPrefix(a, []byte("apiVersion: olmops.io/v1alpha1\nkind: InstallPlan\nmetadata:\n  name: etcd\n")) {
		t.Errorf("fields out of order:\n%s", a)
	}
	back, err := LoadInstallPlan("installplan.yaml", a)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, p) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, p)
	}
}

// A ClusterExtension's plan names its service account; the plans of the
// other kinds do not, and their bytes stay as they were before the field.
func TestInstallPlanServiceAccount(t *testing.T) {
	sub, _ := samplePlan().Marshal()
	if bytes.Contains(sub, []byte("serviceAccount")) {
		t.Errorf("a Subscription's plan mentions a service account:\n%s", sub)
	}
	p := samplePlan()
	p.Spec.Subscription = PlanSubscription{Kind: KindClusterExtension, File: "ce.yaml", ServiceAccount: "etcd-installer"}
	data, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("  subscription:\n    kind: ClusterExtension\n    file: ce.yaml\n    serviceAccount: etcd-installer\n")) {
		t.Errorf("no service account under spec.subscription:\n%s", data)
	}
	back, err := LoadInstallPlan("installplan.yaml", data)
	if err != nil || back.Spec.Subscription.ServiceAccount != "etcd-installer" {
		t.Errorf("round trip: %v, %+v", err, back)
	}
}

func TestLoadInstallPlanRefuses(t *testing.T) {
	good, _ := samplePlan().Marshal()
	tests := []struct {
		name, from, to, want string
	}{
		{"unknown field", "  package: etcd\n", "  package: etcd\n  pakage: etcd\n", "p.yaml:12: "},
		{"wrong approval", "approval: Manual", "approval: Sometimes", "spec.approval: must be Automatic or Manual"},
		{"last hop is not to", "- name: etcdoperator.v0.9.4", "- name: etcdoperator.v0.9.3", "the last hop must be spec.to"},
		{"manifests escapes", "manifests: manifests", "manifests: ../x", "must be a folder inside the plan's folder"},
		{"no to", "to:\n    name: etcdoperator.v0.9.4", "to:\n    version: x", "spec.to.name: is required"},
		{"service account of a Subscription", "    file: clusters", "    serviceAccount: installer\n    file: clusters",
			"spec.subscription.serviceAccount: is only for a ClusterExtension"},
		{"service account that is no name", "kind: Subscription\n", "kind: ClusterExtension\n    serviceAccount: \"x:y\"\n",
			`spec.subscription.serviceAccount: "x:y" is not a service account name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := strings.Replace(string(good), tt.from, tt.to, 1)
			if data == string(good) {
				t.Fatalf("test edit %q not found in\n%s", tt.from, good)
			}
			_, err := LoadInstallPlan("p.yaml", []byte(data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
