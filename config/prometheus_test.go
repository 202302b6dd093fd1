package config_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olmops/olmops/reconciler"
	"github.com/olmops/olmops/reconciler/planning"
)

// TestPrometheus checks config/prometheus: the ServiceMonitor scrapes the
// controller Service's metrics port, each alert the issue asks for is
// there, and every metric named in an alert or a dashboard panel is one
// the controllers register (a renamed metric must not leave an alert that
// never fires).
func TestPrometheus(t *testing.T) {
	objs := build(t, "prometheus")
	known := registeredMetrics(t)

	sm := find(t, objs, "ServiceMonitor", "olmops-controller")
	svc := find(t, build(t, "default"), "Service", "olmops-controller")
	var spec struct {
		Selector struct {
			MatchLabels map[string]string `json:"matchLabels"`
		} `json:"selector"`
		Endpoints []struct {
			Port string `json:"port"`
		} `json:"endpoints"`
	}
	specOf(t, sm, &spec)
	for k, v := range spec.Selector.MatchLabels {
		if svc.GetLabels()[k] != v {
			t.Errorf("the ServiceMonitor selects %s=%s, which the Service lacks: %v", k, v, svc.GetLabels())
		}
	}
	var service corev1.Service
	decode(t, svc, &service)
	var ports []string
	for _, p := range service.Spec.Ports {
		ports = append(ports, p.Name)
	}
	if len(spec.Endpoints) != 1 || !slices.Contains(ports, spec.Endpoints[0].Port) || spec.Endpoints[0].Port != "http-metrics" {
		t.Errorf("the ServiceMonitor scrapes %+v; the Service's ports are %v", spec.Endpoints, ports)
	}

	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert string `json:"alert"`
				Expr  string `json:"expr"`
			} `json:"rules"`
		} `json:"groups"`
	}
	specOf(t, find(t, objs, "PrometheusRule", "olmops"), &rules)
	var alerts []string
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			alerts = append(alerts, r.Alert)
			checkExpr(t, "alert "+r.Alert, r.Expr, known)
		}
	}
	for _, want := range []string{"OlmopsRepositoryNotReady", "OlmopsUpgradeHeld", "OlmopsHopFailed", "OlmopsPlannerNotReady"} {
		if !slices.Contains(alerts, want) {
			t.Errorf("no alert %s in %v", want, alerts)
		}
	}

	cm := find(t, objs, "ConfigMap", "olmops-dashboard")
	if cm.GetLabels()["grafana_dashboard"] != "1" {
		t.Errorf("the dashboard ConfigMap lacks grafana_dashboard=1: %v", cm.GetLabels())
	}
	data, _, _ := unstructured.NestedString(cm.Object, "data", "olmops.json")
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal([]byte(data), &dash); err != nil || len(dash.Panels) == 0 {
		t.Fatalf("dashboard: %v (%d panels)", err, len(dash.Panels))
	}
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			checkExpr(t, "panel "+p.Title, tg.Expr, known)
		}
	}
}

// specOf decodes obj's spec, a kind this module has no Go type for.
func specOf(t *testing.T, obj *unstructured.Unstructured, into any) {
	t.Helper()
	data, err := json.Marshal(obj.Object["spec"])
	if err == nil {
		err = json.Unmarshal(data, into)
	}
	if err != nil {
		t.Fatalf("%s %s: %v", obj.GetKind(), obj.GetName(), err)
	}
}

// descRecorder is a Registerer that keeps the names of what is registered
// with it: a vector without series yet is named all the same.
type descRecorder struct{ names map[string]bool }

var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

func (r *descRecorder) Register(c prometheus.Collector) error {
	ch := make(chan *prometheus.Desc, 16)
	go func() { c.Describe(ch); close(ch) }()
	for d := range ch {
		if m := fqName.FindStringSubmatch(d.String()); m != nil {
			r.names[m[1]] = true
		}
	}
	return nil
}

func (r *descRecorder) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		_ = r.Register(c)
	}
}

func (r *descRecorder) Unregister(prometheus.Collector) bool { return true }

// registeredMetrics are the series names the controllers export,
// histograms' _bucket, _sum and _count included.
func registeredMetrics(t *testing.T) map[string]bool {
	t.Helper()
	rec := &descRecorder{names: map[string]bool{}}
	if _, err := reconciler.NewMetrics(rec); err != nil {
		t.Fatal(err)
	}
	if _, err := planning.NewMetrics(rec); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for n := range rec.names {
		out[n] = true
		for _, s := range []string{"_bucket", "_sum", "_count"} {
			out[n+s] = true
		}
	}
	return out
}

var (
	promStrings  = regexp.MustCompile(`"[^"]*"`)
	promMatchers = regexp.MustCompile(`\{[^}]*\}|\[[^\]]*\]`)
	promGrouping = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent    = regexp.MustCompile(`[A-Za-z_:][A-Za-z0-9_:]*`)
	promWords    = map[string]bool{
		"sum": true, "count": true, "min": true, "max": true, "avg": true, "rate": true, "increase": true,
		"histogram_quantile": true, "vector": true, "or": true, "and": true, "unless": true, "bool": true,
	}
)

// checkExpr fails on an expression that names a metric the controllers do
// not register, or none at all, or whose brackets do not balance. It is
// no PromQL parser: promtool and the Prometheus module are not in the
// build, and the expressions here are simple.
func checkExpr(t *testing.T, where, expr string, known map[string]bool) {
	t.Helper()
	for _, pair := range []string{"()", "{}", "[]"} {
		if strings.Count(expr, pair[:1]) != strings.Count(expr, pair[1:]) {
			t.Errorf("%s: unbalanced %s in %q", where, pair, expr)
		}
	}
	rest := promGrouping.ReplaceAllString(promMatchers.ReplaceAllString(promStrings.ReplaceAllString(expr, ""), ""), "")
	metrics := 0
	for _, id := range promIdent.FindAllString(rest, -1) {
		switch {
		case promWords[id]:
		case known[id]:
			metrics++
		default:
			t.Errorf("%s: %q is no metric olmops registers (nor a function this check knows): %q", where, id, expr)
		}
	}
	if metrics == 0 {
		t.Errorf("%s names no olmops metric: %q", where, expr)
	}
}
