package v1alpha1

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoadExample(t *testing.T) {
	data, err := os.ReadFile("../../examples/olmops.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Load("olmops.yaml", data)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(r.Spec.Catalogs) != 2 || len(r.Spec.Clusters) != 2 {
		t.Fatalf("Load = %+v", r.Spec)
	}
	if c := r.Spec.Catalogs[1]; c.Name != "internal" || c.Priority != 10 || c.Path != "catalogs/internal" {
		t.Errorf("catalog internal = %+v", c)
	}
	if c := r.Spec.Clusters[0]; c.Approval != ApprovalManual || c.SuccessorPolicy != SuccessorPolicyClassic || c.TargetBranch != "main" {
		t.Errorf("cluster prod-east = %+v", c)
	}
	// Every cluster folder's cluster.yaml loads too.
	for _, c := range r.Spec.Clusters {
		data, err := os.ReadFile("../../examples/" + c.Path + "/" + ClusterFile)
		if err != nil {
			t.Fatal(err)
		}
		f, err := LoadCluster(c.Path+"/"+ClusterFile, data)
		if err != nil {
			t.Fatalf("LoadCluster: %v", err)
		}
		if f.KubernetesVersion == "" {
			t.Errorf("%s: no kubernetesVersion", c.Name)
		}
		if err := c.MergeFacts(*f); err != nil {
			t.Errorf("MergeFacts: %v", err)
		}
	}
}

func TestLoad(t *testing.T) {
	const head = "apiVersion: olmops.io/v1alpha1\nkind: Repository\n"
	got, err := Load("olmops.yaml", []byte(head+`metadata:
  name: r
  labels: {a: b}
spec:
  catalogs:
    - {name: hub, bundlesPath: bundles/hub}
  clusters:
    - name: prod
      kubernetesVersion: "1.33"
      openshiftVersion: 4.20.3
  forge:
    type: github
    owner: acme
    repo: olm
    baseURL: https://github.example.com/api/v3/
    tokenSecret: {name: gh}
    tokenEnv: GITHUB_TOKEN
  policy:
    escalations: {onAutomatic: Manual}
`))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := &RepositoryConfig{
		TypeMeta: TypeMeta{APIVersion: GroupVersion, Kind: RepositoryKind},
		Metadata: ObjectMeta{Name: "r", Labels: map[string]string{"a": "b"}},
		Spec: RepositoryConfigSpec{
			Catalogs: []Catalog{{Name: "hub", BundlesPath: "bundles/hub"}},
			Clusters: []Cluster{{Name: "prod", ClusterFacts: ClusterFacts{KubernetesVersion: "1.33", OpenShiftVersion: "4.20.3"}}},
			Forge: &Forge{Type: ForgeGitHub, Owner: "acme", Repo: "olm", BaseURL: "https://github.example.com/api/v3/",
				TokenSecret: &SecretKeyRef{Name: "gh"}, TokenEnv: "GITHUB_TOKEN"},
			Policy: Policy{Escalations: EscalationPolicy{OnAutomatic: EscalationManual}},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Load:\n got %+v\nwant %+v", got, want)
	}
	got.SetDefaults("main")
	want.Spec.Catalogs[0].Path = "catalogs/hub"
	want.Spec.Clusters[0].Path = "clusters/prod"
	want.Spec.Clusters[0].TargetBranch = "main"
	want.Spec.Clusters[0].Approval = ApprovalAutomatic
	want.Spec.Forge.TokenSecret.Key = "token"
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SetDefaults:\n got %+v\nwant %+v", got, want)
	}
}

func TestLoadErrors(t *testing.T) {
	const head = "apiVersion: olmops.io/v1alpha1\nkind: Repository\n"
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{
			name: "unknown fields",
			in:   head + "spec:\n  catalogs:\n    - name: a\n      prioriy: 1\n  Clusters: []\n  forge: {type: git, token: x}\n",
			want: []string{
				`olmops.yaml:6: unknown field "prioriy" in spec.catalogs[0]`,
				`olmops.yaml:7: unknown field "Clusters" in spec (did you mean "clusters"?)`,
				`olmops.yaml:8: unknown field "token" in spec.forge`,
			},
		},
		{
			name: "unknown top-level field and missing kind",
			in:   "apiVersion: olmops.io/v1alpha1\nspecs: {}\n",
			want: []string{
				`olmops.yaml:1: kind: must be Repository, not ""`,
				`olmops.yaml:2: unknown field "specs" in RepositoryConfig`,
			},
		},
		{
			name: "wrong types",
			in:   head + "spec:\n  catalogs:\n    name: a\n  clusters:\n    - name: b\n      kubernetesVersion: 1.30\n  forge: [github]\n",
			want: []string{
				`olmops.yaml:5: spec.catalogs must be a list, not a mapping`,
				`olmops.yaml:8: spec.clusters[0].kubernetesVersion must be a string, not a number (quote it)`,
				`olmops.yaml:9: spec.forge must be a mapping, not a list`,
			},
		},
		{
			name: "priority out of range",
			in:   head + "spec:\n  catalogs:\n    - {name: a, priority: 99999999999}\n    - {name: b, priority: high}\n",
			want: []string{
				`olmops.yaml:5: spec.catalogs[0].priority: 99999999999 is out of range`,
				`olmops.yaml:6: spec.catalogs[1].priority must be an integer, not a string`,
			},
		},
		{
			name: "names, paths and enums",
			in: head + `spec:
  catalogs:
    - name: hub
      path: ../hub
    - name: hub
      path: catalogs/x
    - name: Other_Hub
      path: catalogs/x
  clusters:
    - name: prod
      path: /abs
      targetBranch: "feature..x"
      approval: manual
      successorPolicy: semver
      openshiftVersion: four
    - path: clusters/y
`,
			want: []string{
				`olmops.yaml:6: spec.catalogs[0].path: "../hub" must be a slash-separated path relative to the repository root, without . or .. elements`,
				`olmops.yaml:7: spec.catalogs[1].name: catalog name "hub" is already used by spec.catalogs[0].name`,
				`olmops.yaml:9: spec.catalogs[2].name: catalog name "Other_Hub" must be a DNS-1123 subdomain (lowercase letters, digits, '-' and '.')`,
				`olmops.yaml:10: spec.catalogs[2].path: path "catalogs/x" is already used by spec.catalogs[1].path`,
				`olmops.yaml:13: spec.clusters[0].path: "/abs" must be a slash-separated path relative to the repository root, without . or .. elements`,
				`olmops.yaml:14: spec.clusters[0].targetBranch: "feature..x" is not a valid branch name`,
				`olmops.yaml:15: spec.clusters[0].approval: must be Automatic or Manual, not "manual"`,
				`olmops.yaml:16: spec.clusters[0].successorPolicy: must be Semver or Classic, not "semver"`,
				`olmops.yaml:17: spec.clusters[0].openshiftVersion: "four" is not a version like 4.20.3`,
				`olmops.yaml:18: spec.clusters[1].name: cluster name is required`,
			},
		},
		{
			name: "forge",
			in:   head + "spec:\n  forge:\n    type: gitlab\n    baseURL: github.example.com\n    tokenSecret: {key: t}\n    tokenEnv: GH-TOKEN\n",
			want: []string{
				`olmops.yaml:5: spec.forge.type: must be github or git, not "gitlab"`,
				`olmops.yaml:6: spec.forge.baseURL: "github.example.com" must be an absolute http(s) URL`,
				`olmops.yaml:7: spec.forge.tokenSecret.name: is required`,
				`olmops.yaml:8: spec.forge.tokenEnv: "GH-TOKEN" is not an environment variable name`,
			},
		},
		{
			name: "github forge needs owner and repo",
			in:   head + "spec:\n  forge: {type: github}\n",
			want: []string{
				`olmops.yaml:4: spec.forge.owner: is required for a github forge`,
				`olmops.yaml:4: spec.forge.repo: is required for a github forge`,
			},
		},
		{
			name: "catalog source",
			in: head + `spec:
  catalogs:
    - name: a
      source: {image: "quay.io/x/cat:v4.20", pollInterval: 10, approval: automatic}
    - name: b
      source:
        image: "Quay.io/x:y:z"
        pollInterval: 100ms
        packages: [""]
    - name: c
      source: {pollInterval: ten}
`,
			want: []string{
				`olmops.yaml:6: spec.catalogs[0].source.pollInterval must be a string, not a number (quote it)`,
				`olmops.yaml:6: spec.catalogs[0].source.approval: must be Automatic or Manual, not "automatic"`,
				`olmops.yaml:9: spec.catalogs[1].source.image: "Quay.io/x:y:z" is not an image reference: could not parse reference: Quay.io/x:y:z`,
				`olmops.yaml:10: spec.catalogs[1].source.pollInterval: 100ms is shorter than 1s`,
				`olmops.yaml:11: spec.catalogs[1].source.packages[0]: package name is required`,
				`olmops.yaml:13: spec.catalogs[2].source.image: image is required`,
				`olmops.yaml:13: spec.catalogs[2].source.pollInterval: "ten" is not a duration such as 10m`,
			},
		},
		{
			name: "escalation policy",
			in:   head + "spec:\n  policy:\n    escalations: {onAutomatic: manual}\n",
			want: []string{`olmops.yaml:5: spec.policy.escalations.onAutomatic: must be Allow, Manual or Deny, not "manual"`},
		},
		{
			name: "a type error is not reported again by validation",
			in:   head + "spec:\n  clusters:\n    - name: [prod]\n",
			want: []string{`olmops.yaml:5: spec.clusters[0].name must be a string, not a list`},
		},
		{
			name: "wrong apiVersion",
			in:   "apiVersion: olmops.io/v1\nkind: RepositoryConfig\n",
			want: []string{`olmops.yaml:1: apiVersion: must be config.olmops.io/v1alpha1, not "olmops.io/v1"`},
		},
		{
			name: "the CRD's kind under the file's group",
			in:   "apiVersion: config.olmops.io/v1alpha1\nkind: Repository\n",
			want: []string{`olmops.yaml:2: kind: must be RepositoryConfig, not "Repository"`},
		},
		{
			name: "empty",
			in:   "# nothing\n",
			want: []string{`olmops.yaml: file is empty`},
		},
		{
			name: "two documents",
			in:   head + "---\n" + head,
			want: []string{`olmops.yaml:4: only one YAML document is allowed`},
		},
		{
			name: "invalid YAML",
			in:   head + "spec:\n  catalogs: [\n",
			want: []string{`olmops.yaml:4: invalid YAML: line 4: did not find expected node content`},
		},
		{
			name: "not a mapping",
			in:   "- a\n",
			want: []string{`olmops.yaml:1: RepositoryConfig must be a mapping, not a list`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Load("olmops.yaml", []byte(tt.in))
			if err == nil {
				t.Fatalf("Load: no error, got %+v", got)
			}
			if lines := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(lines, tt.want) {
				t.Errorf("Load error:\n got %q\nwant %q", lines, tt.want)
			}
		})
	}
}

func TestLoadCluster(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    ClusterFacts
		wantErr string
	}{
		{name: "both", in: "kubernetesVersion: v1.33.2\nopenshiftVersion: 4.20.0-rc.1\n", want: ClusterFacts{KubernetesVersion: "v1.33.2", OpenShiftVersion: "4.20.0-rc.1"}},
		{name: "empty", in: "# nothing known\n"},
		{name: "unknown field", in: "kubernetesVersion: 1.33.2\nkubeVersion: 1.33.2\n", wantErr: `clusters/a/cluster.yaml:2: unknown field "kubeVersion" in cluster facts`},
		{name: "not a version", in: "kubernetesVersion: latest\n", wantErr: `clusters/a/cluster.yaml:1: kubernetesVersion: "latest" is not a version like 1.33.2`},
		{name: "invalid YAML", in: "kubernetesVersion: [\n", wantErr: `clusters/a/cluster.yaml:1: invalid YAML: line 1: did not find expected node content`},
		{name: "number", in: "openshiftVersion: 4.20\n", wantErr: `clusters/a/cluster.yaml:1: openshiftVersion must be a string, not a number (quote it)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LoadCluster("clusters/a/cluster.yaml", []byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("LoadCluster error = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("LoadCluster: %v", err)
			}
			if *got != tt.want {
				t.Errorf("LoadCluster = %+v, want %+v", *got, tt.want)
			}
		})
	}
}

func TestMergeFacts(t *testing.T) {
	c := Cluster{Name: "prod", ClusterFacts: ClusterFacts{KubernetesVersion: "1.33.2"}}
	if err := c.MergeFacts(ClusterFacts{KubernetesVersion: "1.33.2", OpenShiftVersion: "4.20.3"}); err != nil {
		t.Fatalf("MergeFacts: %v", err)
	}
	if c.OpenShiftVersion != "4.20.3" {
		t.Errorf("MergeFacts did not fill openshiftVersion: %+v", c)
	}
	err := c.MergeFacts(ClusterFacts{KubernetesVersion: "1.34.0"})
	want := `cluster "prod": kubernetesVersion is "1.33.2" in olmops.yaml but "1.34.0" in cluster.yaml`
	if err == nil || err.Error() != want {
		t.Errorf("MergeFacts = %v, want %s", err, want)
	}
}

func TestDefaults(t *testing.T) {
	fsys := fstest.MapFS{
		"catalogs/operatorhub/etcd/catalog.yaml":     {},
		"catalogs/internal/catalog.json":             {},
		"catalogs/README.md":                         {},
		"catalogs/.cache/x":                          {},
		"clusters/prod-east/subscriptions/etcd.yaml": {},
		"clusters/staging/cluster.yaml":              {},
	}
	got, err := Defaults(fsys, "main")
	if err != nil {
		t.Fatalf("Defaults: %v", err)
	}
	want := &RepositoryConfig{
		TypeMeta: TypeMeta{APIVersion: ConfigGroupVersion, Kind: ConfigKind},
		Spec: RepositoryConfigSpec{
			Catalogs: []Catalog{{Name: "internal", Path: "catalogs/internal"}, {Name: "operatorhub", Path: "catalogs/operatorhub"}},
			Clusters: []Cluster{
				{Name: "prod-east", Path: "clusters/prod-east", TargetBranch: "main", Approval: ApprovalAutomatic},
				{Name: "staging", Path: "clusters/staging", TargetBranch: "main", Approval: ApprovalAutomatic},
			},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Defaults:\n got %+v\nwant %+v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("Validate(Defaults): %v", err)
	}

	empty, err := Defaults(fstest.MapFS{}, "trunk")
	if err != nil || len(empty.Spec.Catalogs)+len(empty.Spec.Clusters) != 0 {
		t.Errorf("Defaults(empty) = %+v, %v", empty, err)
	}
}
