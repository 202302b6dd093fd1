package render

import (
	"fmt"
	"github.com/olmops/olmops/catalog/markdown"
	"strings"
)

// Markdown renders the changes for a pull-request body: a counts line, warnings
// about CRD versions that stop being served, a table of objects, the fields that
// changed, and RBAC and CRD sections. The output is deterministic and has no
// trailing newline; empty changes render as "No manifest changes.".
func (c Changes) Markdown() string {
	if c.Empty() {
		return "No manifest changes."
	}
	var b strings.Builder
	c.headline(&b)
	c.objectsMarkdown(&b)
	c.rbacMarkdown(&b)
	c.crdsMarkdown(&b)
	return strings.TrimSuffix(b.String(), "\n")
}

// Headline is the head of Markdown without its tables: the counts and the
// warnings a reviewer must not miss (CRD breaks, escalations), for a text
// too short to hold the tables.
func (c Changes) Headline() string {
	if c.Empty() {
		return "No manifest changes."
	}
	var b strings.Builder
	c.headline(&b)
	return strings.TrimSuffix(b.String(), "\n")
}

func (c Changes) headline(b *strings.Builder) {
	fmt.Fprintf(b, "%d added, %d changed, %d removed\n", len(c.Added), len(c.Changed), len(c.Removed))
	for _, cc := range c.CRDs {
		if len(cc.StoppedServing) > 0 {
			fmt.Fprintf(b, "\n> ⚠️ **CRD %s stops serving %s**: existing objects of that version become unreadable.\n",
				mdCell(cc.CRD.Name), mdCodeList(cc.StoppedServing))
		}
		if len(cc.Breaks) > 0 {
			fmt.Fprintf(b, "\n> ⚠️ **CRD %s: unsafe upgrade** (%d finding(s) by OLM's crdUpgradeSafety rules): existing objects may become invalid; the controller refuses the update if any does.\n",
				mdCell(cc.CRD.Name), len(cc.Breaks))
		}
	}
	if len(c.Escalations) > 0 {
		b.WriteString("\n> ⚠️ **Grants more power** (review before merging):\n")
		for _, e := range c.Escalations {
			fmt.Fprintf(b, "> - %s\n", mdCell(e))
		}
	}
}

func (c Changes) objectsMarkdown(b *strings.Builder) {
	if len(c.Added)+len(c.Changed)+len(c.Removed) == 0 {
		return
	}
	b.WriteString("\n| Change | Kind | Namespace/Name |\n| --- | --- | --- |\n")
	row := func(change string, r ObjectRef) {
		name := r.Name
		if r.Namespace != "" {
			name = r.Namespace + "/" + r.Name
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", change, mdCell(r.Kind), mdCell(name))
	}
	for _, r := range c.Added {
		row("added", r)
	}
	for _, ch := range c.Changed {
		row("changed", ch.ObjectRef)
	}
	for _, r := range c.Removed {
		row("removed", r)
	}
	if len(c.Changed) == 0 {
		return
	}
	b.WriteString("\nChanged fields:\n\n")
	for _, ch := range c.Changed {
		fields := mdCodeList(ch.Fields)
		if ch.Omitted > 0 {
			fields += fmt.Sprintf(", ... and %d more", ch.Omitted)
		}
		fmt.Fprintf(b, "- %s: %s\n", mdCell(ch.String()), fields)
	}
}

func (c Changes) rbacMarkdown(b *strings.Builder) {
	if len(c.RBAC) == 0 {
		return
	}
	b.WriteString("\n### RBAC\n")
	for _, rc := range c.RBAC {
		fmt.Fprintf(b, "\n**%s**\n\n", mdCell(rc.Role.String()))
		for _, r := range rc.Gained {
			fmt.Fprintf(b, "- ➕ %s\n", mdCode(r.String()))
		}
		for _, r := range rc.Lost {
			fmt.Fprintf(b, "- ➖ %s\n", mdCode(r.String()))
		}
	}
}

func (c Changes) crdsMarkdown(b *strings.Builder) {
	if len(c.CRDs) == 0 {
		return
	}
	b.WriteString("\n### CRDs\n")
	for _, cc := range c.CRDs {
		fmt.Fprintf(b, "\n**%s**\n\n", mdCell(cc.CRD.Name))
		item := func(label string, versions []string) {
			if len(versions) > 0 {
				fmt.Fprintf(b, "- %s: %s\n", label, mdCodeList(versions))
			}
		}
		item("versions added", cc.VersionsAdded)
		item("versions removed", cc.VersionsRemoved)
		switch {
		case cc.NeedsMigration():
			fmt.Fprintf(b, "- storage version %s → %s: existing objects need a storage migration\n", mdCode(cc.StorageFrom), mdCode(cc.StorageTo))
		case cc.StorageTo != "":
			fmt.Fprintf(b, "- storage version %s\n", mdCode(cc.StorageTo))
		}
		item("no longer served ⚠️", cc.StoppedServing)
		item("served again", cc.StartedServing)
		item("unsafe ⚠️", cc.Breaks)
	}
}

// mdCell keeps user-controlled text from breaking a table row or a line.
// mdCell and mdCode make bundle text (names, kinds, rules) inert.
func mdCell(s string) string { return markdown.Text(s) }

func mdCode(s string) string { return markdown.Code(s) }

func mdCodeList(l []string) string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = mdCode(s)
	}
	return strings.Join(out, ", ")
}
