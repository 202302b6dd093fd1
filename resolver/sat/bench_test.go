package sat

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// generate builds a catalog-shaped problem: packages × bundles bundle
// variables (newest first in every candidate list), one AtMost(1) per
// package, each bundle depending on deps other packages with a version range
// (mostly "at least", sometimes with an upper bound too), some bundles
// deprecated (prohibited), and a subscription (mandatory) on every tenth
// package. The same arguments give the same problem.
func generate(packages, bundles, deps int) []Variable {
	rng := rand.New(rand.NewPCG(uint64(packages), uint64(bundles*1000+deps)))
	name := func(p, b int) Identifier { return Identifier(fmt.Sprintf("pkg%03d.v%02d", p, bundles-b)) }
	var vars []Variable
	for p := range packages {
		if p%10 == 0 {
			var all []Identifier
			for b := range bundles {
				all = append(all, name(p, b))
			}
			vars = append(vars, v(Identifier(fmt.Sprintf("sub%03d", p)), Mandatory(), Dependency(all...)))
		}
	}
	for p := range packages {
		var pkg []Identifier
		for b := range bundles {
			id := name(p, b)
			pkg = append(pkg, id)
			var cs []Constraint
			if rng.IntN(12) == 0 {
				cs = append(cs, Prohibited())
			}
			for range deps {
				k := rng.IntN(packages)
				if k == p {
					continue
				}
				lo := rng.IntN(bundles) // oldest acceptable
				hi := 0                 // newest acceptable
				if rng.IntN(5) == 0 {
					hi = rng.IntN(lo + 1)
				}
				var candidates []Identifier
				for c := hi; c <= lo; c++ {
					candidates = append(candidates, name(k, c))
				}
				cs = append(cs, Dependency(candidates...))
			}
			vars = append(vars, v(id, cs...))
		}
		vars = append(vars, v(Identifier(fmt.Sprintf("pkg%03d", p)), AtMost(1, pkg...)))
	}
	return vars
}

func TestGenerateSolves(t *testing.T) {
	vars := generate(108, 15, 3)
	got, err := Solve(t.Context(), vars)
	if err != nil {
		t.Fatal(err)
	}
	checkModel(t, vars, got)
	t.Logf("%d variables, %d installed", len(vars), len(got))
}

func BenchmarkSolve(b *testing.B) {
	for _, size := range []struct{ packages, bundles, deps int }{
		{30, 8, 2},
		{108, 15, 3},
	} {
		vars := generate(size.packages, size.bundles, size.deps)
		b.Run(fmt.Sprintf("%dx%d", size.packages, size.bundles), func(b *testing.B) {
			for b.Loop() {
				if _, err := Solve(b.Context(), vars); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSolveUnsatisfiable(b *testing.B) {
	vars := generate(108, 15, 3)
	vars = append(vars, v("x", Mandatory(), Conflict("sub000")))
	for b.Loop() {
		if _, err := Solve(b.Context(), vars); err == nil {
			b.Fatal("want an error")
		}
	}
}
