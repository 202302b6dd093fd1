package render

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const (
	rbacAPIGroup = "rbac.authorization.k8s.io"
	crdAPIGroup  = "apiextensions.k8s.io"
)

func isRoleKey(k compareKey) bool {
	return k.group == rbacAPIGroup && (k.kind == "Role" || k.kind == "ClusterRole")
}

func isCRDKey(k compareKey) bool {
	return k.group == crdAPIGroup && k.kind == "CustomResourceDefinition"
}

// ruleGrant is one atomic permission. Rules are compared as sets of grants so that
// splitting, merging or reordering rules is not reported as a change.
type ruleGrant struct {
	nonResource                 bool
	group, resource, name, verb string
	url                         string
}

func roleGrants(u *unstructured.Unstructured) map[ruleGrant]struct{} {
	set := map[ruleGrant]struct{}{}
	if u == nil {
		return set
	}
	rules, _ := u.Object["rules"].([]any)
	for _, r := range rules {
		m, _ := r.(map[string]any)
		verbs := ruleStrings(m, "verbs")
		names := ruleStrings(m, "resourceNames")
		if len(names) == 0 {
			names = []string{""} // no names: every object of the resource
		}
		for _, g := range ruleStrings(m, "apiGroups") {
			for _, res := range ruleStrings(m, "resources") {
				for _, n := range names {
					for _, v := range verbs {
						set[ruleGrant{group: g, resource: res, name: n, verb: v}] = struct{}{}
					}
				}
			}
		}
		for _, url := range ruleStrings(m, "nonResourceURLs") {
			for _, v := range verbs {
				set[ruleGrant{nonResource: true, url: url, verb: v}] = struct{}{}
			}
		}
	}
	return set
}

// ruleStrings reads a list of strings, skipping anything else: bad input
// narrows the rule rather than failing the summary.
func ruleStrings(m map[string]any, key string) []string {
	var out []string
	switch l := m[key].(type) {
	case []any:
		for _, e := range l {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	case []string:
		out = append(out, l...)
	}
	return out
}

func ruleChange(o, n *unstructured.Unstructured) (RuleChange, bool) {
	before, after := roleGrants(o), roleGrants(n)
	rc := RuleChange{Gained: regroup(missingFrom(after, before)), Lost: regroup(missingFrom(before, after))}
	if n != nil {
		rc.Role = refOfObject(n)
	} else {
		rc.Role = refOfObject(o)
	}
	return rc, len(rc.Gained)+len(rc.Lost) > 0
}

func missingFrom(set, other map[ruleGrant]struct{}) map[ruleGrant]struct{} {
	out := map[ruleGrant]struct{}{}
	for g := range set {
		if _, ok := other[g]; !ok {
			out[g] = struct{}{}
		}
	}
	return out
}

// ruleFields select each list of a Rule, in the order regroup merges them:
// verbs first, so a resource's verbs read as one rule, then the wider lists.
var ruleFields = []func(*Rule) *[]string{
	func(r *Rule) *[]string { return &r.Verbs },
	func(r *Rule) *[]string { return &r.Resources },
	func(r *Rule) *[]string { return &r.ResourceNames },
	func(r *Rule) *[]string { return &r.APIGroups },
	func(r *Rule) *[]string { return &r.NonResourceURLs },
}

// regroup turns grants back into few readable rules by repeatedly merging rules
// that differ in one list only.
func regroup(set map[ruleGrant]struct{}) []Rule {
	if len(set) == 0 {
		return nil
	}
	rules := make([]Rule, 0, len(set))
	for g := range set {
		r := Rule{Verbs: []string{g.verb}}
		if g.nonResource {
			r.NonResourceURLs = []string{g.url}
		} else {
			r.APIGroups, r.Resources = []string{g.group}, []string{g.resource}
			if g.name != "" {
				r.ResourceNames = []string{g.name}
			}
		}
		rules = append(rules, r)
	}
	for _, field := range ruleFields {
		rules = mergeRulesOn(rules, field)
	}
	// Sort by how rules read; the key breaks ties such as group "" versus "core".
	slices.SortFunc(rules, func(a, b Rule) int {
		return cmp.Or(strings.Compare(a.String(), b.String()), strings.Compare(ruleKey(a), ruleKey(b)))
	})
	return rules
}

func mergeRulesOn(rules []Rule, field func(*Rule) *[]string) []Rule {
	merged := map[string]*Rule{}
	var order []string
	for _, r := range rules {
		values := *field(&r)
		*field(&r) = nil
		key := ruleKey(r)
		m, ok := merged[key]
		if !ok {
			m = &r
			merged[key], order = m, append(order, key)
		}
		*field(m) = append(*field(m), values...)
	}
	out := make([]Rule, 0, len(order))
	for _, key := range order {
		r := merged[key]
		l := field(r)
		slices.Sort(*l)
		*l = slices.Compact(*l)
		out = append(out, *r)
	}
	return out
}

// ruleKey identifies a rule by all its lists; length prefixes keep it
// unambiguous whatever bytes the names hold.
func ruleKey(r Rule) string {
	var b strings.Builder
	for _, field := range ruleFields {
		l := *field(&r)
		b.WriteString(strconv.Itoa(len(l)))
		for _, s := range l {
			b.WriteByte(';')
			b.WriteString(strconv.Itoa(len(s)))
			b.WriteByte(':')
			b.WriteString(s)
		}
		b.WriteByte('|')
	}
	return b.String()
}
