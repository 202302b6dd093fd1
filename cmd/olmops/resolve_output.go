package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/resolver"
)

// resultJSON is where one subscription goes.
type resultJSON struct {
	Subscription string   `json:"subscription,omitempty"`
	Package      string   `json:"package"`
	Installed    string   `json:"installed,omitempty"`
	Bundle       string   `json:"bundle"`
	Version      string   `json:"version"`
	Channel      string   `json:"channel"`
	Catalog      string   `json:"catalog"`
	Edge         string   `json:"edge"`
	Path         []string `json:"path"`
	Held         string   `json:"held,omitempty"`
	Warnings     []string `json:"warnings"`

	edge resolver.Edge
}

// dependencyJSON is a proposed subscription for a required operator.
type dependencyJSON struct {
	Name       string   `json:"name"`
	Package    string   `json:"package"`
	Bundle     string   `json:"bundle"`
	Channel    string   `json:"channel"`
	Catalog    string   `json:"catalog"`
	RequiredBy []string `json:"requiredBy"`
}

// singleJSON is the answer of the --package form.
type singleJSON struct {
	resultJSON
	Dependencies []dependencyJSON `json:"dependencies,omitempty"`
}

// errorJSON is a resolution that failed.
type errorJSON struct {
	Error       string   `json:"error"`
	Explanation []string `json:"explanation"`
}

type namespaceJSON struct {
	Namespace    string           `json:"namespace"`
	Error        string           `json:"error,omitempty"`
	Explanation  []string         `json:"explanation,omitempty"`
	Results      []resultJSON     `json:"results,omitempty"`
	Dependencies []dependencyJSON `json:"dependencies,omitempty"`
	Findings     []string         `json:"findings,omitempty"`
}

// namespacesJSON is the answer of the --subscriptions form.
type namespacesJSON struct {
	Namespaces []namespaceJSON `json:"namespaces"`
}

// toResultJSON describes a resolution. warnings are the catalogs' validation
// problems by package; those of r's package and of no package are added to
// its deprecation warnings.
func toResultJSON(r resolver.Resolution, installed *resolver.Installed, warnings map[string][]string) resultJSON {
	rj := resultJSON{
		Package: r.Package, Bundle: r.BundleName, Channel: channelName(r.Channel), Catalog: catalogName(r.Catalog),
		Edge: string(r.Edge.Kind), Held: r.Held, Warnings: []string{}, edge: r.Edge,
	}
	if installed != nil {
		rj.Installed = installed.Bundle
	}
	switch {
	case r.Bundle != nil && r.Bundle.Version != nil:
		rj.Version = r.Bundle.Version.String()
	case installed != nil && installed.Bundle == r.BundleName:
		rj.Version = installed.Version
	}
	for _, h := range r.Path {
		rj.Path = append(rj.Path, h.Edge.To)
	}
	if len(rj.Path) == 0 {
		rj.Path = []string{r.BundleName}
	}
	for _, w := range r.Warnings {
		rj.Warnings = append(rj.Warnings, strings.TrimSpace(w.String()))
	}
	rj.Warnings = append(rj.Warnings, warnings[""]...)
	rj.Warnings = append(rj.Warnings, warnings[r.Package]...)
	return rj
}

func toDependenciesJSON(deps []resolver.Dependency) []dependencyJSON {
	var out []dependencyJSON
	for _, d := range deps {
		dj := dependencyJSON{Name: d.Name, Package: d.Package, Bundle: d.StartingCSV, Channel: channelName(d.Channel), Catalog: catalogName(d.Catalog), RequiredBy: d.RequiredBy}
		if dj.RequiredBy == nil {
			dj.RequiredBy = []string{}
		}
		out = append(out, dj)
	}
	return out
}

// toErrorJSON describes a failed resolution: an unsatisfiable one by the
// constraints that conflict (its one constraint, when there is one, is also
// the error), anything else by its message.
func toErrorJSON(err error) errorJSON {
	var u *resolver.Unsatisfiable
	switch {
	case !errors.As(err, &u) || len(u.Explanation) == 0:
		return errorJSON{Error: err.Error(), Explanation: []string{err.Error()}}
	case len(u.Explanation) == 1:
		return errorJSON{Error: u.Explanation[0], Explanation: u.Explanation}
	}
	return errorJSON{Error: "constraints not satisfiable", Explanation: u.Explanation}
}

func channelName(ch *catalog.Channel) string {
	if ch == nil {
		return ""
	}
	return ch.Name
}

func catalogName(c *catalog.Catalog) string {
	if c == nil {
		return ""
	}
	return c.Name
}

// writeResolve writes v as indented JSON or YAML, or as text with writeText.
func writeResolve[T any](w io.Writer, format string, v T, writeText func(*textWriter, T)) error {
	if structured(format) {
		return encode(w, format, v)
	}
	tw := &textWriter{w: w}
	writeText(tw, v)
	return tw.err
}

// textWriter keeps the first write error, so text output reads as a list
// of lines.
type textWriter struct {
	w   io.Writer
	err error
}

func (t *textWriter) line(indent int, format string, a ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, strings.Repeat("  ", indent)+format+"\n", a...)
	}
}

func writeSingleText(t *textWriter, s singleJSON) {
	writeResultText(t, 0, s.resultJSON)
	writeDependenciesText(t, 1, s.Dependencies)
}

func writeErrorText(t *textWriter, e errorJSON) {
	writeErrorLines(t, 0, e.Error, e.Explanation)
}

func writeErrorLines(t *textWriter, indent int, msg string, explanation []string) {
	t.line(indent, "error: %s", msg)
	for _, x := range explanation {
		t.line(indent+1, "- %s", x)
	}
}

func writeNamespacesText(t *textWriter, out namespacesJSON) {
	for i, ns := range out.Namespaces {
		if i > 0 {
			t.line(0, "")
		}
		t.line(0, "namespace %s:", ns.Namespace)
		if ns.Error != "" {
			writeErrorLines(t, 1, ns.Error, ns.Explanation)
			continue
		}
		for _, r := range ns.Results {
			writeResultText(t, 1, r)
		}
		writeDependenciesText(t, 1, ns.Dependencies)
		for _, f := range ns.Findings {
			t.line(1, "finding: %s", f)
		}
	}
}

// writeResultText writes "name: from → to (channel, catalog) via edge" and
// the path and warnings under it.
func writeResultText(t *textWriter, indent int, r resultJSON) {
	name := cmp.Or(r.Subscription, r.Package)
	where := strings.Join(slices.DeleteFunc([]string{r.Channel, r.Catalog}, func(s string) bool { return s == "" }), ", ")
	if where != "" {
		where = " (" + where + ")"
	}
	switch e := r.edge; e.Kind {
	case resolver.EdgeInstall:
		t.line(indent, "%s: install %s%s", name, r.Bundle, where)
	case resolver.EdgeStay:
		t.line(indent, "%s: stay on %s%s", name, r.Bundle, where)
	case resolver.EdgeSkipRange:
		t.line(indent, "%s: %s → %s%s via skipRange %q", name, e.From, r.Bundle, where, e.Range)
	default:
		t.line(indent, "%s: %s → %s%s via %s", name, e.From, r.Bundle, where, e.Kind)
	}
	if r.Held != "" {
		t.line(indent+1, "held: %s", r.Held)
	}
	if len(r.Path) > 1 {
		t.line(indent+1, "path: %s", strings.Join(append([]string{r.Installed}, r.Path...), " → "))
	}
	for _, w := range r.Warnings {
		t.line(indent+1, "warning: %s", w)
	}
}

func writeDependenciesText(t *textWriter, indent int, deps []dependencyJSON) {
	for _, d := range deps {
		t.line(indent, "requires: %s %s (%s, %s) for %s (proposed subscription %s)",
			d.Package, d.Bundle, d.Channel, d.Catalog, strings.Join(d.RequiredBy, ", "), d.Name)
	}
}
