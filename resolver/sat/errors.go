package sat

import (
	"errors"
	"fmt"
	"strings"
)

// AppliedConstraint is a Constraint together with the Variable it is
// attached to.
type AppliedConstraint struct {
	Variable   Variable
	Constraint Constraint
}

// String describes the applied constraint in words, for example
// "etcd.v0.9.4 requires at least one of etcd-backup.v1, etcd-backup.v2".
func (a AppliedConstraint) String() string {
	return a.Constraint.String(a.Variable.Identifier())
}

// NotSatisfiable is the error Solve returns when no assignment meets every
// constraint. Constraints is a minimal set of applied constraints that
// cannot all hold: drop any one of them and the rest can. It lists them in
// input order (by variable, then by constraint).
type NotSatisfiable struct {
	Constraints []AppliedConstraint
}

// Error returns OLM's one-line form: "constraints not satisfiable: " and the
// constraints in words, separated by ", ".
func (e *NotSatisfiable) Error() string {
	const msg = "constraints not satisfiable"
	if len(e.Constraints) == 0 {
		return msg
	}
	s := make([]string, len(e.Constraints))
	for i, a := range e.Constraints {
		s[i] = a.String()
	}
	return msg + ": " + strings.Join(s, ", ")
}

// ErrLimit is matched (with errors.Is) by every *LimitError.
var ErrLimit = errors.New("solver limit exceeded")

// LimitError reports that a problem or its search exceeded a Limits field.
type LimitError struct {
	// Limit names the exceeded field of Limits.
	Limit string
	// Max is the field's value.
	Max int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: %s is %d", ErrLimit, e.Limit, e.Max)
}

// Unwrap returns ErrLimit.
func (e *LimitError) Unwrap() error { return ErrLimit }

// ErrInvalidProblem is matched (with errors.Is) by errors about malformed
// input: duplicate identifiers, references to unknown identifiers, nil
// variables or constraints.
var ErrInvalidProblem = errors.New("invalid problem")
