package render

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// The synthetic deployment before any config: what each case changes.
const syntheticPod = `
volumes:
- {name: data, emptyDir: {}}
tolerations:
- {key: existing, operator: Exists}
affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 1
      podAffinityTerm: {topologyKey: kubernetes.io/hostname}
nodeSelector: {disk: ssd}
`

func TestRenderConfig(t *testing.T) {
	tests := []struct {
		name string
		// config is spec.config as YAML.
		config string
		// path into the deployment and the YAML expected there.
		path []string
		want string
	}{
		{"volumes replaced by name, else appended",
			`volumes: [{name: data, configMap: {name: cm}}, {name: extra, emptyDir: {}}]`,
			[]string{"spec", "template", "spec", "volumes"},
			"- configMap:\n    name: cm\n  name: data\n- emptyDir: {}\n  name: extra"},
		{"volume mounts in every container",
			`volumeMounts: [{name: extra, mountPath: /extra}]`,
			[]string{"spec", "template", "spec", "containers"},
			"sidecar-mounts"},
		{"tolerations appended unless present",
			`tolerations: [{key: existing, operator: Exists}, {key: gpu, operator: Equal, value: "true", effect: NoSchedule, tolerationSeconds: 30}]`,
			[]string{"spec", "template", "spec", "tolerations"},
			"- key: existing\n  operator: Exists\n- effect: NoSchedule\n  key: gpu\n  operator: Equal\n  tolerationSeconds: 30\n  value: \"true\""},
		{"resources replaced in every container",
			`resources: {limits: {memory: 1Gi}}`,
			[]string{"spec", "template", "spec", "containers"},
			"resources"},
		{"node selector replaced",
			`nodeSelector: {kubernetes.io/os: linux}`,
			[]string{"spec", "template", "spec", "nodeSelector"},
			"kubernetes.io/os: linux"},
		{"empty node selector clears",
			`nodeSelector: {}`,
			[]string{"spec", "template", "spec", "nodeSelector"},
			"{}"},
		{"affinity replaced part by part",
			`affinity: {podAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 2, podAffinityTerm: {topologyKey: zone}}]}, nodeAffinity: {}}`,
			[]string{"spec", "template", "spec", "affinity"},
			"podAffinity:\n  preferredDuringSchedulingIgnoredDuringExecution:\n  - podAffinityTerm:\n      topologyKey: zone\n    weight: 2\npodAntiAffinity:\n  preferredDuringSchedulingIgnoredDuringExecution:\n  - podAffinityTerm:\n      topologyKey: kubernetes.io/hostname\n    weight: 1"},
		{"empty affinity removes it",
			`affinity: {}`,
			[]string{"spec", "template", "spec", "affinity"},
			"<none>"},
		{"env from appended unless present",
			`envFrom: [{configMapRef: {name: cm}}, {configMapRef: {name: cm}}]`,
			[]string{"spec", "template", "spec", "containers"},
			"envFrom"},
		{"annotations never override",
			`annotations: {capabilities: mine, team: a}`,
			[]string{"spec", "template", "metadata", "annotations"},
			"annotations"},
		{"selector is ignored",
			`selector: {matchLabels: {a: b}}`,
			[]string{"spec", "selector"},
			"matchLabels:\n  app: demo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg map[string]any
			if err := yaml.Unmarshal([]byte(tt.config), &cfg); err != nil {
				t.Fatal(err)
			}
			b := synthetic(t, withPod(t, syntheticPod))
			res := mustRender(t, b, Options{Namespace: "ops", Config: cfg})
			dep := mustFind(t, res.Objects, "Deployment", "ops", "demo-operator")
			switch tt.want {
			case "sidecar-mounts":
				for name, c := range containers(t, dep, "containers") {
					if got := yamlOf(t, c["volumeMounts"]); got != "- mountPath: /extra\n  name: extra" {
						t.Errorf("%s volumeMounts = %s", name, got)
					}
				}
			case "resources":
				for name, c := range containers(t, dep, "containers") {
					if got := yamlOf(t, c["resources"]); got != "limits:\n  memory: 1Gi" {
						t.Errorf("%s resources = %s", name, got)
					}
				}
			case "envFrom":
				for name, c := range containers(t, dep, "containers") {
					if got := yamlOf(t, c["envFrom"]); got != "- configMapRef:\n    name: cm" {
						t.Errorf("%s envFrom = %s", name, got)
					}
				}
			case "annotations":
				if got := field(t, dep, "metadata", "annotations"); got != "capabilities: mine\nteam: a" {
					t.Errorf("deployment annotations = %s", got)
				}
				for k, want := range map[string]string{"capabilities": "Basic Install", "team": "a"} {
					if got := field(t, dep, append(tt.path, k)...); got != want {
						t.Errorf("pod annotation %s = %s, want %s", k, got, want)
					}
				}
			default:
				if got := field(t, dep, tt.path...); got != tt.want {
					t.Errorf("%s =\n%s\nwant\n%s", strings.Join(tt.path, "."), got, tt.want)
				}
			}
			if (tt.name == "selector is ignored") != (len(res.Warnings) == 1) {
				t.Errorf("warnings = %q", res.Warnings)
			}
		})
	}
}

func TestRenderConfigErrors(t *testing.T) {
	tests := []struct {
		name   string
		config map[string]any
		want   string
	}{
		{"unknown key", map[string]any{"envs": []any{}}, `unknown field "envs"`},
		{"unknown nested field", map[string]any{"env": []any{map[string]any{"name": "A", "valeu": "x"}}}, `unknown field "valeu"`},
		{"wrong type", map[string]any{"nodeSelector": []any{"a"}}, "cannot unmarshal array"},
		{"env without name", map[string]any{"env": []any{map[string]any{"value": "x"}}}, "env[0]: name is required"},
		{"volume without name", map[string]any{"volumes": []any{map[string]any{"emptyDir": map[string]any{}}}}, "volumes[0]: name is required"},
		{"mount without path", map[string]any{"volumeMounts": []any{map[string]any{"name": "a"}}}, "volumeMounts[0]: name and mountPath are required"},
		{"not JSON", map[string]any{"env": func() {}}, "unsupported type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Render(synthetic(t, nil), Options{Namespace: "ops", Config: tt.config})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// Typed values work as config too: callers may hold corev1 types.
func TestRenderConfigTyped(t *testing.T) {
	cfg := map[string]any{"env": []corev1.EnvVar{{Name: "A", Value: "1"}}}
	res := mustRender(t, synthetic(t, nil), Options{Namespace: "ops", Config: cfg})
	c := containers(t, mustFind(t, res.Objects, "Deployment", "ops", "demo-operator"), "containers")["manager"]
	if env := strings.Join(envNames(c), ","); !strings.Contains(env, "A=1") {
		t.Errorf("env = %s", env)
	}
}

// withPod merges YAML fields into the synthetic deployment's pod spec.
func withPod(tb testing.TB, pod string) func(map[string]any) {
	return func(csv map[string]any) {
		var fields map[string]any
		if err := yaml.Unmarshal([]byte(pod), &fields); err != nil {
			tb.Fatal(err)
		}
		d := installSpecOf(csv)["deployments"].([]any)[0].(map[string]any)
		spec := d["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
		for k, v := range fields {
			spec[k] = v
		}
	}
}

func yamlOf(tb testing.TB, v any) string {
	tb.Helper()
	data, err := yaml.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}
