package resolver

import (
	"strings"
	"testing"
)

// TestCheckCEL pins issue 15 item 4: a cel rule that does not compile in
// OLM's environment, alone or inside a compound, is a warning at its
// property's line; rules that compile, and constraints of other kinds, are
// not.
func TestCheckCEL(t *testing.T) {
	for _, tc := range []struct{ name, constraint, want string }{
		{"compiles", `{cel: {rule: 'properties.exists(p, p.type == "olm.gvk")'}}`, ""},
		{"semver_compare compiles", `{cel: {rule: 'semver_compare("1.0.0", "2.0.0") < 0'}}`, ""},
		{"syntax error", `{cel: {rule: 'properties.exists(p, '}}`,
			`hub.yaml:17: bundle app.v1.0.0: olm.constraint: cel rule "properties.exists(p, " does not compile`},
		{"undeclared function", `{cel: {rule: 'nope(properties)'}}`, `cel rule "nope(properties)" does not compile`},
		{"not a bool", `{cel: {rule: '1 + 1'}}`, `cel rule "1 + 1" gives int, not a bool`},
		{"inside not of all", `{all: {constraints: [{gvk: {group: g, kind: X, version: v1}}, {not: {constraints: [{cel: {rule: 'x +'}}]}}]}}`,
			`cel rule "x +" does not compile`},
		{"gvk only", `{gvk: {group: g, kind: X, version: v1}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat := testCatalog(t, "hub", strings.Replace(compoundCatalog, "CONSTRAINT", tc.constraint, 1))
			ws := CheckCEL(cat)
			if tc.want == "" {
				if len(ws) > 0 {
					t.Fatalf("warnings %v, want none", ws)
				}
				return
			}
			if len(ws) != 1 || !strings.Contains(ws[0].Error(), tc.want) {
				t.Fatalf("warnings %v, want one containing %q", ws, tc.want)
			}
		})
	}
}
