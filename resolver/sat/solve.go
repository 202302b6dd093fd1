package sat

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-air/gini"
	"github.com/go-air/gini/z"
)

// Limits bound the work Solve does. A zero field takes its default.
type Limits struct {
	// MaxVariables is the largest number of variables accepted
	// (default 100000).
	MaxVariables int
	// MaxSearchSteps bounds the preference search: each choice made or
	// undone is one step (default 100000).
	MaxSearchSteps int
}

func defaultLimits() Limits { return Limits{MaxVariables: 100_000, MaxSearchSteps: 100_000} }

// Option configures Solve.
type Option func(*Limits)

// WithLimits sets the limits of one Solve; zero fields keep their defaults.
func WithLimits(l Limits) Option {
	return func(dst *Limits) {
		if l.MaxVariables > 0 {
			dst.MaxVariables = l.MaxVariables
		}
		if l.MaxSearchSteps > 0 {
			dst.MaxSearchSteps = l.MaxSearchSteps
		}
	}
}

// gini's results.
const (
	satisfiable   = 1
	unsatisfiable = -1
	unknown       = 0
)

// errInternal marks states the solver should never reach.
var errInternal = errors.New("sat: internal solver error")

// Solve returns the variables to install, in input order: an assignment
// that satisfies every constraint, chosen by preference and then minimised
// as the package documentation describes.
//
// It returns a *NotSatisfiable if no assignment exists, a *LimitError if the
// problem is too large or the search too long, an error matching
// ErrInvalidProblem for malformed input, and ctx's error (wrapped) if ctx is
// done first.
func Solve(ctx context.Context, vars []Variable, opts ...Option) ([]Variable, error) {
	limits := defaultLimits()
	for _, opt := range opts {
		opt(&limits)
	}
	if len(vars) > limits.MaxVariables {
		return nil, &LimitError{Limit: "MaxVariables", Max: limits.MaxVariables}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sat: solve not started: %w", err)
	}
	if len(vars) == 0 {
		return nil, nil
	}
	e, err := newEncoder(vars)
	if err != nil {
		return nil, err
	}
	s := newSolver(e, limits, false)

	installed, err := s.solve(ctx)
	if err != nil {
		if ctx.Err() != nil && !errors.As(err, new(*NotSatisfiable)) {
			return nil, fmt.Errorf("sat: solve interrupted: %w", ctx.Err())
		}
		return nil, err
	}
	return installed, nil
}

// solver is one gini instance loaded with a problem.
type solver struct {
	g      *gini.Gini
	e      *encoder
	limits Limits
}

func newSolver(e *encoder, limits Limits, guarded bool) *solver {
	s := &solver{g: gini.NewV(e.c.Len()), e: e, limits: limits}
	e.load(s.g, guarded)
	return s
}

func (s *solver) solve(ctx context.Context) ([]Variable, error) {
	res, err := s.run(ctx)
	if err != nil {
		return nil, err
	}
	if res == unsatisfiable {
		// Explaining needs the guards, which slow every solve down: only
		// now load them, into a fresh solver.
		return nil, newSolver(s.e, s.limits, true).explain(ctx)
	}
	chosen, extras, excluded, err := s.search(ctx)
	if err != nil {
		return nil, err
	}
	return s.minimise(ctx, chosen, extras, excluded)
}

// run solves under the pending assumptions, stopping early when ctx is done.
func (s *solver) run(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return unknown, err
	}
	if ctx.Done() == nil {
		return s.g.Solve(), nil
	}
	// The background solve checks in every few thousand propagations;
	// Pause returns then (or with the result), and ctx is checked.
	run := s.g.GoSolve()
	for {
		res, paused := run.Pause()
		if !paused {
			return res, nil
		}
		if ctx.Err() != nil {
			run.Unpause()
			run.Stop()
			return unknown, ctx.Err()
		}
		run.Unpause()
	}
}

// minimise installs as few extras as possible while keeping every chosen
// variable installed and every excluded one uninstalled.
func (s *solver) minimise(ctx context.Context, chosen, extras, excluded []z.Lit) ([]Variable, error) {
	assume := func() {
		s.g.Assume(chosen...)
		s.g.Assume(excluded...)
	}
	// Most often no extra is needed at all.
	assume()
	for _, m := range extras {
		s.g.Assume(m.Not())
	}
	res, err := s.run(ctx)
	if err != nil {
		return nil, err
	}
	if res == satisfiable {
		return s.installed(), nil
	}
	marks := make([]int8, s.e.c.Len())
	for i := range marks {
		marks[i] = 1 // taught by load
	}
	card := s.e.c.CardSort(extras)
	for w := 1; w <= card.N(); w++ {
		marks, _ = s.e.c.CnfSince(s.g, marks, card.Leq(w))
		assume()
		s.g.Assume(card.Leq(w))
		res, err := s.run(ctx)
		if err != nil {
			return nil, err
		}
		if res == satisfiable {
			return s.installed(), nil
		}
	}
	return nil, fmt.Errorf("%w: no model left after minimising", errInternal)
}

// installed returns the variables true in the last model, in input order.
func (s *solver) installed() []Variable {
	var out []Variable
	for i, m := range s.e.varLits {
		if s.value(m) {
			out = append(out, s.e.vars[i])
		}
	}
	return out
}

// value is gini's Value, tolerating variables the solver never saw (they
// appear in no clause, so they are false).
func (s *solver) value(m z.Lit) bool {
	return m.Var() <= s.g.MaxVar() && s.g.Value(m)
}
