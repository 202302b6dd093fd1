package render

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Summary words the changes in one line for a commit message, naming at
// most max objects, such as
// "Deployment/acme-db image, ClusterRole/acme-db +1 rule, +Service/acme-db-metrics".
// Added objects read "+Kind/name", removed "-Kind/name"; a changed object
// lists the last segment of each changed field, a Role or ClusterRole the
// rules it gains and loses, a CRD the versions it gains and loses. Control
// characters a bundle may hide in a name are dropped, so the line stays
// one line. Empty changes give "".
func (c Changes) Summary(max int) string {
	var items []string
	for _, r := range c.Added {
		items = append(items, "+"+shortRef(r))
	}
	for _, r := range c.Removed {
		items = append(items, "-"+shortRef(r))
	}
	rbac := map[ObjectRef]RuleChange{}
	for _, rc := range c.RBAC {
		rbac[withoutVersion(rc.Role)] = rc
	}
	crds := map[ObjectRef]CRDChange{}
	for _, cc := range c.CRDs {
		crds[withoutVersion(cc.CRD)] = cc
	}
	for _, ch := range c.Changed {
		ref := withoutVersion(ch.ObjectRef)
		var what []string
		if rc, ok := rbac[ref]; ok {
			what = append(what, counted(len(rc.Gained), "+", "rule"), counted(len(rc.Lost), "-", "rule"))
		} else if cc, ok := crds[ref]; ok {
			what = append(what, prefixed("+", cc.VersionsAdded), prefixed("-", cc.VersionsRemoved))
		}
		what = slices.DeleteFunc(what, func(s string) bool { return s == "" })
		if len(what) == 0 {
			what = fieldNames(ch.Fields)
		}
		items = append(items, strings.TrimSpace(shortRef(ch.ObjectRef)+" "+strings.Join(what, " ")))
	}
	if len(items) > max {
		items = append(items[:max:max], fmt.Sprintf("%d more", len(items)-max))
	}
	return oneLine(strings.Join(items, ", "))
}

func shortRef(r ObjectRef) string { return r.Kind + "/" + r.Name }

func withoutVersion(r ObjectRef) ObjectRef {
	r.Version = ""
	return r
}

// counted is "+1 rule", "-3 rules"; "" for none.
func counted(n int, sign, noun string) string {
	switch n {
	case 0:
		return ""
	case 1:
		return sign + "1 " + noun
	}
	return fmt.Sprintf("%s%d %ss", sign, n, noun)
}

func prefixed(sign string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	return sign + strings.Join(names, " "+sign)
}

// fieldNames shortens changed paths to their last field, without list or
// map keys: "spec.template.spec.containers[etcd].image" reads "image".
func fieldNames(paths []string) []string {
	var out []string
	for _, p := range paths {
		name := p
		depth := 0
		for i := len(p) - 1; i >= 0; i-- {
			switch p[i] {
			case ']':
				depth++
			case '[':
				depth--
			}
			if p[i] == '.' && depth == 0 {
				name = p[i+1:]
				break
			}
		}
		if i := strings.IndexByte(name, '['); i > 0 {
			name = name[:i]
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
}
