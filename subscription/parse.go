package subscription

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/olmops/olmops/catalog/yamllimit"
	"io"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/olmops/olmops/resolver"
)

// API versions olmops reads intent from.
const (
	// SubscriptionAPIVersion is the apiVersion of an OLM classic Subscription.
	SubscriptionAPIVersion = "operators.coreos.com/v1alpha1"
	// ClusterExtensionAPIVersion is the apiVersion of an OLM v1 ClusterExtension.
	ClusterExtensionAPIVersion = "olm.operatorframework.io/v1"
)

// Fields of metadata the API server writes; accepted and ignored so that
// `kubectl get -o yaml` output reads cleanly.
var serverMetadata = []string{
	"generateName", "uid", "resourceVersion", "generation", "creationTimestamp",
	"deletionTimestamp", "deletionGracePeriodSeconds", "ownerReferences",
	"finalizers", "managedFields", "selfLink",
}

// Parse reads every Subscription and ClusterExtension of a YAML stream (one
// or more documents; JSON is YAML too). path names the file in errors.
//
// It returns the intents that read cleanly and every problem found, joined;
// each problem is an *Error carrying the line it is about. Empty documents
// are skipped.
func Parse(path string, data []byte) ([]Intent, error) {
	return parse(path, data, nil)
}

// parse is Parse that also reads OperatorGroups into groups when groups is
// not nil (else they are an error).
func parse(path string, data []byte, groups *[]OperatorGroup) ([]Intent, error) {
	var (
		intents []Intent
		errs    []error
	)
	if err := yamllimit.Check(path, data, yamllimit.Limits{}); err != nil {
		return nil, limitError(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if err == io.EOF {
			break
		}
		if err != nil {
			// The decoder cannot resynchronise after a syntax error.
			errs = append(errs, &Error{Pos: Pos{File: path, Line: yamlErrLine(err)}, Msg: "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")})
			break
		}
		if len(doc.Content) == 0 || isNull(resolve(doc.Content[0])) {
			continue
		}
		if groups != nil && isOperatorGroup(doc.Content[0]) {
			d := &decoder{path: path, lines: map[string]int{}}
			g := d.operatorGroup(resolve(doc.Content[0]))
			if len(d.errs) > 0 {
				errs = append(errs, d.errs...)
				continue
			}
			*groups = append(*groups, g)
			continue
		}
		in, objErrs := parseObject(path, doc.Content[0])
		if len(objErrs) > 0 {
			errs = append(errs, objErrs...)
			continue
		}
		intents = append(intents, in)
	}
	return intents, errors.Join(errs...)
}

// yamlErrLine pulls the line out of a yaml.v3 error ("yaml: line 12: ...").
func yamlErrLine(err error) int {
	var line int
	if _, e := fmt.Sscanf(err.Error(), "yaml: line %d:", &line); e == nil {
		return line
	}
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		fmt.Sscanf(te.Errors[0], "line %d:", &line)
	}
	return line
}

func parseObject(path string, n *yaml.Node) (Intent, []error) {
	d := &decoder{path: path, lines: map[string]int{}}
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		d.errorf(n, "document must be a Kubernetes object (a mapping), not %s", kindNameOrNil(n))
		return Intent{}, d.errs
	}
	// Read apiVersion and kind first: they decide the schema of the rest.
	var apiVersion, kind string
	var kindNode *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolve(n.Content[i])
		if k == nil {
			continue
		}
		switch k.Value {
		case "apiVersion":
			apiVersion = d.str(n.Content[i+1], "apiVersion")
		case "kind":
			kindNode = n.Content[i+1]
			kind = d.str(kindNode, "kind")
		}
	}
	if len(d.errs) > 0 {
		return Intent{}, d.errs
	}
	in := Intent{Pos: d.pos(n), UpgradeConstraintPolicy: CatalogProvided}
	switch {
	case kind == "":
		d.errorf(n, "kind is required (Subscription or ClusterExtension)")
	case kind == string(KindSubscription) && apiVersion == SubscriptionAPIVersion:
		d.kind, in.Kind = KindSubscription, KindSubscription
		d.subscription(n, &in)
	case kind == string(KindClusterExtension) && apiVersion == ClusterExtensionAPIVersion:
		d.kind, in.Kind = KindClusterExtension, KindClusterExtension
		d.clusterExtension(n, &in)
	case kind == string(KindSubscription):
		d.errorf(n, "Subscription apiVersion must be %s, not %q", SubscriptionAPIVersion, apiVersion)
	case kind == string(KindClusterExtension):
		d.errorf(n, "ClusterExtension apiVersion must be %s, not %q", ClusterExtensionAPIVersion, apiVersion)
	default:
		d.errorf(kindNode, "kind %q is not Subscription or ClusterExtension", kind)
	}
	if d.kind != "" {
		d.errs = append(d.errs, in.validate(d.at)...)
	}
	sort.SliceStable(d.errs, func(a, b int) bool {
		return d.errs[a].(*Error).Pos.Line < d.errs[b].(*Error).Pos.Line
	})
	return in, d.errs
}

// isOperatorGroup tells an operators.coreos.com/v1 OperatorGroup document.
func isOperatorGroup(n *yaml.Node) bool {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return false
	}
	var apiVersion, kind string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k == nil || v == nil || v.Kind != yaml.ScalarNode {
			continue
		}
		switch k.Value {
		case "apiVersion":
			apiVersion = v.Value
		case "kind":
			kind = v.Value
		}
	}
	return kind == "OperatorGroup" && apiVersion == OperatorGroupAPIVersion
}

func kindNameOrNil(n *yaml.Node) string {
	if n == nil {
		return "an alias loop"
	}
	return kindName(n)
}

// at returns the position of a field, or of its closest ancestor present
// in the file; false when the field already has a type error.
func (d *decoder) at(field string) (Pos, bool) {
	for f := field; f != ""; {
		if d.bad[f] {
			return Pos{}, false
		}
		i := strings.LastIndexByte(f, '.')
		if i < 0 {
			break
		}
		f = f[:i]
	}
	return d.lineOf(field), true
}

func (d *decoder) lineOf(field string) Pos {
	for f := field; f != ""; {
		if line, ok := d.lines[f]; ok {
			return Pos{File: d.path, Line: line}
		}
		i := strings.LastIndexByte(f, '.')
		if i < 0 {
			break
		}
		f = f[:i]
	}
	return Pos{File: d.path, Line: d.lines[""]}
}

// metadata reads metadata and the olmops.io/ annotations.
func (d *decoder) metadata(n *yaml.Node, in *Intent) (namespace string) {
	m := d.fields(n, "metadata", append([]string{"name", "namespace", "labels", "annotations"}, serverMetadata...)...)
	in.Name = d.str(m["name"], "metadata.name")
	namespace = d.str(m["namespace"], "metadata.namespace")
	d.stringMap(m["labels"], "metadata.labels")
	ann := d.stringMap(m["annotations"], "metadata.annotations")
	keys := make([]string, 0, len(ann))
	for k := range ann {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := ann[k]
		field := "metadata.annotations." + k
		switch {
		case k == AnnotationApproval:
			if in.Kind == KindSubscription {
				d.errorf(d.node(field), "annotation %s is for ClusterExtensions; a Subscription sets spec.installPlanApproval", k)
				continue
			}
			in.Approval = Approval(v)
		case k == AnnotationSuccessorPolicy:
			in.Policy = Policy(v)
		case strings.HasPrefix(k, "olmops.io/"):
			d.errorf(d.node(field), "unknown annotation %q (olmops reads %s and %s)", k, AnnotationApproval, AnnotationSuccessorPolicy)
		}
	}
	return namespace
}

// node returns a stand-in node carrying a recorded field's line.
func (d *decoder) node(field string) *yaml.Node {
	return &yaml.Node{Line: d.lineOf(field).Line}
}

func (d *decoder) subscription(n *yaml.Node, in *Intent) {
	d.lines[""] = n.Line
	top := d.fields(n, "", "apiVersion", "kind", "metadata", "spec", "status")
	in.Namespace = d.metadata(top["metadata"], in)

	spec := d.fields(top["spec"], "spec", "name", "channel", "source", "sourceNamespace", "startingCSV", "installPlanApproval", "config")
	in.Package = d.str(spec["name"], "spec.name")
	if ch := d.str(spec["channel"], "spec.channel"); ch != "" {
		in.Channels = []string{ch}
	}
	in.Catalog = d.str(spec["source"], "spec.source")
	in.CatalogNamespace = d.str(spec["sourceNamespace"], "spec.sourceNamespace")
	in.StartingCSV = d.str(spec["startingCSV"], "spec.startingCSV")
	in.Approval = Approval(d.str(spec["installPlanApproval"], "spec.installPlanApproval"))
	in.Config = d.rawMap(spec["config"], "spec.config")

	status := d.fields(top["status"], "status", "currentCSV", "installedCSV", "state", "reason",
		"conditions", "catalogHealth", "lastUpdated", "installPlanRef", "installplan", "installPlanGeneration")
	in.CurrentCSV = d.str(status["currentCSV"], "status.currentCSV")
	if csv := d.str(status["installedCSV"], "status.installedCSV"); csv != "" {
		in.Installed = &Installed{Bundle: csv}
	}
}

func (d *decoder) clusterExtension(n *yaml.Node, in *Intent) {
	d.lines[""] = n.Line
	top := d.fields(n, "", "apiVersion", "kind", "metadata", "spec", "status")
	if ns := d.metadata(top["metadata"], in); ns != "" {
		d.errorf(d.node("metadata.namespace"), "ClusterExtension is cluster-scoped: set spec.namespace, not metadata.namespace")
	}

	spec := d.fields(top["spec"], "spec", "namespace", "serviceAccount", "source", "install", "config", "progressDeadlineMinutes")
	in.Namespace = d.str(spec["namespace"], "spec.namespace")
	sa := d.fields(spec["serviceAccount"], "spec.serviceAccount", "name")
	in.ServiceAccount = d.str(sa["name"], "spec.serviceAccount.name")
	d.integer(spec["progressDeadlineMinutes"], "spec.progressDeadlineMinutes")

	if spec["source"] == nil {
		d.errorf(d.node("spec"), "ClusterExtension spec.source is required")
	}
	src := d.fields(spec["source"], "spec.source", "sourceType", "catalog", "ociImage")
	switch st := d.str(src["sourceType"], "spec.source.sourceType"); st {
	case "Catalog":
	case "":
		if spec["source"] != nil {
			d.errorf(spec["source"], "ClusterExtension spec.source.sourceType is required (Catalog)")
		}
	default:
		d.errorf(src["sourceType"], "ClusterExtension spec.source.sourceType %q is not supported: olmops resolves from catalogs (Catalog)", st)
	}
	cat := d.fields(src["catalog"], "spec.source.catalog", "packageName", "channels", "version", "upgradeConstraintPolicy", "selector")
	in.Package = d.str(cat["packageName"], "spec.source.catalog.packageName")
	in.Channels = d.strs(cat["channels"], "spec.source.catalog.channels")
	in.VersionRange = d.str(cat["version"], "spec.source.catalog.version")
	if p := d.str(cat["upgradeConstraintPolicy"], "spec.source.catalog.upgradeConstraintPolicy"); p != "" {
		in.UpgradeConstraintPolicy = UpgradeConstraintPolicy(p)
	}
	in.CatalogSelector = d.rawMap(cat["selector"], "spec.source.catalog.selector")
	if _, err := resolver.ParseCatalogSelector(in.CatalogSelector); err != nil {
		d.errorf(cat["selector"], "ClusterExtension spec.source.catalog.selector: %v", err)
	}
	if ml, ok := in.CatalogSelector["matchLabels"].(map[string]any); ok {
		in.Catalog, _ = ml[resolver.CatalogNameLabel].(string)
	}

	install := d.fields(spec["install"], "spec.install", "preflight")
	preflight := d.fields(install["preflight"], "spec.install.preflight", "crdUpgradeSafety")
	crd := d.fields(preflight["crdUpgradeSafety"], "spec.install.preflight.crdUpgradeSafety", "enforcement")
	switch e := Enforcement(d.str(crd["enforcement"], "spec.install.preflight.crdUpgradeSafety.enforcement")); e {
	case "", None, Strict:
		in.CRDUpgradeSafety = e
	default:
		d.errorf(crd["enforcement"], "ClusterExtension spec.install.preflight.crdUpgradeSafety.enforcement must be None or Strict, not %q", e)
	}

	cfg := d.fields(spec["config"], "spec.config", "configType", "inline")
	if ct := d.str(cfg["configType"], "spec.config.configType"); ct != "" && ct != "Inline" {
		d.errorf(cfg["configType"], "ClusterExtension spec.config.configType must be Inline, not %q", ct)
	}
	in.Config = d.rawMap(cfg["inline"], "spec.config.inline")

	status := d.fields(top["status"], "status", "conditions", "install", "activeRevisions")
	inst := d.fields(status["install"], "status.install", "bundle")
	bundle := d.fields(inst["bundle"], "status.install.bundle", "name", "version", "release")
	name := d.str(bundle["name"], "status.install.bundle.name")
	version := d.str(bundle["version"], "status.install.bundle.version")
	d.str(bundle["release"], "status.install.bundle.release")
	if name != "" || version != "" {
		in.Installed = &Installed{Bundle: name, Version: version}
	}
}

// limitError keeps a yamllimit refusal in this package's Error, which
// annotations read.
func limitError(err error) error {
	var le *yamllimit.Error
	if errors.As(err, &le) {
		return &Error{Pos: Pos{File: le.Path, Line: le.Line}, Msg: le.Msg}
	}
	return err
}
