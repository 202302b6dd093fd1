package subscription

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"

	yaml "go.yaml.in/yaml/v3"
)

// OperatorGroupAPIVersion is the apiVersion of an OLM classic OperatorGroup.
const OperatorGroupAPIVersion = "operators.coreos.com/v1"

// OperatorGroup is an OLM classic OperatorGroup kept beside the
// Subscriptions of its namespace: it says which namespaces the namespace's
// operators watch. Without one, an operator watches all namespaces when
// its bundle supports that, else its own namespace.
type OperatorGroup struct {
	// Name and Namespace are metadata.name and metadata.namespace.
	Name, Namespace string
	// TargetNamespaces is spec.targetNamespaces; empty means all
	// namespaces.
	TargetNamespaces []string
	// Pos is where the object starts.
	Pos Pos
}

// Objects are the objects of a cluster's subscriptions folder.
type Objects struct {
	// Intents sorted by namespace, name and kind.
	Intents []Intent
	// OperatorGroups sorted by namespace; at most one per namespace.
	OperatorGroups []OperatorGroup
}

// OperatorGroup returns the OperatorGroup of namespace, nil when there is
// none.
func (o *Objects) OperatorGroup(namespace string) *OperatorGroup {
	for i := range o.OperatorGroups {
		if o.OperatorGroups[i].Namespace == namespace {
			return &o.OperatorGroups[i]
		}
	}
	return nil
}

// LoadObjects is LoadDir that also returns the OperatorGroups. Two
// OperatorGroups in one namespace are an error, as in OLM.
func LoadObjects(ctx context.Context, fsys fs.FS, dir string) (*Objects, error) {
	var groups []OperatorGroup
	intents, err := loadDir(ctx, fsys, dir, &groups)
	sort.SliceStable(groups, func(a, b int) bool { return groups[a].Namespace < groups[b].Namespace })
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	for i := 1; i < len(groups); i++ {
		if g, prev := groups[i], groups[i-1]; g.Namespace == prev.Namespace {
			errs = append(errs, &Error{Pos: g.Pos, Msg: fmt.Sprintf("namespace %s already has OperatorGroup %s at %s: OLM allows one per namespace", g.Namespace, prev.Name, prev.Pos)})
		}
	}
	return &Objects{Intents: intents, OperatorGroups: groups}, errors.Join(errs...)
}

func (d *decoder) operatorGroup(n *yaml.Node) OperatorGroup {
	d.lines[""] = n.Line
	g := OperatorGroup{Pos: d.pos(n)}
	top := d.fields(n, "", "apiVersion", "kind", "metadata", "spec", "status")
	m := d.fields(top["metadata"], "metadata", append([]string{"name", "namespace", "labels", "annotations"}, serverMetadata...)...)
	g.Name = d.str(m["name"], "metadata.name")
	g.Namespace = d.str(m["namespace"], "metadata.namespace")
	d.stringMap(m["labels"], "metadata.labels")
	d.stringMap(m["annotations"], "metadata.annotations")
	spec := d.fields(top["spec"], "spec", "targetNamespaces", "selector", "serviceAccountName", "staticProvidedAPIs", "upgradeStrategy")
	g.TargetNamespaces = d.strs(spec["targetNamespaces"], "spec.targetNamespaces")
	if spec["selector"] != nil {
		d.errorf(spec["selector"], "OperatorGroup spec.selector is not supported: olmops renders for a known set of namespaces; list them in spec.targetNamespaces")
	}
	if spec["serviceAccountName"] != nil {
		d.errorf(spec["serviceAccountName"], "OperatorGroup spec.serviceAccountName is not supported: olmops applies with its own service account")
	}
	d.fields(top["status"], "status", "namespaces", "lastUpdated", "conditions", "serviceAccountRef")
	if g.Name == "" {
		d.errorf(n, "OperatorGroup metadata.name is required")
	}
	if g.Namespace == "" {
		d.errorf(n, "OperatorGroup metadata.namespace is required")
	}
	return g
}
