package sat

// Identifier names a Variable. It must be unique within one problem.
type Identifier string

// String returns the identifier as text.
func (id Identifier) String() string { return string(id) }

// Variable is one thing the solver may install, such as a bundle.
// Implementations may carry any payload; Solve returns the same values it
// was given.
type Variable interface {
	// Identifier returns the variable's unique name in the problem.
	Identifier() Identifier
	// Constraints returns the rules that apply to the variable.
	Constraints() []Constraint
}

// Var is a plain Variable: an identifier and its constraints.
type Var struct {
	id          Identifier
	constraints []Constraint
}

// NewVar returns a Variable with the given identifier and constraints.
func NewVar(id Identifier, constraints ...Constraint) Var {
	return Var{id: id, constraints: constraints}
}

// Identifier implements Variable.
func (v Var) Identifier() Identifier { return v.id }

// Constraints implements Variable.
func (v Var) Constraints() []Constraint { return v.constraints }
