package plan

import (
	"fmt"
	"github.com/olmops/olmops/catalog/markdown"
	"regexp"
	"strings"
	"sync"

	"github.com/olmops/olmops/api/v1alpha1"
)

// Proposal is what one pull request (or plan branch) carries: a
// subscription's plan and the plans of the dependencies it brings.
type Proposal struct {
	// Cluster the plans are for.
	Cluster v1alpha1.Cluster
	// Main is the subscription's plan, Plans all of them (Main first).
	Main  Plan
	Plans []Plan
	// State is the operator's current state as the cluster last reported
	// it (a commit status description); "" when unknown.
	State string
	// Graph is a Markdown block drawing the upgrade graph around the
	// path; "" for none.
	Graph string
}

// Branch is the proposal's head branch, which olmops owns.
func (p *Proposal) Branch() string {
	return "olmops/" + p.Cluster.Name + "/" + p.Main.Namespace + "/" + p.Main.Name
}

// MaxTitle bounds a proposal's title: lists of pull requests cut longer
// ones, and a catalog's package name or version may be long.
const MaxTitle = 256

// Title is the proposal's one line, such as
// "etcd 0.9.2 → 0.9.4 (prod-east/operators)", at most MaxTitle characters.
func (p *Proposal) Title() string {
	t := p.title()
	if r := []rune(t); len(r) > MaxTitle {
		return string(r[:MaxTitle-1]) + "…"
	}
	return t
}

func (p *Proposal) title() string {
	m := p.Main
	where := fmt.Sprintf(" (%s/%s)", p.Cluster.Name, m.Namespace)
	pkg, to := m.File.Spec.Package, version(m.File.Spec.To)
	switch m.State {
	case Install:
		return "install " + pkg + " " + to + where
	case Remove:
		return "remove " + m.Name + " (" + pkg + " " + to + ")" + where
	case Refresh:
		if m.Changes.Empty() {
			return pkg + " " + to + ": plan refreshed, same manifests" + where
		}
		return pkg + " " + to + ": manifests changed" + where
	}
	from := "?"
	if f := m.File.Spec.From; f != nil {
		from = version(*f)
	}
	return pkg + " " + from + " → " + to + where
}

func version(b v1alpha1.PlanBundle) string {
	if b.Version != "" {
		return b.Version
	}
	return b.Name
}

// MaxBody bounds a proposal's description: GitHub refuses a pull request
// whose body exceeds 65,536 characters.
const MaxBody = 60000

// Body is the proposal's Markdown description: what moves and why, what
// changes in the cluster, what to watch out for, and a marker the planner
// reads back to know which target the proposal was for. It stays within
// MaxBody: when the object tables and the graph do not fit, the body keeps
// their counts and warnings and points to the plan folder, and what still
// does not fit is cut at a line, the marker kept last.
func (p *Proposal) Body() string {
	if s := p.body(true); len(s) <= MaxBody {
		return s
	}
	return cutBody(p.body(false), p.marker())
}

func (p *Proposal) body(detail bool) string {
	var b strings.Builder
	m := p.Main
	spec := m.File.Spec
	fmt.Fprintf(&b, "## %s\n\n", markdown.Text(p.Title()))
	b.WriteString("| | |\n| --- | --- |\n")
	if spec.Subscription.File != "" {
		fmt.Fprintf(&b, "| %s | %s |\n", markdown.Text(string(spec.Subscription.Kind)), markdown.Code(spec.Subscription.File))
	}
	fmt.Fprintf(&b, "| Plan | %s |\n", markdown.Code(m.Dir+"/"))
	fmt.Fprintf(&b, "| Catalog | %s (%s) |\n", markdown.Text(spec.Catalog.Name), markdown.Code(short(spec.Catalog.Digest)))
	fmt.Fprintf(&b, "| Policy | %s |\n", markdown.Text(string(spec.SuccessorPolicy)))
	switch {
	case spec.Approval == v1alpha1.ApprovalManual:
		b.WriteString("| Approval | Manual: merging approves; closing rejects this version, which is then not proposed again |\n")
	case p.Manual():
		b.WriteString("| Approval | Manual, risk-based: the subscription is Automatic, but the change grants more power (\"Grants more power\" below) and olmops.yaml's `policy.escalations.onAutomatic` is Manual; merging approves, closing rejects this version |\n")
	default:
		fmt.Fprintf(&b, "| Approval | %s |\n", markdown.Text(string(spec.Approval)))
	}
	state := p.State
	if state == "" {
		state = "not reported yet"
	}
	fmt.Fprintf(&b, "| Cluster reports | %s |\n\n", markdown.Text(state))
	writeList(&b, "Promotion", m.Promotion, markdown.Text)
	writeTogether(&b, p.Plans)
	if m.State != Remove {
		writePath(&b, spec)
	}
	if p.Graph != "" && detail {
		b.WriteString("### Upgrade graph\n\n" + p.Graph + "\n")
	}
	for _, pl := range p.Plans {
		title := "### Manifest changes"
		switch {
		case pl.Key == m.Key:
		case len(pl.Waits) > 0:
			title = "### Manifest changes of " + markdown.Text(pl.Name)
		default:
			title = "### Manifest changes of dependency " + markdown.Text(pl.Name)
		}
		b.WriteString(title + "\n\n")
		if pl.State == Remove {
			fmt.Fprintf(&b, "The plan folder is deleted: everything %s installed is pruned (CRDs are kept).\n\n", markdown.Text(pl.Name))
			continue
		}
		if detail {
			b.WriteString(strings.TrimRight(pl.Changes.Markdown(), "\n") + "\n\n")
			continue
		}
		fmt.Fprintf(&b, "%s\n\nThe object-by-object changes do not fit in this description: see %s or run `olmops review`.\n\n",
			pl.Changes.Headline(), markdown.Code(pl.Dir+"/"))
	}
	writeList(&b, "Warnings", spec.Warnings, func(s string) string { return "⚠️ " + markdown.Text(s) })
	var deps []string
	for _, d := range spec.Dependencies {
		deps = append(deps, fmt.Sprintf("%s: %s %s, planned in %s", markdown.Code(d.Name), markdown.Text(d.Package), markdown.Text(d.Bundle), markdown.Code(d.Name)))
	}
	writeList(&b, "Dependencies", deps, func(s string) string { return s })
	b.WriteString(p.marker())
	return b.String()
}

func (p *Proposal) marker() string { return p.Marker().String() + "\n" }

// cutNote ends a body cut to MaxBody.
const cutNote = "\n… cut here: the rest does not fit in a pull request description; the plan folder holds all of it.\n\n"

// cutBody cuts body, which ends with marker, at the last line that leaves
// room for the note and the marker within MaxBody.
func cutBody(body, marker string) string {
	if len(body) <= MaxBody {
		return body
	}
	room := MaxBody - len(cutNote) - len(marker)
	head := body[:room]
	if i := strings.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1]
	}
	return head + cutNote + marker
}

// writeTogether names the plans that ride in the proposal because they
// need its change: merging approves them too.
func writeTogether(b *strings.Builder, plans []Plan) {
	var waits []string
	for _, pl := range plans {
		waits = append(waits, pl.Waits...)
	}
	if len(waits) == 0 {
		return
	}
	b.WriteString("### Approved together\n\n")
	b.WriteString("These subscriptions need this change and wait for it, as OLM approves a namespace's InstallPlan as one: merging approves them too, closing rejects them with it.\n\n")
	for _, w := range waits {
		b.WriteString("- " + markdown.Text(w) + "\n")
	}
	b.WriteString("\n")
}

// Marker is the proposal's marker. Its inputs are the leading plan's, or,
// when other subscriptions ride along, a digest of every plan's inputs, so
// that a change of a rider alone updates the proposal.
func (p *Proposal) Marker() Marker {
	m := p.Main
	out := Marker{Cluster: p.Cluster.Name, Namespace: m.Namespace, Name: m.Name, To: m.File.Spec.To.Name, Inputs: m.File.Spec.InputsDigest}
	riders := false
	d := newDigester()
	for _, pl := range p.Plans {
		riders = riders || len(pl.Waits) > 0
		d.field("plan", pl.Namespace, pl.Name, pl.File.Spec.InputsDigest)
	}
	if riders {
		out.Inputs = d.sum()
	}
	return out
}

func writePath(b *strings.Builder, spec v1alpha1.InstallPlanSpec) {
	b.WriteString("### Path\n\n")
	prev := ""
	if spec.From != nil {
		prev = spec.From.Name
	}
	for i, h := range spec.Path {
		why := markdown.Text(h.Edge)
		switch {
		case h.Edge == "skipRange":
			why = "skipRange " + markdown.Code(h.SkipRange)
		case h.Edge == "install":
			why = "fresh install"
		}
		if prev != "" && h.Edge != "install" {
			fmt.Fprintf(b, "%d. %s → %s: %s", i+1, markdown.Code(prev), markdown.Code(h.Name), why)
		} else {
			fmt.Fprintf(b, "%d. %s: %s", i+1, markdown.Code(h.Name), why)
		}
		if h.Channel != "" {
			fmt.Fprintf(b, " (channel %s)", markdown.Text(h.Channel))
		}
		if len(spec.Path) > 1 {
			fmt.Fprintf(b, ", manifests in %s", markdown.Code(h.Manifests+"/"))
		}
		b.WriteString("\n")
		prev = h.Name
	}
	if len(spec.Path) > 1 {
		b.WriteString("\nThe hops are applied in order, each healthy before the next.\n")
	}
	b.WriteString("\n")
}

func writeList(b *strings.Builder, title string, items []string, format func(string) string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "### %s\n\n", title)
	for _, it := range items {
		b.WriteString("- " + format(it) + "\n")
	}
	b.WriteString("\n")
}

func short(digest string) string {
	if i := strings.IndexByte(digest, ':'); i >= 0 && len(digest) > i+13 {
		return digest[:i+13]
	}
	return digest
}

// Marker is the machine-readable line at the end of a proposal's body: it
// tells a later run which target the proposal was for, so a closed
// proposal's target is not proposed again.
type Marker struct {
	Cluster, Namespace, Name string
	// To is the bundle the proposal installs.
	To string
	// Inputs is the plan's inputs digest.
	Inputs string
}

func (m Marker) String() string {
	return fmt.Sprintf("<!-- olmops:plan cluster=%s namespace=%s name=%s to=%s inputs=%s -->", m.Cluster, m.Namespace, m.Name, m.To, m.Inputs)
}

// markerRE matches a marker on a line of its own. Its fields are checked
// by ParseMarker; the body around it may hold anything a catalog said.
// Compiled on first use, like the patterns below: with its five groups it
// was plan's whole start-up cost (31 KB, 200 allocations), paid by
// commands such as validate that never read a proposal.
var markerRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^<!-- olmops:plan cluster=(\S+) namespace=(\S+) name=(\S+) to=(\S+) inputs=(\S+) -->$`)
})

// The name patterns are compiled on first use: their counted repetitions
// compile to some 4,400 instructions (0.4 MB allocated, the costliest
// initialiser of olmops's own packages) that every command of every
// binary linking plan would pay at start-up, while only ParseMarker
// needs them.
var (
	// dnsName is a Kubernetes object name (DNS-1123 subdomain), which
	// clusters, namespaces and subscriptions are.
	dnsName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)
	})
	bundleName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z0-9][-A-Za-z0-9._+]{0,252}$`)
	})
	digestRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sha256:[0-9a-f]{64}$`) })
)

// ParseMarker reads the marker olmops wrote at the end of a proposal's
// body. Only the last marker counts, because olmops writes its own last and
// everything above it may hold catalog text; it must stand on its own line
// and every field must be a well-formed name or digest, else the body has
// no marker.
func ParseMarker(body string) (Marker, bool) {
	all := markerRE().FindAllStringSubmatch(body, -1)
	if len(all) == 0 {
		return Marker{}, false
	}
	m := all[len(all)-1]
	if !dnsName().MatchString(m[1]) || !dnsName().MatchString(m[2]) || !dnsName().MatchString(m[3]) ||
		!bundleName().MatchString(m[4]) || !digestRE().MatchString(m[5]) {
		return Marker{}, false
	}
	return Marker{Cluster: m[1], Namespace: m[2], Name: m[3], To: m[4], Inputs: m[5]}, true
}
