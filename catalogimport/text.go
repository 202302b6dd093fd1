package catalogimport

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/olmops/olmops/api/v1alpha1"
)

// Limits of the texts of a proposal. GitHub refuses a pull request whose
// body exceeds 65,536 characters; titles past a few hundred are cut in
// every list that shows them.
const (
	MaxTitle = 256
	MaxBody  = 60000
)

// Title is the one-line subject of the import, at most MaxTitle
// characters, naming the newest new bundle of each package as long as they
// fit: "catalog operatorhub: etcd 0.9.4, cert-manager 1.16.2 available".
func (s Summary) Title() string {
	prefix := "catalog " + s.Catalog + ": "
	rebuilt := ""
	if n := len(s.RebuiltBundles); n > 0 {
		rebuilt = fmt.Sprintf(", %d bundle(s) rebuilt", n)
	}
	var what string
	switch {
	case len(s.NewBundles) > 0:
		what = fitList(MaxTitle-utf8.RuneCountInString(prefix), newestPerPackage(s.NewBundles), " available"+rebuilt)
	case len(s.RebuiltBundles) > 0:
		what = fitList(MaxTitle-utf8.RuneCountInString(prefix), labels(s.RebuiltBundles), " rebuilt: same version, new content")
	case len(s.RemovedBundles) > 0:
		what = fmt.Sprintf("%d bundle(s) removed", len(s.RemovedBundles))
	case len(s.HeadMoves) > 0:
		what = fmt.Sprintf("%d channel head(s) moved", len(s.HeadMoves))
	default:
		what = "no changes"
	}
	return truncate(prefix+what, MaxTitle)
}

// newestPerPackage labels the newest bundle of each package of bs, which
// are sorted by package, then version.
func newestPerPackage(bs []BundleChange) []string {
	var out []string
	for i, b := range bs {
		if i+1 == len(bs) || bs[i+1].Package != b.Package {
			out = append(out, b.Package+" "+b.Version)
		}
	}
	return out
}

func labels(bs []BundleChange) []string {
	return mapStrings(bs, func(b BundleChange) string { return b.Package + " " + b.Version })
}

// fitList joins as many items as fit in width runes with suffix, naming
// how many more there are.
func fitList(width int, items []string, suffix string) string {
	for n := len(items); n > 0; n-- {
		s := strings.Join(items[:n], ", ")
		if n < len(items) {
			s += fmt.Sprintf(" and %d more", len(items)-n)
		}
		if s += suffix; utf8.RuneCountInString(s) <= width {
			return s
		}
	}
	return fmt.Sprintf("%d package(s)%s", len(items), suffix)
}

// truncate cuts s to at most n runes, marking the cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// Body is the Markdown description of the import, at most MaxBody bytes:
// where it came from, the counts, then the channel-head moves, rebuilt,
// new and removed bundles, each list cut when the room runs out (the full
// list is in the committed files).
func (s Summary) Body() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Imported `%s` (`%s`) into `%s`.\n\n", s.Image, s.Digest, s.Dir)
	if s.Registered {
		fmt.Fprintf(&b, "Adds catalog `%s` to `%s`, which lists catalogs: without it the catalog would stay unused.\n\n", s.Catalog, v1alpha1.RepositoryFile)
	}
	fmt.Fprintf(&b, "%d new bundle(s), %d rebuilt, %d removed; %d channel head(s) moved.\n",
		len(s.NewBundles), len(s.RebuiltBundles), len(s.RemovedBundles), len(s.HeadMoves))
	bundle := func(c BundleChange) string {
		line := fmt.Sprintf("%s %s (`%s`)", c.Package, c.Version, c.Name)
		if c.Detail != "" {
			line += ": " + c.Detail
		}
		return line
	}
	sections := []struct {
		title string
		items []string
	}{
		{"Channel heads", mapStrings(s.HeadMoves, HeadMove.String)},
		{"Rebuilt bundles (same version, new content)", mapStrings(s.RebuiltBundles, bundle)},
		{"New bundles", mapStrings(s.NewBundles, bundle)},
		{"Removed bundles", mapStrings(s.RemovedBundles, bundle)},
	}
	// Room kept for the cut notices: one line per section at most.
	const notice = 200
	budget := MaxBody - b.Len() - notice*len(sections)
	for _, sec := range sections {
		if len(sec.items) == 0 {
			continue
		}
		head := fmt.Sprintf("\n### %s\n\n", sec.title)
		b.WriteString(head)
		budget -= len(head)
		for i, it := range sec.items {
			line := "- " + truncate(it, 1000) + "\n"
			if len(line) > budget {
				fmt.Fprintf(&b, "- … and %d more: see the files under `%s`\n", len(sec.items)-i, truncate(s.Dir, 100))
				break
			}
			b.WriteString(line)
			budget -= len(line)
		}
	}
	return b.String()
}
