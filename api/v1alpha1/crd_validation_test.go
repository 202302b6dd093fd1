package v1alpha1_test

import (
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The spec goes in as a user would write it (strings, not Go durations),
// so that malformed values reach the API server's validation.
func TestRepositorySpecValidation(t *testing.T) {
	tests := []struct {
		name string
		edit func(spec map[string]any)
		// want is "" when the object is valid, else text the error must
		// contain (the field path, and the message when it is ours).
		want []string
	}{
		{name: "minimal", edit: func(map[string]any) {}},
		{name: "scp-like url", edit: set("url", "git@github.com:acme/gitops.git")},
		{name: "ssh url", edit: set("url", "ssh://git@git.example.com:2222/acme/gitops.git")},
		{name: "compound interval", edit: set("interval", "1h30m")},
		{name: "interval of one second", edit: set("interval", "1s")},
		{name: "git forge without owner", edit: set("forge", map[string]any{"type": "git"})},
		{name: "github forge", edit: set("forge", map[string]any{"type": "github", "owner": "acme", "repo": "gitops"})},

		{name: "interval in words", edit: set("interval", "5 minutes"), want: []string{"spec.interval", "should match"}},
		{name: "interval without unit", edit: set("interval", "300"), want: []string{"spec.interval", "should match"}},
		{name: "zero interval", edit: set("interval", "0s"), want: []string{"spec.interval", "must be at least 1s"}},
		{name: "interval below a second", edit: set("interval", "500ms"), want: []string{"spec.interval", "must be at least 1s"}},
		{name: "negative health timeout", edit: set("healthTimeout", "-1m"), want: []string{"spec.healthTimeout"}},
		{name: "zero health timeout", edit: set("healthTimeout", "0s"), want: []string{"spec.healthTimeout", "must be at least 1s"}},
		{name: "zero timeout", edit: set("timeout", "0s"), want: []string{"spec.timeout", "must be at least 1s"}},
		{name: "unknown forge type", edit: set("forge", map[string]any{"type": "gitlab"}), want: []string{"spec.forge.type", `"github", "git"`}},
		{name: "forge without type", edit: set("forge", map[string]any{"owner": "acme"}), want: []string{"spec.forge.type", "Required"}},
		{name: "github forge without repo", edit: set("forge", map[string]any{"type": "github", "owner": "acme"}),
			want: []string{"spec.forge", "owner and repo are required for a github forge"}},
		{name: "forge base URL not a URL", edit: set("forge", map[string]any{"type": "git", "baseURL": "github.example.com"}),
			want: []string{"spec.forge.baseURL"}},
		{name: "ftp url", edit: set("url", "ftp://git.example.com/gitops.git"), want: []string{"spec.url"}},
		{name: "url with a space", edit: set("url", "https://git.example.com/a b.git"), want: []string{"spec.url"}},
		{name: "cluster not DNS-1123", edit: set("cluster", "Prod_East"), want: []string{"spec.cluster"}},
		{name: "no cluster", edit: func(s map[string]any) { delete(s, "cluster") }, want: []string{"spec.cluster", "Required"}},
		{name: "no url", edit: func(s map[string]any) { delete(s, "url") }, want: []string{"spec.url", "Required"}},
		{name: "branch with a space", edit: set("branch", "my branch"), want: []string{"spec.branch"}},
		{name: "secretRef without name", edit: set("secretRef", map[string]any{}), want: []string{"spec.secretRef.name", "Required"}},
		{name: "verify HEAD", edit: set("verify", map[string]any{"mode": "HEAD", "secretRef": map[string]any{"name": "keys"}})},
		{name: "verify mode defaulted", edit: set("verify", map[string]any{"secretRef": map[string]any{"name": "keys"}})},
		{name: "verify without a Secret", edit: set("verify", map[string]any{"mode": "HEAD"}), want: []string{"spec.verify.secretRef", "Required"}},
		{name: "verify mode Tag", edit: set("verify", map[string]any{"mode": "Tag", "secretRef": map[string]any{"name": "keys"}}),
			want: []string{"spec.verify.mode", `"HEAD"`}},
		{name: "prune not a boolean", edit: set("prune", "yes"), want: []string{"spec.prune", "boolean"}},
	}
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := map[string]any{"url": "https://git.example.com/acme/gitops.git", "cluster": "prod-east"}
			tt.edit(spec)
			u := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "olmops.io/v1alpha1",
				"kind":       "Repository",
				"metadata":   map[string]any{"namespace": ns, "name": fmt.Sprintf("spec-%d", i)},
				"spec":       spec,
			}}
			err := env.Client.Create(t.Context(), u)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("a valid Repository was refused: %v", err)
				}
				return
			}
			checkInvalid(t, err, tt.want...)
		})
	}
}

func set(field string, value any) func(map[string]any) {
	return func(spec map[string]any) { spec[field] = value }
}

// checkInvalid fails unless err is the API server's Invalid error and
// mentions every one of want.
func checkInvalid(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted, want an Invalid error mentioning %q", want)
	}
	if !apierrors.IsInvalid(err) {
		t.Fatalf("error %v is not Invalid", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}
