package resolver

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/internal/corpus"
)

// The channel order is remembered across the hops of a path and the
// subscriptions of a namespace; the path must be exactly the one found by
// asking Successors afresh at every hop, on every channel of a real
// catalog.
func TestUpgradePathMatchesFreshSuccessors(t *testing.T) {
	cat, err := catalog.LoadDir(t.Context(), corpus.Path(t, benchCatalogDir), "ocp-v4.20")
	if err != nil {
		t.Fatal(err)
	}
	cats := []*catalog.Catalog{cat}
	orders := channelOrders{} // one for the whole catalog, as in a namespace
	walked := 0
	for _, pn := range cat.PackageNames() {
		p := cat.Packages[pn]
		for _, cn := range p.ChannelNames() {
			ch := p.Channels[cn]
			order, err := sortChannel(pn, cn, ch.Entries)
			if err != nil || len(order) < 2 {
				continue
			}
			req := Request{Package: pn, Channels: []string{cn}, Policy: Classic, Installed: &Installed{Bundle: order[len(order)-1].Name}}
			got, gotErr := upgradePath(cats, req, orders)
			want, wantErr := freshPath(cats, req)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
				t.Errorf("%s/%s: path %v (%v), want %v (%v)", pn, cn, got, gotErr, want, wantErr)
			}
			walked++
		}
	}
	if walked < 100 {
		t.Fatalf("walked only %d channels", walked)
	}
}

// freshPath is UpgradePath with nothing remembered between hops.
func freshPath(cats []*catalog.Catalog, req Request) ([]Hop, error) {
	var path []Hop
	for range 1000 {
		res, err := Successors(cats, req)
		if err != nil {
			return path, err
		}
		best := res.Best()
		if best.Edge.Kind == EdgeStay {
			return path, nil
		}
		path = append(path, Hop{Catalog: best.Catalog, Channel: best.Channel, Bundle: best.Bundle, Edge: best.Edge})
		next := &Installed{Bundle: best.Name()}
		if best.Bundle != nil && best.Bundle.Version != nil {
			next.Version = best.Bundle.Version.String()
		}
		req.Installed = next
	}
	return path, fmt.Errorf("no end")
}

// A channel whose order cannot be found fails the same way every time it
// is asked for, remembered or not.
func TestChannelOrdersRemembersErrors(t *testing.T) {
	ch := &catalog.Channel{Name: "stable", Entries: []*catalog.Entry{{Name: "a.v1"}, {Name: "a.v2"}}}
	orders := channelOrders{}
	_, first := orders.of("a", ch)
	_, second := orders.of("a", ch)
	if first == nil || second == nil || first.Error() != second.Error() {
		t.Fatalf("errors %v and %v, want the same two-chains error twice", first, second)
	}
	if _, fresh := channelOrders(nil).of("a", ch); fresh == nil || fresh.Error() != first.Error() {
		t.Fatalf("unremembered error %v, want %v", fresh, first)
	}
}
