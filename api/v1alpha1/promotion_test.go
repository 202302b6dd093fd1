package v1alpha1

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestLoadPromotionErrors(t *testing.T) {
	const head = "apiVersion: olmops.io/v1alpha1\nkind: Repository\nspec:\n  clusters:\n"
	tests := []struct {
		name, in string
		want     []string
	}{
		{
			name: "unknown cluster, itself, twice, bad soak",
			in: head + `    - name: staging
    - name: prod
      promotion:
        after: [staging, nope, prod, staging]
        soak: 1 day
`,
			want: []string{
				`olmops.yaml:8: spec.clusters[1].promotion.after[1]: cluster "nope" is not in spec.clusters`,
				`olmops.yaml:8: spec.clusters[1].promotion.after[2]: cluster "prod" cannot follow itself`,
				`olmops.yaml:8: spec.clusters[1].promotion.after[3]: cluster "staging" is named twice`,
				`olmops.yaml:9: spec.clusters[1].promotion.soak: "1 day" is not a duration like 24h or 90m`,
			},
		},
		{
			name: "cycle",
			in: head + `    - name: a
      promotion: {after: [b]}
    - name: b
      promotion:
        after:
          - a
        soak: -1h
`,
			want: []string{
				`olmops.yaml:6: spec.clusters[0].promotion.after: promotion cycle: a follows, directly or not, a cluster that follows it`,
				`olmops.yaml:9: spec.clusters[1].promotion.after: promotion cycle: b follows, directly or not, a cluster that follows it`,
				`olmops.yaml:11: spec.clusters[1].promotion.soak: "-1h" is not a duration like 24h or 90m`,
			},
		},
		{
			name: "nobody to follow",
			in:   head + "    - name: a\n      promotion: {soak: 1h}\n",
			want: []string{`olmops.yaml:6: spec.clusters[0].promotion.after: name at least one cluster to follow`},
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

func TestWaves(t *testing.T) {
	const in = `apiVersion: olmops.io/v1alpha1
kind: Repository
spec:
  clusters:
    - name: prod
      promotion: {after: [canary, staging], soak: 24h}
    - name: canary
      promotion: {after: [staging], soak: 90m}
    - name: staging
    - name: lab
`
	repo, err := Load("olmops.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"staging": 1, "lab": 1, "canary": 2, "prod": 3}
	if got := repo.Waves(); !reflect.DeepEqual(got, want) {
		t.Errorf("Waves() = %v, want %v", got, want)
	}
	if got := repo.Spec.Clusters[0].Promotion.SoakTime(); got != 24*time.Hour {
		t.Errorf("prod soak = %v, want 24h", got)
	}
}
