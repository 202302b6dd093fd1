package sat

import (
	"context"
	"fmt"
	"slices"

	"github.com/go-air/gini/z"
)

// explain returns a *NotSatisfiable for a guarded solver of an
// unsatisfiable problem. gini's Why gives a set of failed guards; explain
// shrinks it by deletion until dropping any one guard makes the rest
// satisfiable.
func (s *solver) explain(ctx context.Context) error {
	s.g.Assume(s.e.guards...)
	res, err := s.run(ctx)
	if err != nil {
		return err
	}
	if res != unsatisfiable {
		return fmt.Errorf("%w: guarded problem is satisfiable", errInternal)
	}
	core := s.core(s.g.Why(nil))
	for i := 0; i < len(core); {
		trial := slices.Delete(slices.Clone(core), i, i+1)
		s.g.Assume(trial...)
		res, err := s.run(ctx)
		if err != nil {
			return err
		}
		if res != unsatisfiable {
			i++ // core[i] is needed
			continue
		}
		// The failed assumptions are a subset of trial that still holds
		// every guard before i: those are needed by any unsatisfiable subset.
		core = s.core(s.g.Why(nil))
	}
	out := &NotSatisfiable{Constraints: make([]AppliedConstraint, len(core))}
	for i, g := range core {
		out.Constraints[i] = s.e.applied[s.e.byGuard[g]]
	}
	return out
}

// core keeps the guards among ms, in input order.
func (s *solver) core(ms []z.Lit) []z.Lit {
	out := make([]z.Lit, 0, len(ms))
	for _, m := range ms {
		if _, ok := s.e.byGuard[m]; ok {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b z.Lit) int { return s.e.byGuard[a] - s.e.byGuard[b] })
	return slices.Compact(out)
}
