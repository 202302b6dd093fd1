package sat

import (
	"fmt"
	"slices"
	"testing"
)

// v is short for NewVar in test tables.
func v(id Identifier, cs ...Constraint) Variable { return NewVar(id, cs...) }

// ids lists the identifiers of vars.
func ids(vars []Variable) []Identifier {
	out := make([]Identifier, len(vars))
	for i, x := range vars {
		out[i] = x.Identifier()
	}
	return out
}

// holds evaluates c for subject under the installed set, independently of
// the SAT encoding.
func holds(c Constraint, subject Identifier, installed map[Identifier]bool) bool {
	switch t := c.(type) {
	case mandatory:
		return installed[subject]
	case prohibited:
		return !installed[subject]
	case atMost:
		n := 0
		for _, id := range unique(t.ids) {
			if installed[id] {
				n++
			}
		}
		return n <= t.n
	case message:
		return holds(t.c, subject, installed)
	case Condition:
		return !installed[subject] || body(t, installed)
	}
	panic(fmt.Sprintf("unknown constraint %T", c))
}

func body(c Condition, installed map[Identifier]bool) bool {
	switch t := c.(type) {
	case dependency:
		return slices.ContainsFunc(t, func(id Identifier) bool { return installed[id] })
	case conflict:
		return !installed[Identifier(t)]
	case and:
		for _, x := range t {
			if !body(x, installed) {
				return false
			}
		}
		return true
	case or:
		for _, x := range t {
			if body(x, installed) {
				return true
			}
		}
		return false
	case not:
		return !body(t.c, installed)
	}
	panic(fmt.Sprintf("unknown condition %T", c))
}

// checkModel fails t unless every constraint of vars holds when exactly
// installed are installed.
func checkModel(t testing.TB, vars, installed []Variable) {
	t.Helper()
	set := make(map[Identifier]bool)
	for _, x := range installed {
		set[x.Identifier()] = true
	}
	for _, x := range vars {
		for _, c := range x.Constraints() {
			if !holds(c, x.Identifier(), set) {
				t.Errorf("solution %v breaks %q", ids(installed), c.String(x.Identifier()))
			}
		}
	}
}

// bruteSatisfiable reports by brute force whether the applied constraints can
// all hold over the variables vars.
func bruteSatisfiable(vars []Variable, applied []AppliedConstraint) bool {
	for bits := 0; bits < 1<<len(vars); bits++ {
		set := make(map[Identifier]bool)
		for i, x := range vars {
			set[x.Identifier()] = bits&(1<<i) != 0
		}
		ok := true
		for _, a := range applied {
			if !holds(a.Constraint, a.Variable.Identifier(), set) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
