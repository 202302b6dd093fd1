package resolver

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/semver"
)

// classicSuccessors is OLM classic's subscription resolution without
// dependencies: catalogs by priority, in each the entries in channel order
// whose edge covers the installed bundle (every entry for an install),
// and the installed bundle last, as the fallback the solver keeps.
// bestOnly stops listing at the first candidate and leaves out warnings:
// a path's hop reads Best alone, and building every candidate of every hop
// was half of an upgrading namespace's resolution. Every catalog and
// channel is still looked at, so the errors are the full listing's.
func classicSuccessors(cats []*catalog.Catalog, req Request, rng semver.Range, orders channelOrders, bestOnly bool) (Result, error) {
	sub := subscriptionName(req)
	if req.Catalog != "" && len(cats) == 0 {
		if req.CatalogNamespace != "" {
			return Result{}, notFoundf(0, "no operators found from catalog %s in namespace %s referenced by subscription %s", req.Catalog, req.CatalogNamespace, sub)
		}
		return Result{}, notFoundf(0, "no operators found from catalog %s referenced by subscription %s", req.Catalog, sub)
	}
	var in *installed
	if req.Installed != nil {
		var err error
		if in, err = parseInstalled(cats, req.Package, req.Installed, false); err != nil {
			return Result{}, err
		}
	}
	ordered := slices.Clone(cats)
	slices.SortStableFunc(ordered, func(a, b *catalog.Catalog) int { return cmp.Compare(b.Priority, a.Priority) })

	var res Result
	var miss *notFound
	var win *catalog.Package
	found := false
	for _, cat := range ordered {
		limit := -1
		if bestOnly {
			limit = max(0, 1-len(res.Candidates))
		}
		cands, err := classicCandidates(cat, req, rng, in, sub, orders, limit)
		var nf *notFound
		if errors.As(err, &nf) {
			if miss == nil || nf.level > miss.level {
				miss = nf
			}
			continue
		}
		if err != nil {
			return Result{}, err
		}
		found = true
		if win == nil && len(cands) > 0 {
			win = cat.Packages[req.Package]
		}
		res.Candidates = append(res.Candidates, cands...)
	}
	if !found {
		if miss == nil {
			miss = notFoundf(1, "no operators found in package %s in the catalog referenced by subscription %s", req.Package, sub)
		}
		return Result{}, miss
	}
	if in != nil {
		res.Candidates = append(res.Candidates, classicStay(ordered, req.Package, in))
	}
	if len(res.Candidates) == 0 {
		return Result{}, notFoundf(4, "no installable operators found in channel %s of package %s for subscription %s", channelList(req.Channels), req.Package, sub)
	}
	if win == nil {
		if b := res.Candidates[0].Bundle; b != nil {
			win = b.Package
		}
	}
	if win != nil && !bestOnly {
		res.Deprecation = win.Deprecation
		chans := slices.Clone(req.Channels)
		if ch := res.Candidates[0].Channel; ch != nil {
			chans = append(chans, ch.Name)
		}
		res.Warnings = deprecationWarnings(win, chans, res.Candidates[0], in)
	}
	return res, nil
}

// classicStay is the installed bundle as the last-resort candidate, from
// the first catalog that still has it.
func classicStay(cats []*catalog.Catalog, pkg string, in *installed) Candidate {
	c := Candidate{Edge: Edge{Kind: EdgeStay, From: in.name, To: in.name}}
	for _, cat := range cats {
		if b := cat.Bundle(pkg, in.name); b != nil {
			c.Catalog, c.Bundle, c.Deprecated = cat, b, b.Deprecated()
			if len(b.Channels) > 0 {
				c.Channel = b.Channels[0]
			}
			break
		}
	}
	return c
}

// subscriptionName names the subscription in OLM's messages.
func subscriptionName(req Request) string {
	if req.Name != "" {
		return req.Name
	}
	return req.Package
}

func channelList(chans []string) string { return strings.Join(chans, ",") }

// classicCandidates lists one catalog's candidates in OLM classic's order:
// the default channel first, then channels by name, each from its head
// down the replaces chain without skipped entries. A limit ≥ 0 stops the
// list at that length (channels are still ordered, for their errors).
func classicCandidates(cat *catalog.Catalog, req Request, rng semver.Range, in *installed, sub string, orders channelOrders, limit int) ([]Candidate, error) {
	pkg := cat.Packages[req.Package]
	if pkg == nil {
		return nil, notFoundf(1, "no operators found in package %s in the catalog referenced by subscription %s", req.Package, sub)
	}
	var chans []*catalog.Channel
	switch def := pkg.Channels[pkg.DefaultChannel]; {
	case len(req.Channels) == 0 && def != nil:
		// A Subscription without a channel follows the default channel.
		chans = []*catalog.Channel{def}
	case len(req.Channels) == 0:
		for _, name := range pkg.ChannelNames() {
			chans = append(chans, pkg.Channels[name])
		}
	default:
		for _, name := range req.Channels {
			if ch := pkg.Channels[name]; ch != nil && !slices.Contains(chans, ch) {
				chans = append(chans, ch)
			}
		}
	}
	slices.SortStableFunc(chans, func(a, b *catalog.Channel) int {
		if ad, bd := a.Name == pkg.DefaultChannel, b.Name == pkg.DefaultChannel; ad != bd {
			if ad {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	starting := ""
	if in == nil {
		starting = req.StartingCSV
	}
	nch, ncsv := 0, 0
	var cands []Candidate
	for _, ch := range chans {
		nch += len(ch.Entries)
		var order []*catalog.Entry
		var err error
		if starting != "" {
			var entries []*catalog.Entry
			if e := ch.Entry(starting); e != nil {
				entries = []*catalog.Entry{e}
			}
			ncsv += len(entries)
			order, err = sortChannel(pkg.Name, ch.Name, entries)
		} else {
			ncsv += len(ch.Entries)
			order, err = orders.of(pkg.Name, ch)
		}
		if err != nil {
			return nil, err
		}
		for _, e := range order {
			if limit >= 0 && len(cands) >= limit {
				break
			}
			b := e.Bundle
			if b == nil || b.Props.Deprecated || !inRange(rng, b) || !underCap(req, b) {
				continue // classic never installs an olm.deprecated bundle
			}
			c := Candidate{Catalog: cat, Channel: ch, Bundle: b, Deprecated: b.Deprecated()}
			switch {
			case in == nil:
				c.Edge = Edge{Kind: EdgeInstall, To: e.Name}
			case req.SelfCertified:
				if e.Name == in.name {
					continue // the stay candidate comes last
				}
				c.Edge = Edge{Kind: EdgeSelfCertified, From: in.name, To: e.Name}
			default:
				edge, ok := entryEdge(e, in)
				if !ok || e.Name == in.name {
					continue // the installed bundle is the last resort, below
				}
				c.Edge = edge
			}
			cands = append(cands, c)
		}
	}
	switch {
	case nch == 0:
		return nil, notFoundf(2, "no operators found in channel %s of package %s in the catalog referenced by subscription %s", channelList(req.Channels), req.Package, sub)
	case ncsv == 0:
		return nil, notFoundf(3, "no operators found with name %s in channel %s of package %s in the catalog referenced by subscription %s", starting, channelList(req.Channels), req.Package, sub)
	}
	return cands, nil
}

// channelOrders remembers sortChannel's answer for whole channels during
// one resolution: a classic upgrade path asks for the same channel's order
// on every hop, and re-sorting it each time was most of the cost of an
// upgrading namespace. Catalogs do not change during a resolution, so the
// answer (or the error) is the same every time. A nil channelOrders
// remembers nothing.
type channelOrders map[*catalog.Channel]channelOrder

type channelOrder struct {
	entries []*catalog.Entry
	err     error
}

// of is ch's entries in OLM classic's order, or why there is none.
func (o channelOrders) of(pkg string, ch *catalog.Channel) ([]*catalog.Entry, error) {
	if got, ok := o[ch]; ok {
		return got.entries, got.err
	}
	entries, err := sortChannel(pkg, ch.Name, ch.Entries)
	if o != nil {
		o[ch] = channelOrder{entries, err}
	}
	return entries, err
}

// sortChannel orders a channel's entries the way OLM classic does: from
// the single head (an entry no other entry replaces or skips) down the
// replaces chain, leaving out skipped entries and entries off the chain.
// Only edges between the given entries count.
func sortChannel(pkg, channel string, entries []*catalog.Entry) ([]*catalog.Entry, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	byName := make(map[string]*catalog.Entry, len(entries))
	for _, e := range entries {
		byName[e.Name] = e
	}
	replacedBy := map[*catalog.Entry]bool{}
	replaces := map[*catalog.Entry]*catalog.Entry{}
	skipped := map[string]bool{}
	for _, e := range entries {
		if r, ok := byName[e.Replaces]; ok && e.Replaces != "" {
			replacedBy[r] = true
			replaces[e] = r
		}
		for _, s := range e.Skips {
			if r, ok := byName[s]; ok {
				replacedBy[r] = true
				skipped[s] = true
			}
		}
	}
	var heads []*catalog.Entry
	for _, e := range entries {
		if !replacedBy[e] {
			heads = append(heads, e)
		}
	}
	if len(heads) == 0 {
		return nil, fmt.Errorf("no channel heads (entries not replaced by another entry) found in channel %q of package %q", channel, pkg)
	}
	var chains [][]*catalog.Entry
	for _, head := range heads {
		var chain []*catalog.Entry
		visited := map[*catalog.Entry]bool{}
		for cur := head; ; {
			visited[cur] = true
			if !skipped[cur.Name] {
				chain = append(chain, cur)
			}
			next, ok := replaces[cur]
			if !ok {
				break
			}
			if visited[next] {
				return nil, fmt.Errorf("a cycle exists in the chain of replacement beginning with %q in channel %q of package %q", head.Name, channel, pkg)
			}
			cur = next
		}
		chains = append(chains, chain)
	}
	if len(chains) > 1 {
		names := make([]string, len(chains))
		for i, chain := range chains {
			switch len(chain) {
			case 0:
				names[i] = "[]"
			case 1:
				names[i] = chain[0].Name
			default:
				names[i] = chain[0].Name + "..." + chain[len(chain)-1].Name
			}
		}
		return nil, fmt.Errorf("a unique replacement chain within a channel is required to determine the relative order between channel entries, but %d replacement chains were found in channel %q of package %q: %s", len(chains), channel, pkg, strings.Join(names, ", "))
	}
	return chains[0], nil
}
