package sat

import (
	"context"
	"fmt"
	"slices"

	"github.com/go-air/gini/z"
)

// choice is a pending decision: take one of options, most preferred first.
// next is the first option not yet tried.
type choice struct {
	next    int
	options []option
}

// guess is a decision made: the choice, the literal m assumed (z.LitNull
// if the choice was skipped) and how many choices taking it queued.
type guess struct {
	choice
	m        z.Lit
	children int
}

// search is OLM's preference search: a depth-first search over choices that
// are queued breadth-first. Guesses are gini assumptions under Test scopes,
// so undoing one is an Untest.
type search struct {
	s       *solver
	queue   []choice // queue[head:] are pending; queue[:head] were taken by guesses, in order
	head    int
	guesses []guess
	chosen  []bool // chosen[i]: vars[i] is installed by a guess
	result  int
	steps   int
}

// search runs the preference search. It returns the installed candidates
// of its guesses, the other variables true in its model (extras) and the
// negations of those false in it (excluded). It leaves the solver with no
// test scope and no pending assumption.
func (s *solver) search(ctx context.Context) (chosen, extras, excluded []z.Lit, err error) {
	h := &search{s: s, chosen: make([]bool, len(s.e.vars))}
	for i, v := range s.e.vars {
		if slices.ContainsFunc(v.Constraints(), isMandatory) {
			h.queue = append(h.queue, choice{options: []option{{m: s.e.varLits[i], variable: true}}})
		}
	}
	h.result, _ = s.g.Test(nil)

	for {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		if h.steps++; h.steps > s.limits.MaxSearchSteps {
			return nil, nil, nil, &LimitError{Limit: "MaxSearchSteps", Max: s.limits.MaxSearchSteps}
		}
		if h.head == len(h.queue) && h.result == unknown {
			if h.result, err = s.run(ctx); err != nil {
				return nil, nil, nil, err
			}
		}
		if h.result == unsatisfiable {
			if len(h.guesses) == 0 {
				return nil, nil, nil, fmt.Errorf("%w: search found no model of a satisfiable problem", errInternal)
			}
			h.pop()
			continue
		}
		if h.head == len(h.queue) {
			break
		}
		h.push()
	}

	for i, m := range s.e.varLits {
		switch {
		case h.chosen[i]:
			chosen = append(chosen, m)
		case s.value(m):
			extras = append(extras, m)
		default:
			excluded = append(excluded, m.Not())
		}
	}
	// Back to no test scope, so that minimise may add clauses.
	for len(h.guesses) > 0 {
		h.pop()
	}
	s.g.Untest()
	return chosen, extras, excluded, nil
}

// isMandatory reports whether c is Mandatory, with or without a message.
func isMandatory(c Constraint) bool {
	for {
		switch t := c.(type) {
		case mandatory:
			return true
		case message:
			c = t.c
		default:
			return false
		}
	}
}

// push takes the next choice and installs its next candidate, unless the
// choice is already met by an installed variable or has no candidate left.
func (h *search) push() {
	g := guess{choice: h.queue[h.head], m: z.LitNull}
	h.head++
	if g.next < len(g.options) && !h.met(g.options) {
		o := g.options[g.next]
		g.m = o.m
		then := o.then
		if o.variable {
			i := h.s.e.index(o.m)
			h.chosen[i] = true
			then = h.s.e.prefs[i]
		}
		for _, options := range then {
			h.queue = append(h.queue, choice{options: options})
			g.children++
		}
		h.s.g.Assume(g.m)
		h.result, _ = h.s.g.Test(nil)
	}
	h.guesses = append(h.guesses, g)
}

// pop undoes the last guess and puts its choice back at the head of the
// queue, moved on to its next candidate.
func (h *search) pop() {
	g := h.guesses[len(h.guesses)-1]
	h.guesses = h.guesses[:len(h.guesses)-1]
	if g.m != z.LitNull {
		if g.options[g.next].variable {
			h.chosen[h.s.e.index(g.m)] = false
		}
		h.result = h.s.g.Untest()
		g.next++
	}
	h.queue = h.queue[:len(h.queue)-g.children]
	h.head--
	h.queue[h.head] = g.choice
}

// met reports whether a choice needs no guess: one of its options is
// already met by earlier guesses.
func (h *search) met(options []option) bool {
	for _, o := range options {
		if h.optionMet(o) {
			return true
		}
	}
	return false
}

// optionMet: a variable is met when an earlier guess installed it; an Or
// operand when every choice it would queue is met. Only an operand that
// queues nothing (a Not, a Conflict) falls back to its value in the
// solver's current model: that model is arbitrary, and trusting it for an
// operand with choices would skip the preferences inside it.
func (h *search) optionMet(o option) bool {
	if o.variable {
		return h.chosen[h.s.e.index(o.m)]
	}
	if len(o.then) == 0 {
		return h.s.value(o.m)
	}
	for _, options := range o.then {
		if !h.met(options) {
			return false
		}
	}
	return true
}
