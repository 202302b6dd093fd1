package reconciler

import (
	"errors"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/reconciler/apply"
)

// Metrics are the Prometheus metrics of a Syncer. A nil *Metrics records
// nothing.
type Metrics struct {
	resolution *prometheus.HistogramVec
	apply      *prometheus.HistogramVec
	applied    *prometheus.CounterVec
	info       *prometheus.GaugeVec
	ready      *prometheus.GaugeVec

	mu sync.Mutex
	// series is the info labels last set per subscription, so a change
	// replaces the old series instead of leaving it behind.
	series map[string]prometheus.Labels
	// readySeries is the ready labels last set per Repository.
	readySeries map[string]prometheus.Labels
}

// NewMetrics creates the metrics and registers them with reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		resolution: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "olmops_resolution_duration_seconds",
			Help:    "Time to load a cluster's catalogs and check its installed bundles against them (olm.maxOpenShiftVersion).",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 9),
		}, []string{"cluster"}),
		apply: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "olmops_apply_duration_seconds",
			Help:    "Time to apply one subscription's plan, health wait included, by the phase it ended in.",
			Buckets: prometheus.ExponentialBuckets(0.005, 4, 10),
		}, []string{"cluster", "phase"}),
		applied: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "olmops_plans_applied_total",
			Help: "Plans applied that changed the cluster or did not end installed, by the phase they ended in.",
		}, []string{"cluster", "phase"}),
		info: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "olmops_subscription_info",
			Help: "One series per subscription with a plan: its installed bundle and version, its target and phase. Always 1.",
		}, []string{"repository", "cluster", "namespace", "subscription", "package", "installed", "version", "target", "phase"}),
		ready: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "olmops_repository_ready",
			Help: "1 when the Repository's Ready condition is True after its last pass, else 0 (alerts: not Ready for 15 minutes).",
		}, []string{"repository", "cluster"}),
		series:      map[string]prometheus.Labels{},
		readySeries: map[string]prometheus.Labels{},
	}
	var err error
	if m.resolution, err = register(reg, m.resolution); err != nil {
		return nil, err
	}
	if m.apply, err = register(reg, m.apply); err != nil {
		return nil, err
	}
	if m.applied, err = register(reg, m.applied); err != nil {
		return nil, err
	}
	if m.info, err = register(reg, m.info); err != nil {
		return nil, err
	}
	if m.ready, err = register(reg, m.ready); err != nil {
		return nil, err
	}
	return m, nil
}

// register registers c, or returns the collector registered before it
// under the same name: a process that builds a second manager (a test, a
// restart in place) shares the series.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	err := reg.Register(c)
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	return c, err
}

func (m *Metrics) observeResolution(cluster string, d time.Duration) {
	if m != nil {
		m.resolution.WithLabelValues(cluster).Observe(d.Seconds())
	}
}

func (m *Metrics) observeApply(cluster string, res *apply.Result, d time.Duration) {
	if m == nil {
		return
	}
	phase := string(res.Phase)
	m.apply.WithLabelValues(cluster, phase).Observe(d.Seconds())
	if res.Applied+res.Pruned > 0 || res.Phase != commitstatus.Installed {
		m.applied.WithLabelValues(cluster, phase).Inc()
	}
}

// observeSubscriptions sets one info series per subscription of the pass
// and deletes those of subscriptions that changed or left.
func (m *Metrics) observeSubscriptions(t Target, set *planSet, out *Outcome) {
	if m == nil {
		return
	}
	plans := map[string]*loadedPlan{}
	for _, p := range set.plans {
		plans[p.namespace+"/"+p.name] = p
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := map[string]bool{}
	for _, st := range out.Subscriptions {
		k := t.ID + "\x00" + st.Namespace + "/" + st.Name
		seen[k] = true
		l := prometheus.Labels{"repository": t.ID, "cluster": t.Cluster, "namespace": st.Namespace, "subscription": st.Name,
			"installed": st.InstalledBundle, "target": st.TargetBundle, "phase": strings.ToLower(string(st.Phase))}
		l["package"], l["version"] = packageVersion(plans[st.Namespace+"/"+st.Name], st.InstalledBundle)
		if old, ok := m.series[k]; ok && !maps.Equal(old, l) {
			m.info.Delete(old)
		}
		m.series[k] = l
		m.info.With(l).Set(1)
	}
	for k, l := range m.series {
		if l["repository"] == t.ID && !seen[k] {
			m.info.Delete(l)
			delete(m.series, k)
		}
	}
}

// observeReady sets the Repository's ready series, replacing the one of
// another cluster when spec.cluster changed.
func (m *Metrics) observeReady(id, cluster string, ready bool) {
	if m == nil {
		return
	}
	l := prometheus.Labels{"repository": id, "cluster": cluster}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.readySeries[id]; ok && !maps.Equal(old, l) {
		m.ready.Delete(old)
	}
	m.readySeries[id] = l
	v := 0.0
	if ready {
		v = 1
	}
	m.ready.With(l).Set(v)
}

// forget deletes the series of a Repository that is gone.
func (m *Metrics) forget(id string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if l, ok := m.readySeries[id]; ok {
		m.ready.Delete(l)
		delete(m.readySeries, id)
	}
	for k, l := range m.series {
		if l["repository"] == id {
			m.info.Delete(l)
			delete(m.series, k)
		}
	}
}

// packageVersion names the plan's package and the version of its bundle
// installed, when the plan's path or origin names it.
func packageVersion(p *loadedPlan, installed string) (string, string) {
	if p == nil || p.file == nil {
		return "", ""
	}
	spec := p.file.Spec
	if spec.From != nil && spec.From.Name == installed {
		return spec.Package, spec.From.Version
	}
	for _, h := range spec.Path {
		if h.Name == installed {
			return spec.Package, h.Version
		}
	}
	return spec.Package, ""
}
