package resolver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/property"
	"github.com/olmops/olmops/catalog/semver"
	"github.com/olmops/olmops/resolver/sat"
)

// celCostLimit bounds one CEL evaluation, so a hostile rule cannot stall
// a resolution.
const celCostLimit = 1_000_000

const maxConstraintDepth = 32

// predicate is an olm.constraint read as OLM reads it: a test of one
// candidate bundle.
type predicate func(*catalog.Bundle) (bool, error)

// constraintProviders lists the entries of the bundles that satisfy c,
// most preferred first: the dependent needs one of them. A compound is one
// predicate too, so all{A, B} needs one bundle that is both A and B, and
// not{A} one bundle that is not A; neither ever asks for two bundles or
// bans one from the namespace. Leaves take the indexed paths.
func (p *problem) constraintProviders(dep *bundleVar, c property.Constraint) ([]sat.Identifier, error) {
	switch {
	case c.GVK != nil:
		return p.providers(dep, *c.GVK), nil
	case c.Package != nil:
		return p.packageProviders(dep, *c.Package)
	}
	pred, err := p.predicate(c, 0)
	if err != nil {
		return nil, err
	}
	return p.matching(dep, pred)
}

// matching lists the entries of every bundle pred accepts, in OLM's order.
func (p *problem) matching(dep *bundleVar, pred predicate) ([]sat.Identifier, error) {
	var cands []*bundleVar
	for _, cat := range p.visible {
		for _, pn := range cat.PackageNames() {
			pkg := cat.Packages[pn]
			for _, bn := range pkg.BundleNames() {
				b := pkg.Bundles[bn]
				ok, err := pred(b)
				if err != nil {
					return nil, fmt.Errorf("bundle %s: %w", b.Name, err)
				}
				if ok {
					cands = append(cands, p.entries(cat, b)...)
				}
			}
		}
	}
	return p.ordered(dep, cands), nil
}

// predicate compiles c into a test of one bundle; all, any and not combine
// the tests of their children.
func (p *problem) predicate(c property.Constraint, depth int) (predicate, error) {
	if depth > maxConstraintDepth {
		return nil, fmt.Errorf("constraint nested deeper than %d levels", maxConstraintDepth)
	}
	switch {
	case c.GVK != nil:
		g := *c.GVK
		return func(b *catalog.Bundle) (bool, error) { return slices.Contains(b.Props.GVKs, g), nil }, nil
	case c.Package != nil:
		rng, err := semver.ParseClassicRange(c.Package.VersionRange)
		if err != nil {
			return nil, err
		}
		name := c.Package.PackageName
		return func(b *catalog.Bundle) (bool, error) {
			return b.Package.Name == name && b.Version != nil && rng.Contains(b.Version), nil
		}, nil
	case c.Cel != nil:
		return p.celPredicate(c.Cel.Rule)
	case c.All != nil:
		return p.compound(c.All, depth, true)
	case c.Any != nil:
		return p.compound(c.Any, depth, false)
	case c.Not != nil:
		// OLM's not is "none of": any child holding makes it false.
		anyOf, err := p.compound(c.Not, depth, false)
		if err != nil {
			return nil, err
		}
		return func(b *catalog.Bundle) (bool, error) {
			ok, err := anyOf(b)
			return !ok && err == nil, err
		}, nil
	}
	return nil, fmt.Errorf("constraint has no predicate")
}

// compound combines the children's tests: for all every child must hold,
// for any (all false) one must; the first child that decides stops.
func (p *problem) compound(comp *property.Compound, depth int, all bool) (predicate, error) {
	preds := make([]predicate, 0, len(comp.Constraints))
	for _, sc := range comp.Constraints {
		pr, err := p.predicate(sc, depth+1)
		if err != nil {
			return nil, err
		}
		preds = append(preds, pr)
	}
	return func(b *catalog.Bundle) (bool, error) {
		for _, pr := range preds {
			ok, err := pr(b)
			if err != nil || ok != all {
				return ok, err
			}
		}
		return all, nil
	}, nil
}

func (p *problem) celPredicate(rule string) (predicate, error) {
	prg, err := compileCEL(rule)
	if err != nil {
		return nil, err
	}
	return func(b *catalog.Bundle) (bool, error) {
		ok, err := evalCEL(prg, p.celInput(b))
		if err != nil {
			return false, fmt.Errorf("cel rule %q: %w", rule, err)
		}
		return ok, nil
	}, nil
}

var (
	celOnce sync.Once
	celEnv  *cel.Env
	celErr  error
	celMu   sync.Mutex
	celPrgs = map[string]cel.Program{}
)

// environment is OLM's: the candidate's properties as a list of
// {type, value} maps, and semver_compare(a, b) returning -1, 0 or 1.
func environment() (*cel.Env, error) {
	celOnce.Do(func() {
		celEnv, celErr = cel.NewEnv(
			cel.Variable("properties", cel.ListType(cel.MapType(cel.StringType, cel.DynType))),
			cel.Function("semver_compare",
				cel.Overload("semver_compare_string_string", []*cel.Type{cel.StringType, cel.StringType}, cel.IntType,
					cel.BinaryBinding(semverCompare))),
		)
	})
	return celEnv, celErr
}

func semverCompare(a, b ref.Val) ref.Val {
	as, ok1 := a.Value().(string)
	bs, ok2 := b.Value().(string)
	if !ok1 || !ok2 {
		return types.NewErr("semver_compare takes two strings")
	}
	va, err := semver.ParseVersionRelease(as)
	if err != nil {
		return types.NewErr("semver_compare: %v", err)
	}
	vb, err := semver.ParseVersionRelease(bs)
	if err != nil {
		return types.NewErr("semver_compare: %v", err)
	}
	return types.Int(va.Compare(vb))
}

func compileCEL(rule string) (cel.Program, error) {
	celMu.Lock()
	defer celMu.Unlock()
	if prg, ok := celPrgs[rule]; ok {
		return prg, nil
	}
	env, err := environment()
	if err != nil {
		return nil, err
	}
	ast, iss := env.Compile(rule)
	if iss.Err() != nil {
		return nil, fmt.Errorf("cel rule %q does not compile: %w", rule, iss.Err())
	}
	if ast.OutputType() != cel.BoolType {
		return nil, fmt.Errorf("cel rule %q gives %s, not a bool", rule, ast.OutputType())
	}
	prg, err := env.Program(ast, cel.CostLimit(celCostLimit))
	if err != nil {
		return nil, fmt.Errorf("cel rule %q: %w", rule, err)
	}
	celPrgs[rule] = prg
	return prg, nil
}

// celInput is a bundle's properties as CEL sees them, decoded once per
// resolution however many rules test the bundle.
func (p *problem) celInput(b *catalog.Bundle) map[string]any {
	in, ok := p.cel[b]
	if !ok {
		in = map[string]any{"properties": celProperties(b)}
		p.cel[b] = in
	}
	return in
}

func celProperties(b *catalog.Bundle) []map[string]any {
	props := make([]map[string]any, 0, len(b.Properties))
	for _, pr := range b.Properties {
		if pr.Type == property.TypeCSVMetadata || pr.Type == property.TypeBundleObject {
			continue // large, and not what constraints select on
		}
		var v any
		raw, err := pr.Value.JSON()
		if err == nil {
			err = json.Unmarshal(raw, &v)
		}
		if err != nil {
			continue
		}
		props = append(props, map[string]any{"type": pr.Type, "value": v})
	}
	return props
}

func evalCEL(prg cel.Program, in map[string]any) (bool, error) {
	out, _, err := prg.Eval(in)
	if err != nil {
		return false, err
	}
	ok, isBool := out.Value().(bool)
	return ok && isBool, nil
}

// describeConstraint words a constraint that has no failureMessage.
func describeConstraint(c property.Constraint) string {
	switch {
	case c.GVK != nil:
		return fmt.Sprintf("an operator providing an API with group: %s, version: %s, kind: %s", c.GVK.Group, c.GVK.Version, c.GVK.Kind)
	case c.Package != nil:
		return fmt.Sprintf("an operator with package: %s and with version in range: %s", c.Package.PackageName, c.Package.VersionRange)
	case c.Cel != nil:
		return fmt.Sprintf("an operator matching the rule %q", c.Cel.Rule)
	}
	var comp *property.Compound
	word := "all of"
	switch {
	case c.All != nil:
		comp = c.All
	case c.Any != nil:
		comp, word = c.Any, "any of"
	case c.Not != nil:
		comp, word = c.Not, "none of"
	}
	if comp == nil {
		return "a constraint"
	}
	parts := make([]string, len(comp.Constraints))
	for i, sc := range comp.Constraints {
		parts[i] = describeConstraint(sc)
	}
	return word + " (" + strings.Join(parts, "; ") + ")"
}
