package sat

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSolve(t *testing.T) {
	for _, tc := range []struct {
		name string
		vars []Variable
		want []Identifier // installed, in input order
		core []string     // if set: the error is *NotSatisfiable with these constraints
	}{
		{name: "empty problem"},
		{
			name: "no constraints installs nothing",
			vars: []Variable{v("a"), v("b")},
		},
		{
			name: "mandatory",
			vars: []Variable{v("a"), v("b", Mandatory())},
			want: []Identifier{"b"},
		},
		{
			name: "prohibited alone",
			vars: []Variable{v("a", Prohibited())},
		},
		{
			name: "dependency pulls in its candidate",
			vars: []Variable{v("a", Mandatory(), Dependency("b")), v("b")},
			want: []Identifier{"a", "b"},
		},
		{
			name: "dependency of an uninstalled variable is ignored",
			vars: []Variable{v("a", Dependency("b")), v("b")},
		},
		{
			name: "transitive dependencies",
			vars: []Variable{v("a", Mandatory(), Dependency("b")), v("b", Dependency("c")), v("c"), v("d")},
			want: []Identifier{"a", "b", "c"},
		},
		{
			name: "conflict alone",
			vars: []Variable{v("a", Mandatory(), Conflict("b")), v("b")},
			want: []Identifier{"a"},
		},
		{
			name: "atMost alone",
			vars: []Variable{v("a", Mandatory()), v("b", Mandatory()), v("p", AtMost(2, "a", "b", "c")), v("c")},
			want: []Identifier{"a", "b"},
		},
		{
			name: "earlier dependency candidate preferred",
			vars: []Variable{v("a", Mandatory(), Dependency("b2", "b1")), v("b1"), v("b2")},
			want: []Identifier{"a", "b2"},
		},
		{
			name: "preference is by argument order, not input order",
			vars: []Variable{v("a", Mandatory(), Dependency("b1", "b2")), v("b2"), v("b1")},
			want: []Identifier{"a", "b1"},
		},
		{
			name: "falls back when the preferred candidate conflicts",
			vars: []Variable{
				v("a", Mandatory(), Dependency("b2", "b1")),
				v("b1"),
				v("b2", Conflict("a")),
			},
			want: []Identifier{"a", "b1"},
		},
		{
			name: "falls back when the preferred candidate is prohibited",
			vars: []Variable{v("a", Mandatory(), Dependency("b2", "b1")), v("b1"), v("b2", Prohibited())},
			want: []Identifier{"a", "b1"},
		},
		{
			name: "falls back when the preferred candidate's own dependency fails",
			vars: []Variable{
				v("a", Mandatory(), Dependency("b2", "b1")),
				v("b1"),
				v("b2", Dependency("c")),
				v("c", Prohibited()),
			},
			want: []Identifier{"a", "b1"},
		},
		{
			name: "one per package: the second dependent takes the installed version",
			vars: []Variable{
				v("a", Mandatory(), Dependency("b.v2", "b.v1")),
				v("c", Mandatory(), Dependency("b.v1")),
				v("b.v2"), v("b.v1"),
				v("pkg-b", AtMost(1, "b.v2", "b.v1")),
			},
			want: []Identifier{"a", "c", "b.v1"},
		},
		{
			name: "a GVK provided at most once",
			vars: []Variable{
				v("a", Mandatory(), Dependency("x", "y")),
				v("x"), v("y"),
				v("installed", Mandatory()),
				v("gvk", AtMost(1, "installed", "x")),
			},
			want: []Identifier{"a", "y", "installed"},
		},
		{
			name: "no unneeded installs",
			vars: []Variable{
				v("a", Mandatory(), Dependency("b")),
				v("b", Dependency("c", "d")),
				v("c"), v("d"), v("e", Dependency("d")),
			},
			want: []Identifier{"a", "b", "c"},
		},
		{
			name: "shared dependency installed once",
			vars: []Variable{
				v("a", Mandatory(), Dependency("x", "y")),
				v("b", Mandatory(), Dependency("y", "x")),
				v("x"), v("y"),
			},
			want: []Identifier{"a", "b", "x"},
		},
		{
			name: "minimisation keeps a needed extra",
			vars: []Variable{
				v("a", Mandatory(), Not(Conflict("b"))), // a needs b, but offers no choice
				v("b"), v("c"),
			},
			want: []Identifier{"a", "b"},
		},
		{
			name: "all: every operand is met",
			vars: []Variable{
				v("red", Mandatory(), And(Dependency("blue.v2", "blue.v1"), Dependency("green"))),
				v("blue.v1"), v("blue.v2"), v("green"),
			},
			want: []Identifier{"red", "blue.v2", "green"},
		},
		{
			name: "any: the first operand's candidate preferred",
			vars: []Variable{
				v("red", Mandatory(), Or(Dependency("blue.v1"), Dependency("blue.v2"))),
				v("blue.v1"), v("blue.v2"),
			},
			want: []Identifier{"red", "blue.v1"},
		},
		{
			name: "any: falls back to the second operand",
			vars: []Variable{
				v("red", Mandatory(), Or(Dependency("blue.v1"), Dependency("blue.v2"))),
				v("blue.v1", Prohibited()), v("blue.v2"),
			},
			want: []Identifier{"red", "blue.v2"},
		},
		{
			name: "not: keeps a candidate out",
			vars: []Variable{
				v("red", Mandatory(), And(Dependency("blue"), Not(Dependency("green.v1alpha1")))),
				v("blue", Dependency("green.v1alpha1", "green.v1")),
				v("green.v1alpha1"), v("green.v1"),
			},
			want: []Identifier{"red", "blue", "green.v1"},
		},
		{
			name: "not of an uninstalled subject does not force it",
			vars: []Variable{v("red", Not(Dependency("blue"))), v("blue", Mandatory())},
			want: []Identifier{"blue"},
		},
		{
			name: "any already met by an earlier choice adds nothing",
			vars: []Variable{
				v("blue-sub", Mandatory(), Dependency("blue.v2")),
				v("red", Mandatory(), Or(Dependency("blue.v1"), Dependency("blue.v2"))),
				v("blue.v1"), v("blue.v2"),
			},
			want: []Identifier{"blue-sub", "red", "blue.v2"},
		},
		{
			name: "any of all: second conjunction when the first cannot hold",
			vars: []Variable{
				v("red", Mandatory(), Or(
					And(Dependency("blue.v1"), Dependency("gvk-v1")),
					And(Dependency("blue.v0"), Dependency("gvk-v1beta1")),
				)),
				v("blue.v1"), v("blue.v0"),
				v("gvk-v1", Prohibited()), v("gvk-v1beta1"),
			},
			want: []Identifier{"red", "blue.v0", "gvk-v1beta1"},
		},
		{
			name: "two mandatory conflicting",
			vars: []Variable{v("a", Mandatory(), Conflict("b")), v("b", Mandatory()), v("c", Mandatory())},
			core: []string{"a is mandatory", "a conflicts with b", "b is mandatory"},
		},
		{
			name: "dependency with no candidates",
			vars: []Variable{v("a", Mandatory(), Dependency("b")), v("b", Dependency()), v("c", Mandatory())},
			core: []string{"a is mandatory", "a requires at least one of b", "b has a dependency without any candidates to satisfy it"},
		},
		{
			name: "dependency whose candidates are all prohibited",
			vars: []Variable{v("a", Mandatory(), Dependency("b", "c")), v("b", Prohibited()), v("c", Prohibited()), v("d", Mandatory())},
			core: []string{"a is mandatory", "a requires at least one of b, c", "b is prohibited", "c is prohibited"},
		},
		{
			name: "atMost violated by mandatory variables",
			vars: []Variable{
				v("a", Mandatory()), v("b", Mandatory()), v("c", Mandatory()),
				v("pkg", AtMost(1, "a", "b", "d")), v("d"),
			},
			core: []string{"a is mandatory", "b is mandatory", "pkg permits at most 1 of a, b, d"},
		},
		{
			name: "core is minimal: a redundant path is left out",
			vars: []Variable{
				v("a", Mandatory(), Dependency("b")),
				v("b", Prohibited(), Dependency("c")),
				v("c", Prohibited()),
			},
			core: []string{"a is mandatory", "a requires at least one of b", "b is prohibited"},
		},
		{
			name: "not unsatisfiable",
			vars: []Variable{v("red", Mandatory(), Not(Dependency("blue"))), v("blue", Mandatory())},
			core: []string{"red is mandatory", "red requires not (at least one of [blue])", "blue is mandatory"},
		},
		{
			name: "message in the core",
			vars: []Variable{
				v("sub", WithMessage(Mandatory(), "subscription sub exists"), WithMessage(Dependency("a.v1"), "subscription sub requires a.v1")),
				v("a.v1", WithMessage(Dependency(), "bundle a.v1 requires an operator providing an API with group: g, version: v, kind: k")),
			},
			core: []string{
				"subscription sub exists",
				"subscription sub requires a.v1",
				"bundle a.v1 requires an operator providing an API with group: g, version: v, kind: k",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Solve(t.Context(), tc.vars)
			if tc.core != nil {
				var ns *NotSatisfiable
				if !errors.As(err, &ns) {
					t.Fatalf("Solve = %v, %v; want *NotSatisfiable", ids(got), err)
				}
				var words []string
				for _, a := range ns.Constraints {
					words = append(words, a.String())
				}
				if !slices.Equal(words, tc.core) {
					t.Errorf("core =\n  %q\nwant\n  %q", words, tc.core)
				}
				if want := "constraints not satisfiable: " + strings.Join(tc.core, ", "); err.Error() != want {
					t.Errorf("Error() = %q, want %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Solve: %v", err)
			}
			if !slices.Equal(ids(got), tc.want) {
				t.Errorf("installed = %v, want %v", ids(got), tc.want)
			}
			checkModel(t, tc.vars, got)
		})
	}
}

func TestSolveInvalid(t *testing.T) {
	for _, tc := range []struct {
		name string
		vars []Variable
		want string
	}{
		{"duplicate", []Variable{v("a"), v("a")}, `invalid problem: duplicate identifier "a"`},
		{"unknown reference", []Variable{v("a", Dependency("b"))}, `invalid problem: a references unknown variable "b"`},
		{"unknown in atMost", []Variable{v("a", AtMost(1, "a", "z"))}, `invalid problem: a references unknown variable "z"`},
		{"nil variable", []Variable{nil}, `invalid problem: variable 0 is nil`},
		{"nil constraint", []Variable{v("a", nil)}, `invalid problem: a has a nil constraint`},
		{"nil condition", []Variable{v("a", And(Dependency("a"), nil))}, `invalid problem: a has a nil condition`},
		{"nil in not", []Variable{v("a", Not(nil))}, `invalid problem: a has a nil condition`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Solve(t.Context(), tc.vars)
			if !errors.Is(err, ErrInvalidProblem) || err.Error() != tc.want {
				t.Errorf("Solve error = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestSolveDeterministic(t *testing.T) {
	vars := generate(30, 8, 2)
	first, err := Solve(t.Context(), vars)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		got, err := Solve(t.Context(), vars)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), ids(first)) {
			t.Fatalf("run gave %v, first run %v", ids(got), ids(first))
		}
	}
	// Unsatisfiable problems explain themselves the same way every time.
	bad := append(slices.Clone(vars), v("x", Mandatory(), Conflict(vars[0].Identifier())), v("y", Mandatory(), Conflict("x")))
	_, want := Solve(t.Context(), bad)
	if want == nil {
		t.Fatal("want an error")
	}
	for range 20 {
		if _, err := Solve(t.Context(), bad); err == nil || err.Error() != want.Error() {
			t.Fatalf("error %v, first %v", err, want)
		}
	}
}

func TestSolveLimits(t *testing.T) {
	vars := []Variable{v("a", Mandatory(), Dependency("b")), v("b")}
	for _, tc := range []struct {
		limits Limits
		want   string
	}{
		{Limits{MaxVariables: 1}, "solver limit exceeded: MaxVariables is 1"},
		{Limits{MaxSearchSteps: 2}, "solver limit exceeded: MaxSearchSteps is 2"},
	} {
		_, err := Solve(t.Context(), vars, WithLimits(tc.limits))
		var le *LimitError
		if !errors.As(err, &le) || !errors.Is(err, ErrLimit) || err.Error() != tc.want {
			t.Errorf("Solve with %+v = %v, want %q", tc.limits, err, tc.want)
		}
	}
	if _, err := Solve(t.Context(), vars, WithLimits(Limits{MaxVariables: 2, MaxSearchSteps: 10})); err != nil {
		t.Errorf("within limits: %v", err)
	}
}

func TestSolveCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Solve(ctx, generate(4, 3, 1)); !errors.Is(err, context.Canceled) {
		t.Errorf("pre-cancelled: error %v, want context.Canceled", err)
	}

	// 12 pigeons in 11 holes keeps a CDCL solver busy far longer than this.
	ctx, cancel = context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Solve(ctx, pigeons(12, 11))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Solve returned %v after the deadline", d)
	}
}

// pigeons places p pigeons in h holes: each pigeon sits in one of its holes,
// each hole takes at most one pigeon.
func pigeons(p, h int) []Variable {
	var vars []Variable
	at := func(i, j int) Identifier { return Identifier(fmt.Sprintf("p%d@h%d", i, j)) }
	for i := range p {
		var holes []Identifier
		for j := range h {
			holes = append(holes, at(i, j))
		}
		vars = append(vars, v(Identifier(fmt.Sprintf("pigeon%d", i)), Mandatory(), Dependency(holes...)))
	}
	for j := range h {
		var in []Identifier
		for i := range p {
			in = append(in, at(i, j))
			vars = append(vars, v(at(i, j)))
		}
		vars = append(vars, v(Identifier(fmt.Sprintf("hole%d", j)), AtMost(1, in...)))
	}
	return vars
}

// TestAnyKeepsPreferenceInsideOperands pins a fix: an any whose operand
// merely held in the solver's arbitrary model was skipped, and the
// operand's own candidate order was lost (the older bundle won).
func TestAnyKeepsPreferenceInsideOperands(t *testing.T) {
	for _, c := range []Constraint{
		Or(Dependency("new", "old"), Dependency("new", "old")),
		Or(Dependency("new", "old"), Dependency()),
		WithMessage(Or(Dependency("new", "old")), "any"),
	} {
		vars := []Variable{
			NewVar("sub", Mandatory(), Dependency("app")),
			NewVar("app", c),
			NewVar("old"), NewVar("new"), // declared oldest first on purpose
			NewVar("pkg", AtMost(1, "new", "old")),
		}
		got, err := Solve(t.Context(), vars)
		if err != nil {
			t.Fatal(err)
		}
		if last := got[len(got)-1].Identifier(); last != "new" {
			t.Errorf("%s: installed %v, want the preferred candidate new", c.String("app"), got)
		}
	}
}
