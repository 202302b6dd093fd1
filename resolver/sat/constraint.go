package sat

import (
	"fmt"
	"strings"

	"github.com/go-air/gini/z"
)

// Constraint is a rule attached to a Variable, its subject. Only this
// package implements Constraint; build one with the constructors below.
type Constraint interface {
	// String describes the constraint applied to subject, in words.
	String(subject Identifier) string

	// apply encodes the constraint for subject (whose literal is x) as
	// clauses over the encoder's circuit: the constraint holds exactly when
	// every clause does. No clause means the constraint always holds.
	apply(e *encoder, x z.Lit) [][]z.Lit
	// choices returns the preference choices the constraint adds to the
	// search when its subject is installed, each a list of options, most
	// preferred first.
	choices(e *encoder) [][]option
}

// Condition is a Constraint of the form "if the subject is installed, then
// ...". Conditions compose with And, Or and Not; the composition is still
// conditional on the subject, so Not(Dependency(ids...)) means "if the subject
// is installed, none of ids is", not "the subject is installed".
type Condition interface {
	Constraint

	// body encodes what must hold when the subject is installed.
	body(e *encoder) z.Lit
	// phrase describes body in words, without the subject.
	phrase() string
}

// Mandatory returns a Constraint that its subject is installed.
func Mandatory() Constraint { return mandatory{} }

// Prohibited returns a Constraint that its subject is not installed.
func Prohibited() Constraint { return prohibited{} }

// Dependency returns a Condition that, if its subject is installed, at least
// one of ids is installed too. The order of ids is the order of preference.
// Without ids the subject cannot be installed.
func Dependency(ids ...Identifier) Condition { return dependency(ids) }

// Conflict returns a Condition that its subject and id are not both
// installed.
func Conflict(id Identifier) Condition { return conflict(id) }

// AtMost returns a Constraint that at most n of ids are installed. It does
// not depend on whether its subject is installed: attach it to any variable,
// for example one that stands for a package or an API. Repeated ids count
// once.
func AtMost(n int, ids ...Identifier) Constraint { return atMost{n: n, ids: ids} }

// And returns a Condition that holds when every one of cs holds. And() always
// holds.
func And(cs ...Condition) Condition { return and(cs) }

// Or returns a Condition that holds when at least one of cs holds; the
// candidates of earlier operands are preferred. Or() never holds: its subject
// cannot be installed.
func Or(cs ...Condition) Condition { return or(cs) }

// Not returns a Condition that holds when c does not.
func Not(c Condition) Condition { return not{c} }

// WithMessage returns c described by msg instead of its own words, for
// example the failureMessage of an olm.constraint property or OLM's
// "subscription foo exists". msg is used verbatim, without the subject.
func WithMessage(c Constraint, msg string) Constraint { return message{c: c, msg: msg} }

type mandatory struct{}

func (mandatory) String(subject Identifier) string    { return fmt.Sprintf("%s is mandatory", subject) }
func (mandatory) apply(_ *encoder, x z.Lit) [][]z.Lit { return [][]z.Lit{{x}} }
func (mandatory) choices(*encoder) [][]option         { return nil }

type prohibited struct{}

func (prohibited) String(subject Identifier) string    { return fmt.Sprintf("%s is prohibited", subject) }
func (prohibited) apply(_ *encoder, x z.Lit) [][]z.Lit { return [][]z.Lit{{x.Not()}} }
func (prohibited) choices(*encoder) [][]option         { return nil }

type dependency []Identifier

func (d dependency) String(subject Identifier) string {
	if len(d) == 0 {
		return fmt.Sprintf("%s has a dependency without any candidates to satisfy it", subject)
	}
	return fmt.Sprintf("%s requires at least one of %s", subject, join(d))
}
func (d dependency) apply(e *encoder, x z.Lit) [][]z.Lit {
	return [][]z.Lit{append([]z.Lit{x.Not()}, e.lits(d)...)}
}
func (d dependency) choices(e *encoder) [][]option {
	if len(d) == 0 {
		return nil
	}
	options := make([]option, len(d))
	for i, id := range d {
		options[i] = option{m: e.lit(id), variable: true}
	}
	return [][]option{options}
}
func (d dependency) body(e *encoder) z.Lit { return e.c.Ors(e.lits(d)...) }
func (d dependency) phrase() string        { return "at least one of [" + join(d) + "]" }

type conflict Identifier

func (c conflict) String(subject Identifier) string {
	return fmt.Sprintf("%s conflicts with %s", subject, Identifier(c))
}
func (c conflict) apply(e *encoder, x z.Lit) [][]z.Lit {
	return [][]z.Lit{{x.Not(), e.lit(Identifier(c)).Not()}}
}
func (conflict) choices(*encoder) [][]option { return nil }
func (c conflict) body(e *encoder) z.Lit     { return e.lit(Identifier(c)).Not() }
func (c conflict) phrase() string            { return "not " + string(c) }

type atMost struct {
	n   int
	ids []Identifier
}

func (a atMost) String(subject Identifier) string {
	return fmt.Sprintf("%s permits at most %d of %s", subject, a.n, join(a.ids))
}
func (a atMost) apply(e *encoder, _ z.Lit) [][]z.Lit {
	ms := e.lits(unique(a.ids))
	switch {
	case a.n < 0:
		return [][]z.Lit{{e.c.F}}
	case a.n >= len(ms):
		return nil
	case a.n == 0:
		out := make([][]z.Lit, len(ms))
		for i, m := range ms {
			out[i] = []z.Lit{m.Not()}
		}
		return out
	case a.n == 1:
		// Sequential counter: some is true iff one of ms[:i] is; then
		// ms[i] must be false.
		var out [][]z.Lit
		some := ms[0]
		for _, m := range ms[1:] {
			out = append(out, []z.Lit{some.Not(), m.Not()})
			some = e.c.Or(some, m)
		}
		return out
	}
	return [][]z.Lit{{e.c.CardSort(ms).Leq(a.n)}}
}
func (atMost) choices(*encoder) [][]option { return nil }

type and []Condition

func (a and) String(subject Identifier) string    { return requires(subject, a) }
func (a and) apply(e *encoder, x z.Lit) [][]z.Lit { return applyCondition(e, x, a) }
func (a and) choices(e *encoder) [][]option {
	var out [][]option
	for _, c := range a {
		if c != nil {
			out = append(out, c.choices(e)...)
		}
	}
	return out
}
func (a and) body(e *encoder) z.Lit {
	ms := make([]z.Lit, len(a))
	for i, c := range a {
		ms[i] = e.body(c)
	}
	return e.c.Ands(ms...)
}
func (a and) phrase() string { return "all of (" + phrases(a) + ")" }

type or []Condition

func (o or) String(subject Identifier) string    { return requires(subject, o) }
func (o or) apply(e *encoder, x z.Lit) [][]z.Lit { return applyCondition(e, x, o) }
func (o or) choices(e *encoder) [][]option {
	var options []option
	for _, c := range o {
		if c != nil {
			options = append(options, option{m: c.body(e), then: c.choices(e)})
		}
	}
	if len(options) == 0 {
		return nil
	}
	return [][]option{options}
}
func (o or) body(e *encoder) z.Lit {
	ms := make([]z.Lit, len(o))
	for i, c := range o {
		ms[i] = e.body(c)
	}
	return e.c.Ors(ms...)
}
func (o or) phrase() string { return "any of (" + phrases(o) + ")" }

type not struct{ c Condition }

func (n not) String(subject Identifier) string    { return requires(subject, n) }
func (n not) apply(e *encoder, x z.Lit) [][]z.Lit { return applyCondition(e, x, n) }
func (not) choices(*encoder) [][]option           { return nil }
func (n not) body(e *encoder) z.Lit               { return e.body(n.c).Not() }
func (n not) phrase() string                      { return "not (" + phrase(n.c) + ")" }

type message struct {
	c   Constraint
	msg string
}

func (m message) String(Identifier) string            { return m.msg }
func (m message) apply(e *encoder, x z.Lit) [][]z.Lit { return e.apply(m.c, x) }
func (m message) choices(e *encoder) [][]option {
	if m.c == nil {
		return nil
	}
	return m.c.choices(e)
}

// applyCondition encodes "x implies c".
func applyCondition(e *encoder, x z.Lit, c Condition) [][]z.Lit {
	return [][]z.Lit{{x.Not(), e.body(c)}}
}

// phrase is c.phrase, tolerating a nil c (which Solve reports as an error).
func phrase(c Condition) string {
	if c == nil {
		return "<nil>"
	}
	return c.phrase()
}

func requires(subject Identifier, c Condition) string {
	return fmt.Sprintf("%s requires %s", subject, c.phrase())
}

func phrases(cs []Condition) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = phrase(c)
	}
	return strings.Join(s, "; ")
}

func join(ids []Identifier) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	return strings.Join(s, ", ")
}

// unique returns ids without repeats, keeping first occurrences in order.
func unique(ids []Identifier) []Identifier {
	seen := make(map[Identifier]bool, len(ids))
	out := make([]Identifier, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
