package sat

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestScenarios restates the `level: solver` entries of
// shared/scenarios/scenarios.yaml at this package's level: the resolver's
// work (channels, catalogs, candidate order, OLM's messages) is done by
// hand, and what is left is the SAT problem OLM hands its solver. Entries
// that test channel ordering or resolver errors rather than the solver
// (classic-disjoint-channel-graph-error, ...) are not restated.
func TestScenarios(t *testing.T) {
	csv := func(name string) Constraint {
		return WithMessage(Mandatory(), "clusterserviceversion "+name+" exists and is not referenced by a subscription")
	}
	sub := func(name string) Constraint { return WithMessage(Mandatory(), "subscription "+name+" exists") }
	for _, tc := range []struct {
		id          string
		vars        []Variable
		want        []Identifier
		core        []string // *NotSatisfiable with these constraints
		errContains string
	}{
		{
			id: "classic-package-cannot-self-satisfy",
			vars: []Variable{
				v("sub-test-package", sub("test-package"), Dependency("opA.v1.0.0")),
				v("opA.v1.0.0",
					Dependency("opABC.v1.0.0", "opB.v1.0.0", "opD.v1.0.0"), // providers of g/v/k
					Dependency("opABC.v1.0.0", "opC.v1.0.0", "opE.v1.0.0"), // providers of g2/v/k
				),
				v("opABC.v1.0.0"), v("opB.v1.0.0"), v("opD.v1.0.0"), v("opC.v1.0.0"), v("opE.v1.0.0"),
				v("package test-package", AtMost(1, "opA.v1.0.0", "opABC.v1.0.0")),
				v("package another-package", AtMost(1, "opB.v1.0.0", "opD.v1.0.0", "opC.v1.0.0")),
				v("package packageC", AtMost(1, "opE.v1.0.0")),
				v("gvk g/v/k", AtMost(1, "opABC.v1.0.0", "opB.v1.0.0", "opD.v1.0.0")),
				v("gvk g2/v/k", AtMost(1, "opABC.v1.0.0", "opC.v1.0.0", "opE.v1.0.0")),
			},
			want: []Identifier{"sub-test-package", "opA.v1.0.0", "opB.v1.0.0", "opE.v1.0.0"},
		},
		{
			id: "classic-subscriptionless-operator-satisfies-dependency",
			vars: []Variable{
				v("@existing/test-package.v1", csv("test-package.v1")),
				v("sub-another-package", sub("another-package"), Dependency("another-package.v1.0.1", "another-package.v1.0.0")),
				v("another-package.v1.0.1", Dependency("@existing/test-package.v1")),
				v("another-package.v1.0.0", Dependency("@existing/test-package.v1")),
				v("package another-package", AtMost(1, "another-package.v1.0.1", "another-package.v1.0.0")),
			},
			want: []Identifier{"@existing/test-package.v1", "sub-another-package", "another-package.v1.0.1"},
		},
		{
			id: "classic-subscriptionless-operator-conflicts",
			vars: []Variable{
				v("@existing/test-package.v1", csv("test-package.v1")),
				v("sub-another-package", sub("another-package"), Dependency("another-package.v1.0.1", "another-package.v1.0.0")),
				v("another-package.v1.0.1"), v("another-package.v1.0.0"),
				v("gvk g/v/k", AtMost(1, "@existing/test-package.v1", "another-package.v1.0.1", "another-package.v1.0.0")),
			},
			core: []string{
				"clusterserviceversion test-package.v1 exists and is not referenced by a subscription",
				"subscription another-package exists",
				"sub-another-package requires at least one of another-package.v1.0.1, another-package.v1.0.0",
				"gvk g/v/k permits at most 1 of @existing/test-package.v1, another-package.v1.0.1, another-package.v1.0.0",
			},
		},
		{
			id: "classic-find-latest-with-nested-package-deps",
			vars: []Variable{
				v("sub-test-package", sub("test-package"), Dependency("test-package.v1.0.1")),
				v("sub-another-package", sub("another-package"), Dependency("another-package.v1.0.1", "another-package.v1.0.0", "another-package.v0.9.0")),
				v("test-package.v1.0.1"),
				v("another-package.v0.9.0"), v("another-package.v1.0.0"),
				v("another-package.v1.0.1", Dependency("packageC.v1.0.1"), Dependency("packageD.v1.0.1")),
				v("packageC.v1.0.0", Dependency("packageE.v1.0.1")),
				v("packageC.v1.0.1", Dependency("packageE.v1.0.1")),
				v("packageD.v1.0.1"),
				v("packageE.v1.0.0"), v("packageE.v1.0.1"),
				v("package another-package", AtMost(1, "another-package.v1.0.1", "another-package.v1.0.0", "another-package.v0.9.0")),
				v("package packageC", AtMost(1, "packageC.v1.0.1", "packageC.v1.0.0")),
				v("package packageE", AtMost(1, "packageE.v1.0.1", "packageE.v1.0.0")),
			},
			want: []Identifier{
				"sub-test-package", "sub-another-package", "test-package.v1.0.1", "another-package.v1.0.1",
				"packageC.v1.0.1", "packageD.v1.0.1", "packageE.v1.0.1",
			},
		},
		{
			id: "classic-package-dependency",
			vars: []Variable{
				v("sub-another-package", sub("another-package"), Dependency("another-package.v1")),
				v("another-package.v1", Dependency("packageC.v1")),
				v("packageC.v1"),
			},
			want: []Identifier{"sub-another-package", "another-package.v1", "packageC.v1"},
		},
		{
			id: "classic-catsrc-priority-for-dependency (same catalog as the dependent first)",
			vars: []Variable{
				v("sub-test-package", sub("test-package"), Dependency("community/test-package.v1")),
				v("community/test-package.v1", Dependency(
					"community/another-package.v1",
					"high-priority-operator/another-package.v1",
					"community-operator/another-package.v1",
				)),
				v("community-operator/another-package.v1"),
				v("high-priority-operator/another-package.v1"),
				v("community/another-package.v1"),
				v("package another-package", AtMost(1,
					"community-operator/another-package.v1", "high-priority-operator/another-package.v1", "community/another-package.v1")),
			},
			want: []Identifier{"sub-test-package", "community/test-package.v1", "community/another-package.v1"},
		},
		{
			id: "classic-label-dependency",
			vars: []Variable{
				v("sub-test-package", sub("test-package"), Dependency("test-package")),
				v("test-package", Dependency("another-package.v1")), // bundles with label lts
				v("another-package.v1"),
			},
			want: []Identifier{"sub-test-package", "test-package", "another-package.v1"},
		},
		{
			id: "classic-label-dependency-unsatisfiable",
			vars: []Variable{
				v("sub-test-package", sub("test-package"), Dependency("test-package")),
				v("test-package", Dependency()), // no bundle has label lts
				v("another-package.v1"),
			},
			core: []string{
				"subscription test-package exists",
				"sub-test-package requires at least one of test-package",
				"test-package has a dependency without any candidates to satisfy it",
			},
		},
		{
			id: "classic-deprecated-only-candidate-unsatisfiable",
			vars: []Variable{
				v("sub-test-package", sub("test-package"), Dependency("test-package.v1")),
				v("test-package.v1", WithMessage(Prohibited(), "bundle test-package.v1 is deprecated")),
			},
			core: []string{
				"subscription test-package exists",
				"sub-test-package requires at least one of test-package.v1",
				"bundle test-package.v1 is deprecated",
			},
		},
		{
			id: "classic-skipped-entry-not-selectable",
			vars: []Variable{
				v("sub-a", sub("a"), Dependency("a-1")),
				v("a-1", WithMessage(Dependency(), "bundle a-1 requires an operator providing an API with group: g, version: v, kind: k")),
			},
			errContains: "bundle a-1 requires an operator providing an API with group: g, version: v, kind: k",
		},
		{
			id: "classic-generic-cel-constraint (NotSatisfiable GVK Dependency)",
			vars: []Variable{
				v("sub-test-package", sub("test-package"), Dependency("opA.v1.0.0")),
				v("opA.v1.0.0", WithMessage(Dependency(), "gvk2-constraint")),
				v("opB.v1.0.0"),
			},
			errContains: "gvk2-constraint",
		},
		{
			id: "classic-generic-cel-constraint (Satisfiable Package Dependency)",
			vars: []Variable{
				v("sub-test-package", sub("test-package"), Dependency("opA.v1.0.0")),
				v("opA.v1.0.0", WithMessage(Dependency("opB.v1.0.1"), "package-constraint")),
				v("opB.v1.0.2"), v("opB.v1.0.1"), v("opB.v1.0.0"),
				v("package another-package", AtMost(1, "opB.v1.0.2", "opB.v1.0.1", "opB.v1.0.0")),
			},
			want: []Identifier{"sub-test-package", "opA.v1.0.0", "opB.v1.0.1"},
		},
	} {
		t.Run(tc.id, func(t *testing.T) {
			got, err := Solve(t.Context(), tc.vars)
			switch {
			case tc.core != nil || tc.errContains != "":
				var ns *NotSatisfiable
				if !errors.As(err, &ns) {
					t.Fatalf("Solve = %v, %v; want *NotSatisfiable", ids(got), err)
				}
				if !strings.Contains(err.Error(), tc.errContains) {
					t.Errorf("error %q does not contain %q", err, tc.errContains)
				}
				if tc.core == nil {
					return
				}
				var words []string
				for _, a := range ns.Constraints {
					words = append(words, a.String())
				}
				if !slices.Equal(words, tc.core) {
					t.Errorf("core =\n  %q\nwant\n  %q", words, tc.core)
				}
			case err != nil:
				t.Fatalf("Solve: %v", err)
			default:
				if !slices.Equal(ids(got), tc.want) {
					t.Errorf("installed = %v, want %v", ids(got), tc.want)
				}
				checkModel(t, tc.vars, got)
			}
		})
	}
}
