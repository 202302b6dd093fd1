package plan

import (
	"bytes"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olmops/olmops/render"
	"github.com/olmops/olmops/subscription"
)

// memoFixture is catalog "c" with one bundle that supports every install
// mode, subscribed to by cluster c1.
func memoFixture() *fixture {
	f := &fixture{fs: fstest.MapFS{}}
	f.bundle("widget", "1.0.0", "", strings.Fields(allModes), widgetCRD("Widget", "              size: {type: integer}"))
	f.sub("widget", subscriptionOf("widget", "widgets", "widget")) // each test replaces it
	return f
}

// withFiles is f's tree with files added (path → content).
func withFiles(f *fixture, files map[string]string) fstest.MapFS {
	out := maps.Clone(f.fs)
	for p, data := range files {
		out[p] = &fstest.MapFile{Data: []byte(data)}
	}
	return out
}

// sibling is in with another tree: the same catalogs and bundle source
// (so the same *render.Bundle), the subscriptions and overlays of fsys.
func sibling(t *testing.T, in Input, fsys fstest.MapFS) Input {
	t.Helper()
	objs, err := subscription.LoadObjects(t.Context(), fsys, "clusters/c1/subscriptions")
	if err != nil {
		t.Fatal(err)
	}
	in.Objects, in.Repo = objs, fsys
	return in
}

// manifests are the target manifests of a cluster's only plan.
func manifests(t *testing.T, in Input) map[string][]byte {
	t.Helper()
	res, err := Cluster(t.Context(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Plans) != 1 {
		t.Fatalf("%d plans, want 1", len(res.Plans))
	}
	out := map[string][]byte{}
	for name, data := range res.Plans[0].Files {
		if strings.HasPrefix(name, "manifests/") {
			out[name] = data
		}
	}
	return out
}

// TestRendersKeyEveryInput plans two clusters that differ in exactly one
// input of rendering, sharing a memo: each must get what it gets alone. A
// key that missed the input would hand the second cluster the first's
// manifests.
func TestRendersKeyEveryInput(t *testing.T) {
	const sub = "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: widget, namespace: %s}\nspec:\n  name: widget\n  source: c\n  sourceNamespace: olm\n"
	plain := strings.Replace(sub, "%s", "widgets", 1)
	file := "clusters/c1/subscriptions/widget.yaml"
	og := "clusters/c1/subscriptions/og.yaml"
	overlay := "clusters/c1/overlays/widget/kustomization.yaml"
	tests := []struct {
		name string
		a, b map[string]string
	}{
		{"namespace", map[string]string{file: plain}, map[string]string{file: strings.Replace(sub, "%s", "gadgets", 1)}},
		{"config env", map[string]string{file: plain + "  config:\n    env: [{name: LOG, value: info}]\n"},
			map[string]string{file: plain + "  config:\n    env: [{name: LOG, value: debug}]\n"}},
		{"config resources", map[string]string{file: plain + "  config:\n    resources: {limits: {memory: 128Mi}}\n"},
			map[string]string{file: plain + "  config:\n    resources: {limits: {memory: 256Mi}}\n"}},
		{"config nodeSelector", map[string]string{file: plain},
			map[string]string{file: plain + "  config:\n    nodeSelector: {zone: east}\n"}},
		{"operatorgroup targets", map[string]string{file: plain, og: operatorGroup("og", "widgets", "widgets")},
			map[string]string{file: plain, og: operatorGroup("og", "widgets", "gadgets")}},
		{"operatorgroup more targets", map[string]string{file: plain, og: operatorGroup("og", "widgets", "widgets")},
			map[string]string{file: plain, og: operatorGroup("og", "widgets", "widgets", "gadgets")}},
		{"operatorgroup name", map[string]string{file: plain, og: operatorGroup("og", "widgets", "widgets")},
			map[string]string{file: plain, og: operatorGroup("og2", "widgets", "widgets")}},
		{"overlay", map[string]string{file: plain, overlay: "commonAnnotations: {team: a}\n"},
			map[string]string{file: plain, overlay: "commonAnnotations: {team: b}\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := memoFixture()
			base := f.input(t, nil)
			a := sibling(t, base, withFiles(f, tt.a))
			b := sibling(t, base, withFiles(f, tt.b))
			aloneA, aloneB := manifests(t, a), manifests(t, b)
			if maps.EqualFunc(aloneA, aloneB, bytes.Equal) {
				t.Fatal("the two inputs render the same: the case tests nothing")
			}
			type run struct {
				in   Input
				want map[string][]byte
			}
			for _, order := range [][]run{{{a, aloneA}, {b, aloneB}}, {{b, aloneB}, {a, aloneA}}} {
				shared := NewRenders()
				for _, r := range order {
					r.in.Renders = shared
					if got := manifests(t, r.in); !maps.EqualFunc(got, r.want, bytes.Equal) {
						t.Errorf("with a shared memo, a cluster got other manifests than alone:\n%s", diffFiles(got, r.want))
					}
				}
			}
		})
	}
}

// TestRendersHitAndShareReadOnly plans a second cluster with the same
// inputs: it must be served from the memo, get the same files, and
// leave the memo's objects and bytes as they were, overlay included.
func TestRendersHitAndShareReadOnly(t *testing.T) {
	f := memoFixture()
	sub := subscriptionOf("widget", "widgets", "widget")
	a := sibling(t, f.input(t, nil), withFiles(f, map[string]string{"clusters/c1/subscriptions/widget.yaml": sub}))
	a.Renders = NewRenders()
	first := manifests(t, a)
	if a.Renders.hits != 0 || a.Renders.misses != 1 {
		t.Fatalf("first cluster: %d hits, %d misses; want 0 and 1", a.Renders.hits, a.Renders.misses)
	}
	before := snapshot(a.Renders)

	b := a
	b.Cluster.Name = "c2"
	if got := manifests(t, b); !maps.EqualFunc(got, first, bytes.Equal) {
		t.Errorf("same inputs, other manifests:\n%s", diffFiles(got, first))
	}
	if a.Renders.hits != 1 || a.Renders.misses != 1 {
		t.Fatalf("second cluster: %d hits, %d misses; want 1 and 1", a.Renders.hits, a.Renders.misses)
	}
	c := sibling(t, a, withFiles(f, map[string]string{"clusters/c1/subscriptions/widget.yaml": sub,
		"clusters/c1/overlays/widget/kustomization.yaml": "commonAnnotations: {team: storage}\n"}))
	if got := manifests(t, c); !strings.Contains(string(got["manifests/deployment-widget-operator.yaml"]), "team: storage") {
		t.Errorf("overlay not applied after a memo hit:\n%s", got["manifests/deployment-widget-operator.yaml"])
	}
	if after := snapshot(a.Renders); !reflect.DeepEqual(before, after) {
		t.Error("planning other clusters changed what the memo hands out")
	}
}

// snapshot deep-copies what a memo holds.
func snapshot(rs *Renders) map[renderKey]renderedBundle {
	out := map[renderKey]renderedBundle{}
	for k, r := range rs.renders {
		c := renderedBundle{files: map[string][]byte{}, warnings: append([]string(nil), r.warnings...)}
		for _, o := range r.objects {
			c.objects = append(c.objects, o.DeepCopy())
		}
		for name, data := range r.files {
			c.files[name] = bytes.Clone(data)
		}
		out[k] = c
	}
	return out
}

func diffFiles(got, want map[string][]byte) string {
	var b strings.Builder
	for _, name := range sortedKeys(want) {
		if !bytes.Equal(got[name], want[name]) {
			b.WriteString("--- " + name + " got:\n" + string(got[name]) + "--- want:\n" + string(want[name]))
		}
	}
	for _, name := range sortedKeys(got) {
		if _, ok := want[name]; !ok {
			b.WriteString("--- " + name + " not wanted\n")
		}
	}
	return b.String()
}

// TestRendersParseByBytes: a parsed manifest is shared only by files with
// the same bytes.
func TestRendersParseByBytes(t *testing.T) {
	rs := NewRenders()
	parse := func(data string) []*unstructured.Unstructured {
		t.Helper()
		objs, err := rs.parse("x.yaml", []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		return objs
	}
	a := parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
	b := parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n")
	again := parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
	if a[0].GetName() != "a" || b[0].GetName() != "b" || again[0] != a[0] {
		t.Errorf("got %s, %s, %s (shared: %t)", a[0].GetName(), b[0].GetName(), again[0].GetName(), again[0] == a[0])
	}
	if _, err := rs.parse("bad.yaml", []byte("a: [")); err == nil || !strings.Contains(err.Error(), "bad.yaml") {
		t.Errorf("a broken file: %v", err)
	}
}

// TestOptionsKeyCoversEveryField fails when render.Options gains a field:
// a memo key that misses an input would hand one cluster another's
// manifests, so optionsKey must learn the new field first.
func TestOptionsKeyCoversEveryField(t *testing.T) {
	known := []string{"Namespace", "TargetNamespaces", "OperatorGroup", "Config"}
	typ := reflect.TypeFor[render.Options]()
	var fields []string
	for i := range typ.NumField() {
		fields = append(fields, typ.Field(i).Name)
	}
	if !slices.Equal(fields, known) {
		t.Fatalf("render.Options has fields %v; optionsKey encodes %v: add the new ones to optionsKey and here", fields, known)
	}
}
