package plan

import (
	"strings"
	"testing"
)

// TestOlmopsVersionOnWhatChanged: a new olmops release alone leaves a
// plan as committed; a plan that changes for another reason is written
// with the running version, in the file and in Plan.File alike.
func TestOlmopsVersionOnWhatChanged(t *testing.T) {
	f := memoFixture()
	in := f.input(t, nil)
	in.Version = "v1"
	committed := commit(t, plan(t, in))

	in.Version, in.Committed = "v2", committed
	if p := plan(t, in).Plans[0]; p.State != UpToDate || !strings.Contains(string(p.Files["installplan.yaml"]), "olmopsVersion: v1") {
		t.Errorf("nothing changed but olmops: %s\n%s", p.State, p.Files["installplan.yaml"])
	}

	f.sub("widget", "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: widget, namespace: widgets}\n"+
		"spec: {name: widget, source: c, sourceNamespace: olm, config: {env: [{name: LOG, value: debug}]}}\n")
	in = sibling(t, in, f.fs)
	p := plan(t, in).Plans[0]
	if p.State != Refresh || !strings.Contains(string(p.Files["installplan.yaml"]), "olmopsVersion: v2") || p.File.Spec.OlmopsVersion != "v2" {
		t.Errorf("config changed: %s, version %s\n%s", p.State, p.File.Spec.OlmopsVersion, p.Files["installplan.yaml"])
	}
}
