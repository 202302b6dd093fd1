package resolver

import (
	"encoding/json"
	"fmt"
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

// compileConstraint turns an olm.constraint tree into a solver condition:
// every leaf becomes "one of these bundles", compounds map onto And, Or and
// Not.
// Leaves outside a not are recorded as the dependent's requirements.
func (p *problem) compileConstraint(dep *bundleVar, c property.Constraint, depth int, negated bool) (sat.Condition, error) {
	if depth > maxConstraintDepth {
		return nil, fmt.Errorf("constraint nested deeper than %d levels", maxConstraintDepth)
	}
	var ids []sat.Identifier
	var err error
	switch {
	case c.GVK != nil:
		ids = p.providers(dep, *c.GVK)
	case c.Package != nil:
		ids, err = p.packageProviders(dep, *c.Package)
	case c.Cel != nil:
		ids, err = p.celProviders(dep, c.Cel.Rule)
	case c.All != nil, c.Any != nil, c.Not != nil:
		return p.compileCompound(dep, c, depth, negated)
	default:
		return nil, fmt.Errorf("constraint has no predicate")
	}
	if err != nil {
		return nil, err
	}
	if !negated {
		dep.deps = append(dep.deps, ids)
	}
	return sat.Dependency(ids...), nil
}

func (p *problem) compileCompound(dep *bundleVar, c property.Constraint, depth int, negated bool) (sat.Condition, error) {
	comp := c.All
	if c.Any != nil {
		comp = c.Any
	} else if c.Not != nil {
		comp = c.Not
	}
	subs := make([]sat.Condition, 0, len(comp.Constraints))
	for _, sc := range comp.Constraints {
		cond, err := p.compileConstraint(dep, sc, depth+1, negated != (c.Not != nil))
		if err != nil {
			return nil, err
		}
		subs = append(subs, cond)
	}
	switch {
	case c.All != nil:
		return sat.And(subs...), nil
	case c.Any != nil:
		return sat.Or(subs...), nil
	}
	// not: none of the sub-constraints may hold.
	return sat.Not(sat.Or(subs...)), nil
}

func (p *problem) celProviders(dep *bundleVar, rule string) ([]sat.Identifier, error) {
	prg, err := compileCEL(rule)
	if err != nil {
		return nil, err
	}
	var cands []*bundleVar
	for _, cat := range p.ns.Catalogs {
		for _, pn := range cat.PackageNames() {
			pkg := cat.Packages[pn]
			for _, bn := range pkg.BundleNames() {
				b := pkg.Bundles[bn]
				ok, err := evalCEL(prg, p.celInput(b))
				if err != nil {
					return nil, fmt.Errorf("cel rule %q on bundle %s: %w", rule, b.Name, err)
				}
				if ok {
					cands = append(cands, p.entries(cat, b, dep.subCatalog)...)
				}
			}
		}
	}
	return p.ordered(dep, cands), nil
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
