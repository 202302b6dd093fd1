package config_test

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// controllerArgs are the arguments of olmops serve in config/manager.
var controllerArgs = []string{
	"serve",
	"--leader-elect",
	"--metrics-bind-address=:8080",
	"--health-probe-bind-address=:8081",
	"--webhook-bind-address=:9292",
	"--webhook-secret-file=/etc/olmops/webhook/secret",
	"--cache-dir=/var/cache/olmops",
}

// controller returns the Deployment name of objs and its one container.
func controller(t *testing.T, objs []*unstructured.Unstructured, name string) (*appsv1.Deployment, corev1.Container) {
	t.Helper()
	var dep appsv1.Deployment
	decode(t, find(t, objs, "Deployment", name), &dep)
	if n := len(dep.Spec.Template.Spec.Containers); n != 1 {
		t.Fatalf("Deployment %s has %d containers, want 1", name, n)
	}
	return &dep, dep.Spec.Template.Spec.Containers[0]
}

func TestDeployment(t *testing.T) {
	objs := build(t, "default")
	dep, c := controller(t, objs, "olmops-controller")

	if dep.Spec.Replicas == nil || *dep.Spec.Replicas != 1 {
		t.Errorf("replicas %v, want 1", dep.Spec.Replicas)
	}
	if c.Image != "ghcr.io/olmops/olmops:latest" {
		t.Errorf("image %q, want ghcr.io/olmops/olmops:latest", c.Image)
	}
	if !slices.Equal(c.Args, controllerArgs) {
		t.Errorf("args\n%q\nwant\n%q", c.Args, controllerArgs)
	}
	find(t, objs, "ServiceAccount", dep.Spec.Template.Spec.ServiceAccountName)

	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	for flag, port := range map[string]string{
		"--metrics-bind-address":      "http-metrics",
		"--health-probe-bind-address": "healthz",
		"--webhook-bind-address":      "http-webhook",
	} {
		if got, want := flagValue(c.Args, flag), ":"+strconv.Itoa(int(ports[port])); got != want {
			t.Errorf("%s=%s, but container port %s is %s", flag, got, port, want)
		}
	}
	for _, p := range []struct {
		name  string
		probe *corev1.Probe
		path  string
	}{{"liveness", c.LivenessProbe, "/healthz"}, {"readiness", c.ReadinessProbe, "/readyz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("no HTTP %s probe", p.name)
			continue
		}
		if p.probe.HTTPGet.Path != p.path || portOf(p.probe.HTTPGet.Port, ports) != 8081 {
			t.Errorf("%s probe %s on %s, want %s on 8081", p.name, p.probe.HTTPGet.Path, p.probe.HTTPGet.Port.String(), p.path)
		}
	}
	checkService(t, objs, dep, ports)
	checkVolumes(t, dep, c)
	checkLimits(t, c)
	checkSecurity(t, dep, c)
}

// checkService checks that the Service selects the controller's pods and
// reaches the metrics and webhook ports on the same numbers.
func checkService(t *testing.T, objs []*unstructured.Unstructured, dep *appsv1.Deployment, ports map[string]int32) {
	t.Helper()
	var svc corev1.Service
	decode(t, find(t, objs, "Service", "olmops-controller"), &svc)
	if sel := labels.SelectorFromSet(svc.Spec.Selector); svc.Spec.Selector == nil || !sel.Matches(labels.Set(dep.Spec.Template.Labels)) {
		t.Errorf("Service selector %v does not select the pods %v", svc.Spec.Selector, dep.Spec.Template.Labels)
	}
	var names []string
	for _, p := range svc.Spec.Ports {
		names = append(names, p.Name)
		if got := portOf(p.TargetPort, ports); got != p.Port {
			t.Errorf("Service port %s is %d but reaches container port %d", p.Name, p.Port, got)
		}
	}
	if want := []string{"http-metrics", "http-webhook"}; !slices.Equal(names, want) {
		t.Errorf("Service ports %v, want %v", names, want)
	}
}

// checkVolumes checks that the webhook secret is optional and mounted where
// --webhook-secret-file reads, and that every path olmops writes is a
// volume (the root filesystem is read-only).
func checkVolumes(t *testing.T, dep *appsv1.Deployment, c corev1.Container) {
	t.Helper()
	volumes := map[string]corev1.Volume{}
	for _, v := range dep.Spec.Template.Spec.Volumes {
		volumes[v.Name] = v
	}
	mounts := map[string]corev1.VolumeMount{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m
	}
	secretDir := path.Dir(flagValue(c.Args, "--webhook-secret-file"))
	s := volumes[mounts[secretDir].Name].Secret
	if s == nil || s.SecretName != "olmops-webhook" || s.Optional == nil || !*s.Optional {
		t.Errorf("%s is not the optional Secret olmops-webhook: %+v", secretDir, s)
	}
	for _, dir := range []string{flagValue(c.Args, "--cache-dir"), "/tmp"} {
		m, ok := mounts[dir]
		if !ok || m.ReadOnly || volumes[m.Name].EmptyDir == nil {
			t.Errorf("%s is not a writable emptyDir", dir)
		}
	}
}

func checkLimits(t *testing.T, c corev1.Container) {
	t.Helper()
	want := corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("320Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("640Mi")},
	}
	for _, l := range []struct{ got, want corev1.ResourceList }{
		{c.Resources.Requests, want.Requests}, {c.Resources.Limits, want.Limits},
	} {
		if len(l.got) != len(l.want) {
			t.Errorf("resources %v, want %v", l.got, l.want)
		}
		for name, q := range l.want {
			if got := l.got[name]; got.Cmp(q) != 0 {
				t.Errorf("resource %s is %s, want %s", name, got.String(), q.String())
			}
		}
	}
	i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "GOMEMLIMIT" })
	if i < 0 || c.Env[i].ValueFrom == nil || c.Env[i].ValueFrom.ResourceFieldRef == nil ||
		c.Env[i].ValueFrom.ResourceFieldRef.Resource != "limits.memory" {
		t.Error("GOMEMLIMIT does not come from limits.memory")
	}
}

// checkSecurity checks the settings the restricted Pod Security Standard
// asks for, and a read-only root filesystem.
func checkSecurity(t *testing.T, dep *appsv1.Deployment, c corev1.Container) {
	t.Helper()
	pod, sc := dep.Spec.Template.Spec.SecurityContext, c.SecurityContext
	if sc == nil || pod == nil {
		t.Fatal("no pod or container securityContext")
	}
	isTrue := func(b *bool) bool { return b != nil && *b }
	seccomp := sc.SeccompProfile
	if seccomp == nil {
		seccomp = pod.SeccompProfile
	}
	for what, ok := range map[string]bool{
		"runAsNonRoot":                   isTrue(sc.RunAsNonRoot) || isTrue(pod.RunAsNonRoot),
		"readOnlyRootFilesystem":         isTrue(sc.ReadOnlyRootFilesystem),
		"allowPrivilegeEscalation=false": sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation,
		"capabilities drop ALL":          sc.Capabilities != nil && slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) && len(sc.Capabilities.Add) == 0,
		"seccompProfile RuntimeDefault":  seccomp != nil && seccomp.Type == corev1.SeccompProfileTypeRuntimeDefault,
	} {
		if !ok {
			t.Errorf("securityContext lacks %s", what)
		}
	}
}

// flagValue is the value of the last --name=value in args.
func flagValue(args []string, name string) string {
	v := ""
	for _, a := range args {
		if after, ok := strings.CutPrefix(a, name+"="); ok {
			v = after
		}
	}
	return v
}

// portOf resolves a port by number or by container port name; 0 if none.
func portOf(p intstr.IntOrString, byName map[string]int32) int32 {
	if p.Type == intstr.Int {
		return p.IntVal
	}
	return byName[p.StrVal]
}
