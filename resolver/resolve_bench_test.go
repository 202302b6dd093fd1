package resolver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/catalog/property"
	"github.com/olmops/olmops/internal/corpus"
)

// defaultChannelSubs subscribes to every package of a catalog on its
// default channel, as the peer figures in PEERS.md do.
func defaultChannelSubs(cat *catalog.Catalog) []Subscription {
	var subs []Subscription
	for _, pn := range cat.PackageNames() {
		p := cat.Packages[pn]
		subs = append(subs, Subscription{Request: Request{Name: pn, Package: pn, Channels: []string{p.DefaultChannel}, Policy: Classic}})
	}
	return subs
}

// resolvable keeps the subscriptions that resolve on their own: the
// namespace OLM's figures call "the largest that resolves".
func resolvable(b testing.TB, cats []*catalog.Catalog, subs []Subscription) []Subscription {
	var out []Subscription
	for _, s := range subs {
		if _, err := Resolve(b.Context(), Namespace{Catalogs: cats, Subscriptions: []Subscription{s}}); err == nil {
			out = append(out, s)
		}
	}
	return out
}

// largestResolving adds subscriptions one at a time, keeping each only if
// the namespace still resolves with it: a namespace that resolves as a
// whole, like OLM's "largest namespace that resolves".
func largestResolving(b testing.TB, cats []*catalog.Catalog, subs []Subscription) []Subscription {
	var out []Subscription
	for _, s := range resolvable(b, cats, subs) {
		try := append(out[:len(out):len(out)], s)
		if _, err := Resolve(b.Context(), Namespace{Catalogs: cats, Subscriptions: try}); err == nil {
			out = try
		}
	}
	return out
}

func BenchmarkResolveOne(b *testing.B) {
	cat := benchCatalog(b)
	cats := []*catalog.Catalog{cat}
	subs := resolvable(b, cats, defaultChannelSubs(cat))
	for b.Loop() {
		for _, s := range subs {
			if _, err := Resolve(b.Context(), Namespace{Catalogs: cats, Subscriptions: []Subscription{s}}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(subs))/1e6, "ms/subscription")
}

func BenchmarkResolveNamespace(b *testing.B) {
	cat := benchCatalog(b)
	cats := []*catalog.Catalog{cat}
	all := defaultChannelSubs(cat)
	cases := []struct {
		name string
		subs []Subscription
	}{
		{"all", all},
		{"largest-resolving", largestResolving(b, cats, all)},
		{"upgrade", largestResolving(b, cats, fromTail(cat, all))},
	}
	if *olmbenchWorkloads != "" {
		var names []string
		var namespaces [][]Subscription
		for _, tc := range cases {
			names, namespaces = append(names, fmt.Sprintf("%s-%d", tc.name, len(tc.subs))), append(namespaces, tc.subs)
		}
		writeBenchWorkloads(b, cats, names, namespaces)
	}
	for _, tc := range cases {
		b.Run(fmt.Sprintf("%s-%d", tc.name, len(tc.subs)), func(b *testing.B) {
			var err error
			cpu0 := cpuTime()
			for b.Loop() {
				_, err = Resolve(b.Context(), Namespace{Catalogs: cats, Subscriptions: tc.subs})
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N)/1e6, "cpu-ms/op")
			resolved := 0.0
			if err == nil {
				resolved = 1
			}
			b.ReportMetric(resolved, "resolved")
		})
	}
}

// fromTail installs each subscription at the oldest entry of its channel's
// replaces chain, so that a classic resolution walks the whole chain to
// show the upgrade path.
func fromTail(cat *catalog.Catalog, subs []Subscription) []Subscription {
	var out []Subscription
	for _, s := range subs {
		ch := cat.Packages[s.Package].Channels[s.Channels[0]]
		order, err := sortChannel(s.Package, ch.Name, ch.Entries)
		if err != nil || len(order) < 2 {
			continue
		}
		s.Installed = &Installed{Bundle: order[len(order)-1].Name}
		out = append(out, s)
	}
	return out
}

// BenchmarkResolveScaled resolves every resolvable package of a catalog
// made of k renamed copies of ocp-v4.20, all in one namespace: the growth
// curve in docs/performance.md.
func BenchmarkResolveScaled(b *testing.B) {
	if testing.Short() {
		b.Skip("loads the catalog from files")
	}
	cfg, err := fbc.LoadDir(b.Context(), corpus.Path(b, benchCatalogDir))
	if err != nil {
		b.Fatal(err)
	}
	one := catalog.New("ocp-v4.20", cfg)
	base := largestResolving(b, []*catalog.Catalog{one}, defaultChannelSubs(one))
	for _, k := range []int{1, 2, 5, 10} {
		cat := catalog.New("scaled", scaleConfig(b, cfg, k))
		var subs []Subscription
		for i := range k {
			for _, s := range base {
				s.Name, s.Package = copyName(s.Name, i), copyName(s.Package, i)
				subs = append(subs, s)
			}
		}
		b.Run(fmt.Sprintf("%dx", k), func(b *testing.B) {
			var err error
			for b.Loop() {
				_, err = Resolve(b.Context(), Namespace{Catalogs: []*catalog.Catalog{cat}, Subscriptions: subs})
			}
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(len(subs)), "subscriptions")
		})
	}
}

func copyName(s string, i int) string {
	if i == 0 {
		return s
	}
	return fmt.Sprintf("%s-c%d", s, i)
}

// scaleConfig returns k copies of cfg whose packages, bundles and API
// groups are renamed per copy, so the copies never collide.
func scaleConfig(b *testing.B, cfg *fbc.Config, k int) *fbc.Config {
	out := &fbc.Config{}
	for i := range k {
		n := func(s string) string { return copyName(s, i) }
		for _, p := range cfg.Packages {
			p.Name = n(p.Name)
			out.Packages = append(out.Packages, p)
		}
		for _, ch := range cfg.Channels {
			ch.Package = n(ch.Package)
			entries := make([]fbc.ChannelEntry, len(ch.Entries))
			for j, e := range ch.Entries {
				e.Name, e.Replaces = n(e.Name), nonEmpty(e.Replaces, n)
				skips := make([]string, len(e.Skips))
				for x, s := range e.Skips {
					skips[x] = n(s)
				}
				e.Skips = skips
				entries[j] = e
			}
			ch.Entries = entries
			out.Channels = append(out.Channels, ch)
		}
		for _, bd := range cfg.Bundles {
			bd.Name, bd.Package = n(bd.Name), n(bd.Package)
			bd.Properties = scaleProperties(b, bd.Properties, i)
			out.Bundles = append(out.Bundles, bd)
		}
	}
	return out
}

func nonEmpty(s string, f func(string) string) string {
	if s == "" {
		return ""
	}
	return f(s)
}

func scaleProperties(b *testing.B, props []property.Property, i int) []property.Property {
	out := make([]property.Property, 0, len(props))
	for _, p := range props {
		var v map[string]any
		switch p.Type {
		case property.TypePackage, property.TypePackageRequired, property.TypeGVK, property.TypeGVKRequired:
			if err := p.Value.Decode(&v); err != nil {
				b.Fatal(err)
			}
		default:
			out = append(out, p)
			continue
		}
		if name, ok := v["packageName"].(string); ok {
			v["packageName"] = copyName(name, i)
		}
		if g, ok := v["group"].(string); ok && i > 0 {
			v["group"] = fmt.Sprintf("c%d.%s", i, strings.TrimPrefix(g, "."))
		}
		raw, err := json.Marshal(v)
		if err != nil {
			b.Fatal(err)
		}
		p.Value = property.JSONValue(raw)
		out = append(out, p)
	}
	return out
}
