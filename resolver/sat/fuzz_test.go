package sat

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// FuzzSolve builds small random problems and checks that Solve never
// panics, that every solution satisfies every constraint, and that every
// NotSatisfiable is right and minimal (by brute force over all assignments).
func FuzzSolve(f *testing.F) {
	for _, seed := range [][]byte{
		{},
		{3, 0, 0, 1, 2, 0x07},
		{5, 0, 0, 0, 2, 0x06, 1, 4, 2, 2, 0x03, 3, 5, 1, 0x0f},
		{4, 0, 6, 2, 0, 0x03, 1, 0x0c, 1, 0, 1, 1},
		{6, 1, 6, 3, 2, 0x30, 4, 0, 0x01, 2, 1, 0, 1, 2, 0},
		{2, 0, 0, 0, 4, 1, 1, 0},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		vars := decode(data)
		got, err := Solve(t.Context(), vars)
		var ns *NotSatisfiable
		switch {
		case err == nil:
			checkModel(t, vars, got)
		case errors.As(err, &ns):
			var all []AppliedConstraint
			for _, x := range vars {
				for _, c := range x.Constraints() {
					all = append(all, AppliedConstraint{x, c})
				}
			}
			if bruteSatisfiable(vars, all) {
				t.Fatalf("NotSatisfiable for a satisfiable problem: %v", err)
			}
			if bruteSatisfiable(vars, ns.Constraints) {
				t.Fatalf("core is satisfiable: %v", err)
			}
			for i := range ns.Constraints {
				if !bruteSatisfiable(vars, slices.Delete(slices.Clone(ns.Constraints), i, i+1)) {
					t.Fatalf("core without %q is still unsatisfiable: %v", ns.Constraints[i], err)
				}
			}
		default:
			t.Fatalf("Solve: %v", err)
		}
	})
}

// decode turns bytes into a problem of 1 to 6 variables with up to 16
// constraints; missing bytes read as zero.
func decode(data []byte) []Variable {
	r := &reader{data: data}
	n := 1 + int(r.next()%6)
	cons := make([][]Constraint, n)
	for i := 0; len(r.data) > 0 && i < 16; i++ {
		k := int(r.next()) % n
		cons[k] = append(cons[k], r.constraint(n))
	}
	vars := make([]Variable, n)
	for i := range vars {
		vars[i] = NewVar(name(i), cons[i]...)
	}
	return vars
}

func name(i int) Identifier { return Identifier(fmt.Sprintf("v%d", i)) }

type reader struct{ data []byte }

func (r *reader) next() byte {
	if len(r.data) == 0 {
		return 0
	}
	b := r.data[0]
	r.data = r.data[1:]
	return b
}

// ids reads a subset of the n variables, rotated so that any may come first.
func (r *reader) ids(n int) []Identifier {
	mask, start := r.next(), int(r.next())
	var out []Identifier
	for i := range n {
		j := (start + i) % n
		if mask&(1<<j) != 0 {
			out = append(out, name(j))
		}
	}
	return out
}

func (r *reader) constraint(n int) Constraint {
	switch r.next() % 8 {
	case 0:
		return Mandatory()
	case 1:
		return Prohibited()
	case 2, 3:
		return Dependency(r.ids(n)...)
	case 4:
		return Conflict(name(int(r.next()) % n))
	case 5:
		k := int(r.next() % 3)
		return AtMost(k, r.ids(n)...)
	case 6:
		return r.condition(n, 0)
	default:
		return WithMessage(r.condition(n, 0), "custom")
	}
}

func (r *reader) condition(n, depth int) Condition {
	kind := r.next() % 5
	if depth >= 2 {
		kind %= 2
	}
	switch kind {
	case 0:
		return Dependency(r.ids(n)...)
	case 1:
		return Conflict(name(int(r.next()) % n))
	case 2:
		return And(r.condition(n, depth+1), r.condition(n, depth+1))
	case 3:
		return Or(r.condition(n, depth+1), r.condition(n, depth+1))
	default:
		return Not(r.condition(n, depth+1))
	}
}
