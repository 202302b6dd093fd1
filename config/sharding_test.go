package config_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

const shardKey = "sharding.olmops.io/key"

// TestSharding checks that every Repository is reconciled by exactly one
// controller of config/sharding, and that the shard is a separate set of
// pods the main Service does not reach.
func TestSharding(t *testing.T) {
	objs := build(t, "sharding")
	main, mainC := controller(t, objs, "olmops-controller")
	shard, shardC := controller(t, objs, "olmops-controller-shard1")

	for name, c := range map[string]corev1.Container{main.Name: mainC, shard.Name: shardC} {
		n := len(controllerArgs)
		if len(c.Args) != n+1 || !slices.Equal(c.Args[:n], controllerArgs) {
			t.Errorf("%s args %q, want %q and one --watch-label-selector", name, c.Args, controllerArgs)
		}
	}
	mainSel := selector(t, mainC)
	shardSel := selector(t, shardC)
	for _, repo := range []struct {
		labels          labels.Set
		toMain, toShard bool
	}{
		{labels: nil, toMain: true},
		{labels: labels.Set{"team": "a"}, toMain: true},
		{labels: labels.Set{shardKey: "shard1"}, toShard: true},
		{labels: labels.Set{shardKey: "shard2"}},
	} {
		if got := mainSel.Matches(repo.labels); got != repo.toMain {
			t.Errorf("main controller reconciles a Repository labelled %v: %v, want %v", repo.labels, got, repo.toMain)
		}
		if got := shardSel.Matches(repo.labels); got != repo.toShard {
			t.Errorf("shard1 reconciles a Repository labelled %v: %v, want %v", repo.labels, got, repo.toShard)
		}
	}

	mainPods, err := metav1.LabelSelectorAsSelector(main.Spec.Selector)
	if err != nil {
		t.Fatal(err)
	}
	if mainPods.Matches(labels.Set(shard.Spec.Template.Labels)) {
		t.Errorf("the main Deployment's selector %v also selects shard1's pods", main.Spec.Selector)
	}
	var svc corev1.Service
	decode(t, find(t, objs, "Service", "olmops-controller"), &svc)
	if labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(shard.Spec.Template.Labels)) {
		t.Error("the Service reaches shard1's pods")
	}
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.GetKind()]++
	}
	if kinds["Namespace"] != 1 || kinds["Service"] != 1 || kinds["Deployment"] != 2 {
		t.Errorf("config/sharding holds %v, want one Namespace, one Service, two Deployments", kinds)
	}
}

// selector parses the container's --watch-label-selector.
func selector(t *testing.T, c corev1.Container) labels.Selector {
	t.Helper()
	s := flagValue(c.Args, "--watch-label-selector")
	if s == "" {
		t.Fatalf("%s has no --watch-label-selector", c.Name)
	}
	sel, err := labels.Parse(s)
	if err != nil {
		t.Fatalf("--watch-label-selector=%s: %v", s, err)
	}
	return sel
}
