package catalog

import (
	"errors"
	"sort"
	"strings"

	"github.com/olmops/olmops/catalog/fbc"
)

// Problems is every finding about a catalog, ordered by file and line.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap exposes each problem to errors.Is and errors.As.
func (ps Problems) Unwrap() []error {
	out := make([]error, len(ps))
	for i, p := range ps {
		out[i] = p
	}
	return out
}

// Err returns nil when there are no problems, else ps.
func (ps Problems) Err() error {
	if len(ps) == 0 {
		return nil
	}
	return ps
}

// Validate checks the catalog against the rules opm validate applies and
// returns every problem at once, ordered by file and line.
func (c *Catalog) Validate() Problems {
	ps := append(Problems(nil), c.problems...)
	sortProblems(ps)
	return ps
}

func sortProblems(ps Problems) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i].Pos, ps[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
}

// AsProblems flattens an error from loading a catalog (possibly a tree of
// joined errors) into problems with positions, for reporting.
func AsProblems(err error) Problems {
	var ps Problems
	var walk func(error)
	walk = func(err error) {
		if err == nil {
			return
		}
		var p Problem
		var fe *fbc.Error
		switch {
		case errors.As(err, &fe) && fe == err:
			ps = append(ps, Problem{Pos: fe.Pos, Message: strings.TrimPrefix(fe.Error(), fe.Pos.String()+": "), Err: fe})
		case errors.As(err, &p) && error(p) == err:
			ps = append(ps, p)
		default:
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				for _, e := range j.Unwrap() {
					walk(e)
				}
				return
			}
			ps = append(ps, Problem{Message: err.Error(), Err: err})
		}
	}
	walk(err)
	return ps
}
