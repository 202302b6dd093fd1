package render

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// powerfulRoles are the built-in ClusterRoles a binding to which grants
// (nearly) everything in its scope.
var powerfulRoles = []string{"cluster-admin", "admin", "edit", "system:masters"}

// riskyVerbs let their holder gain permissions it was not given.
var riskyVerbs = []string{"bind", "escalate", "impersonate"}

// Escalations lists what the objects in after grant that those in before
// did not: wildcard, bind/escalate/impersonate and secret-reading rules,
// bindings to powerful built-in roles, privileged or host-namespace pods,
// hostPath volumes, and admission webhooks and APIServices, which see or
// serve other components' requests. Each entry names its object; the list
// is sorted. It is what a reviewer must not miss in a manifest change.
func Escalations(before, after []*unstructured.Unstructured) []string {
	had := map[string]bool{}
	for _, u := range before {
		for _, e := range escalationsOf(u) {
			had[e] = true
		}
	}
	var out []string
	for _, u := range after {
		for _, e := range escalationsOf(u) {
			if !had[e] {
				had[e] = true
				out = append(out, e)
			}
		}
	}
	slices.Sort(out)
	return out
}

func escalationsOf(u *unstructured.Unstructured) []string {
	if u == nil {
		return nil
	}
	ref := refOfObject(u).String()
	switch u.GetKind() {
	case "ClusterRole", "Role":
		return ruleEscalations(ref, u)
	case "ClusterRoleBinding", "RoleBinding":
		if name, _, _ := unstructured.NestedString(u.Object, "roleRef", "name"); slices.Contains(powerfulRoles, name) {
			return []string{fmt.Sprintf("%s binds the built-in role %s", ref, name)}
		}
	case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
		return []string{ref + " intercepts API requests"}
	case "APIService":
		return []string{ref + " serves an API group"}
	}
	if spec := podSpec(u); spec != nil {
		return podEscalations(ref, spec)
	}
	return nil
}

func ruleEscalations(ref string, u *unstructured.Unstructured) []string {
	rules, _, _ := unstructured.NestedSlice(u.Object, "rules")
	var out []string
	for _, r := range rules {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		verbs, _, _ := unstructured.NestedStringSlice(m, "verbs")
		groups, _, _ := unstructured.NestedStringSlice(m, "apiGroups")
		resources, _, _ := unstructured.NestedStringSlice(m, "resources")
		if slices.Contains(verbs, "*") || slices.Contains(resources, "*") || slices.Contains(groups, "*") {
			out = append(out, fmt.Sprintf("%s has a wildcard rule (apiGroups %v, resources %v, verbs %v)", ref, groups, resources, verbs))
		}
		for _, v := range riskyVerbs {
			if slices.Contains(verbs, v) {
				out = append(out, fmt.Sprintf("%s may %s (resources %v)", ref, v, resources))
			}
		}
	}
	return out
}

// podSpec is the pod template's spec of a workload, or a Pod's spec.
func podSpec(u *unstructured.Unstructured) map[string]any {
	var path []string
	switch u.GetKind() {
	case "Pod":
		path = []string{"spec"}
	case "Deployment", "DaemonSet", "StatefulSet", "ReplicaSet", "Job":
		path = []string{"spec", "template", "spec"}
	case "CronJob":
		path = []string{"spec", "jobTemplate", "spec", "template", "spec"}
	default:
		return nil
	}
	spec, _, _ := unstructured.NestedMap(u.Object, path...)
	return spec
}

func podEscalations(ref string, spec map[string]any) []string {
	var out []string
	for _, f := range []string{"hostNetwork", "hostPID", "hostIPC"} {
		if on, _, _ := unstructured.NestedBool(spec, f); on {
			out = append(out, fmt.Sprintf("%s uses %s", ref, f))
		}
	}
	volumes, _, _ := unstructured.NestedSlice(spec, "volumes")
	for _, v := range volumes {
		if m, ok := v.(map[string]any); ok {
			if p, found, _ := unstructured.NestedString(m, "hostPath", "path"); found {
				out = append(out, fmt.Sprintf("%s mounts the host path %s", ref, p))
			}
		}
	}
	for _, list := range []string{"initContainers", "containers", "ephemeralContainers"} {
		containers, _, _ := unstructured.NestedSlice(spec, list)
		for _, c := range containers {
			m, ok := c.(map[string]any)
			if !ok {
				continue
			}
			name, _ := m["name"].(string)
			if priv, _, _ := unstructured.NestedBool(m, "securityContext", "privileged"); priv {
				out = append(out, fmt.Sprintf("%s runs container %s privileged", ref, name))
			}
			if caps, _, _ := unstructured.NestedStringSlice(m, "securityContext", "capabilities", "add"); slices.ContainsFunc(caps, func(c string) bool {
				return strings.EqualFold(c, "SYS_ADMIN") || strings.EqualFold(c, "ALL")
			}) {
				out = append(out, fmt.Sprintf("%s gives container %s the capabilities %v", ref, name, caps))
			}
		}
	}
	return out
}
