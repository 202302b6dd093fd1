package render

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// defaultWebhookPort is the containerPort OLM's CRD defaults a webhook to.
const defaultWebhookPort = 443

// webhooksByDeployment groups the CSV's webhook definitions by the
// deployment serving them, which must be one of the CSV's.
func webhooksByDeployment(csv *operatorsv1alpha1.ClusterServiceVersion) (map[string][]operatorsv1alpha1.WebhookDescription, error) {
	out := map[string][]operatorsv1alpha1.WebhookDescription{}
	deps := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs
	for _, w := range csv.Spec.WebhookDefinitions {
		if !slices.ContainsFunc(deps, func(d operatorsv1alpha1.StrategyDeploymentSpec) bool { return d.Name == w.DeploymentName }) {
			return nil, fmt.Errorf("webhookdefinition %s names deployment %q, which the CSV does not define", w.GenerateName, w.DeploymentName)
		}
		switch w.Type {
		case operatorsv1alpha1.ValidatingAdmissionWebhook, operatorsv1alpha1.MutatingAdmissionWebhook, operatorsv1alpha1.ConversionWebhook:
		default:
			return nil, fmt.Errorf("webhookdefinition %s has unknown type %q", w.GenerateName, w.Type)
		}
		if w.ContainerPort == 0 {
			w.ContainerPort = defaultWebhookPort
		}
		out[w.DeploymentName] = append(out[w.DeploymentName], w)
	}
	return out, nil
}

// webhookServiceName is the Service OLM puts in front of a webhook
// deployment.
func webhookServiceName(deployment string) string {
	return strings.ReplaceAll(deployment, ".", "-") + "-service"
}

// webhookSecretName is the Secret OLM keeps the serving certificate in.
func webhookSecretName(deployment string) string { return webhookServiceName(deployment) + "-cert" }

// addCertVolumes mounts the serving certificate where OLM mounts it: for
// aggregated API servers and for operator-sdk and kubebuilder webhooks.
func addCertVolumes(spec map[string]any, secret string) error {
	pod, err := pathMap(spec, "template", "spec")
	if err != nil {
		return err
	}
	for _, v := range []struct{ name, dir, crt, key string }{
		{"apiservice-cert", "/apiserver.local.config/certificates", "apiserver.crt", "apiserver.key"},
		{"webhook-cert", "/tmp/k8s-webhook-server/serving-certs", "tls.crt", "tls.key"},
	} {
		vol := map[string]any{"name": v.name, "secret": map[string]any{
			"secretName": secret,
			"items": []any{
				map[string]any{"key": "tls.crt", "path": v.crt},
				map[string]any{"key": "tls.key", "path": v.key},
			},
		}}
		if err := mergeByName(pod, "volumes", []map[string]any{vol}); err != nil {
			return err
		}
		containers, err := mapList(pod, "containers")
		if err != nil {
			return err
		}
		for _, c := range containers {
			if err := mountCert(c, v.name, v.dir); err != nil {
				return err
			}
		}
	}
	return nil
}

// mountCert keeps a mount of the same name, replaces one at the same path,
// else appends one.
func mountCert(container map[string]any, name, dir string) error {
	mounts, err := mapList(container, "volumeMounts")
	if err != nil {
		return err
	}
	mount := map[string]any{"name": name, "mountPath": dir}
	for i, m := range mounts {
		if m["name"] == name {
			return nil
		}
		if m["mountPath"] == dir {
			mounts[i] = mount
			setMapList(container, "volumeMounts", mounts)
			return nil
		}
	}
	setMapList(container, "volumeMounts", append(mounts, mount))
	return nil
}

// webhookObjects renders, for every deployment serving webhooks or owned
// APIServices, its Service, and the webhook configurations or CRD
// conversions pointing at it. The controller issues the certificate and
// injects its CA (package reconciler/certs).
func (r *renderer) webhookObjects() error {
	for _, d := range r.csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		if !r.servesCerts(d.Name) {
			continue
		}
		if err := r.servingService(d); err != nil {
			return err
		}
		for _, w := range r.webhooks[d.Name] {
			if err := r.webhook(w); err != nil {
				return fmt.Errorf("webhookdefinition %s: %w", w.GenerateName, err)
			}
		}
	}
	return nil
}

// servedPort is a port of a serving Service and the definition asking
// for it.
type servedPort struct {
	port   int32
	target intstr.IntOrString
	from   string
}

// servedPorts lists, as OLM does, the owned APIServices' ports, then the
// webhooks'.
func (r *renderer) servedPorts(deployment string) []servedPort {
	var out []servedPort
	for _, a := range apiServiceDefs(r.csv, deployment) {
		p := apiServicePort(a)
		out = append(out, servedPort{p, intstr.FromInt32(p), "apiservicedefinition " + a.Version + "." + a.Group})
	}
	for _, w := range r.webhooks[deployment] {
		target := intstr.FromInt32(w.ContainerPort)
		if w.TargetPort != nil {
			target = *w.TargetPort
		}
		out = append(out, servedPort{w.ContainerPort, target, "webhookdefinition " + w.GenerateName})
	}
	return out
}

func (r *renderer) servingService(d operatorsv1alpha1.StrategyDeploymentSpec) error {
	if d.Spec.Selector == nil || len(d.Spec.Selector.MatchLabels) == 0 {
		return fmt.Errorf("deployment %s serves webhooks or APIs but has no spec.selector.matchLabels for their Service", d.Name)
	}
	var ports []any
	for _, sp := range r.servedPorts(d.Name) {
		p, err := toJSONValue(map[string]any{"name": strconv.Itoa(int(sp.port)), "port": sp.port, "targetPort": sp.target})
		if err != nil {
			return err
		}
		if slices.ContainsFunc(ports, func(q any) bool { return jsonEqual(p, q) }) {
			continue
		}
		// OLM would create a Service the API server refuses.
		if slices.ContainsFunc(ports, func(q any) bool { return q.(map[string]any)["port"] == int64(sp.port) }) {
			return fmt.Errorf("%s: port %d is served by two target ports", sp.from, sp.port)
		}
		ports = append(ports, p)
	}
	svc := newObject("v1", "Service", r.ns, webhookServiceName(d.Name))
	selector, err := toJSONValue(d.Spec.Selector.MatchLabels)
	if err != nil {
		return err
	}
	svc.Object["spec"] = map[string]any{"ports": ports, "selector": selector}
	replaced, err := r.override(svc)
	if replaced {
		r.warnf("the bundle's Service %s/%s is replaced by the webhook Service OLM creates", r.ns, svc.GetName())
	}
	return err
}

// webhook renders one webhook definition.
func (r *renderer) webhook(w operatorsv1alpha1.WebhookDescription) error {
	if w.Type == operatorsv1alpha1.ConversionWebhook {
		return r.conversionWebhook(w)
	}
	kind, item := "ValidatingWebhookConfiguration", any(w.GetValidatingWebhook(r.ns, r.webhookNamespaceSelector(), nil))
	if w.Type == operatorsv1alpha1.MutatingAdmissionWebhook {
		kind, item = "MutatingWebhookConfiguration", w.GetMutatingWebhook(r.ns, r.webhookNamespaceSelector(), nil)
	}
	hook, err := toJSONValue(item)
	if err != nil {
		return err
	}
	cfg := newObject("admissionregistration.k8s.io/v1", kind, "", boundedName(r.pkg, r.ns, w.GenerateName))
	cfg.Object["webhooks"] = []any{hook}
	return r.add(cfg)
}

// webhookNamespaceSelector limits a webhook to the target namespaces. OLM
// selects them by a label it puts on them; the built-in name label does the
// same without OLM.
func (r *renderer) webhookNamespaceSelector() *metav1.LabelSelector {
	if r.scope.allNamespaces() {
		return nil
	}
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpIn, Values: r.scope.targets,
	}}}
}

// conversionWebhook points the owned CRDs it names at the webhook Service,
// with OLM's checks.
func (r *renderer) conversionWebhook(w operatorsv1alpha1.WebhookDescription) error {
	if !supportsOnlyAllNamespaces(r.csv) {
		return fmt.Errorf("a CSV with conversion webhooks must support only AllNamespaces")
	}
	if len(w.ConversionCRDs) == 0 {
		return fmt.Errorf("a conversion webhook must name at least one CRD")
	}
	path := "/"
	if w.WebhookPath != nil {
		path = *w.WebhookPath
	}
	for _, name := range w.ConversionCRDs {
		if !r.csv.OwnsCRD(name) {
			return fmt.Errorf("the CSV does not own CRD %s", name)
		}
		crd := r.lookup(objectID{group: "apiextensions.k8s.io", kind: "CustomResourceDefinition", name: name})
		if crd == nil {
			return fmt.Errorf("the bundle has no CustomResourceDefinition %s", name)
		}
		if keep, _, _ := unstructured.NestedBool(crd.Object, "spec", "preserveUnknownFields"); keep {
			return fmt.Errorf("CRD %s sets spec.preserveUnknownFields, which conversion webhooks forbid", name)
		}
		versions := stringsToAny(w.AdmissionReviewVersions)
		conversion := map[string]any{"strategy": "Webhook", "webhook": map[string]any{
			"clientConfig": map[string]any{"service": map[string]any{
				"namespace": r.ns, "name": webhookServiceName(w.DeploymentName), "path": path, "port": int64(w.ContainerPort),
			}},
			"conversionReviewVersions": versions,
		}}
		if err := unstructured.SetNestedField(crd.Object, conversion, "spec", "conversion"); err != nil {
			return err
		}
	}
	return nil
}

func supportsOnlyAllNamespaces(csv *operatorsv1alpha1.ClusterServiceVersion) bool {
	for _, m := range csv.Spec.InstallModes {
		if m.Supported != (m.Type == operatorsv1alpha1.InstallModeTypeAllNamespaces) {
			return false
		}
	}
	return true
}
