package planning

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the Prometheus metrics of the planning controller. A nil
// *Metrics records nothing.
type Metrics struct {
	passes    *prometheus.CounterVec
	duration  *prometheus.HistogramVec
	proposals *prometheus.CounterVec
	committed prometheus.Counter
	ready     *prometheus.GaugeVec
}

// NewMetrics creates the metrics and registers them with reg; a process
// that builds a second manager (a test) shares the series.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		passes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "olmops_planning_passes_total",
			Help: "Passes of the planning controller, by result: planned, skipped (commit planned already), stalled or failed.",
		}, []string{"result"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "olmops_planning_duration_seconds",
			Help:    "Time of one pass of the planning controller (fetch, plan, push, propose), by result.",
			Buckets: prometheus.ExponentialBuckets(0.01, 4, 9),
		}, []string{"result"}),
		proposals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "olmops_planning_proposals_total",
			Help: "Proposals the planning controller opened or updated (a new revision pushed), by action.",
		}, []string{"action"}),
		committed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "olmops_planning_plans_committed_total",
			Help: "Automatic plans the planning controller committed to their target branch.",
		}),
		ready: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "olmops_planner_ready",
			Help: "1 when the Planner's Ready condition is True after its last pass, else 0.",
		}, []string{"planner"}),
	}
	var err error
	if m.passes, err = register(reg, m.passes); err != nil {
		return nil, err
	}
	if m.duration, err = register(reg, m.duration); err != nil {
		return nil, err
	}
	if m.proposals, err = register(reg, m.proposals); err != nil {
		return nil, err
	}
	if m.committed, err = register(reg, m.committed); err != nil {
		return nil, err
	}
	if m.ready, err = register(reg, m.ready); err != nil {
		return nil, err
	}
	return m, nil
}

// register registers c, or returns the collector registered before it
// under the same name.
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

func (m *Metrics) observePass(r result, d time.Duration) {
	if m != nil {
		m.passes.WithLabelValues(string(r)).Inc()
		m.duration.WithLabelValues(string(r)).Observe(d.Seconds())
	}
}

func (m *Metrics) observeProposal(action string) {
	if m != nil {
		m.proposals.WithLabelValues(action).Inc()
	}
}

func (m *Metrics) observeCommitted(n int) {
	if m != nil {
		m.committed.Add(float64(n))
	}
}

// observeReady sets the Planner's ready series; gone deletes it.
func (m *Metrics) observeReady(planner string, ready, gone bool) {
	switch {
	case m == nil:
	case gone:
		m.ready.DeleteLabelValues(planner)
	case ready:
		m.ready.WithLabelValues(planner).Set(1)
	default:
		m.ready.WithLabelValues(planner).Set(0)
	}
}
