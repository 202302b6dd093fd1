package sat

import "testing"

func TestConstraintString(t *testing.T) {
	for _, tc := range []struct {
		c    Constraint
		want string
	}{
		{Mandatory(), "a is mandatory"},
		{Prohibited(), "a is prohibited"},
		{Dependency("b", "c"), "a requires at least one of b, c"},
		{Dependency(), "a has a dependency without any candidates to satisfy it"},
		{Conflict("b"), "a conflicts with b"},
		{AtMost(1, "b", "c"), "a permits at most 1 of b, c"},
		{And(Dependency("b"), Not(Dependency("c", "d"))), "a requires all of (at least one of [b]; not (at least one of [c, d]))"},
		{Or(Dependency("b"), And(Dependency("c"), Conflict("d"))), "a requires any of (at least one of [b]; all of (at least one of [c]; not d))"},
		{Not(Conflict("b")), "a requires not (not b)"},
		{WithMessage(Dependency("b"), "gvk2-constraint"), "gvk2-constraint"},
	} {
		if got := tc.c.String("a"); got != tc.want {
			t.Errorf("String(a) = %q, want %q", got, tc.want)
		}
	}
}
