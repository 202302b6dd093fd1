package resolver

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"testing"

	"github.com/olmops/olmops/catalog"
)

// realCatalogAnswers is the digest of every answer the benchmark workloads
// get from ocp-v4.20 (each package alone, all in one namespace, the
// largest resolving namespace fresh and from the tails of its channels),
// taken before the resolver's hot paths were tuned for speed. It changed
// once since, for a wrong answer: the largest namespace held both
// couchbase-enterprise-certified and its -rhmp twin, whose bundles share
// names (now 100 subscriptions fresh and 81 from the tails, each answer
// the same as before).
const realCatalogAnswers = "981bcfb2ce6ab8b15f0ba3f11cdd2d8561882b526bd339008b7873e3b4f1bf7b"

// TestRealCatalogAnswersUnchanged guards the speed work on the resolver:
// whatever it makes faster, every answer on a real catalog, including the
// explanations of the unsatisfiable ones, stays byte for byte the same.
func TestRealCatalogAnswersUnchanged(t *testing.T) {
	if testing.Short() {
		t.Skip("loads ocp-v4.20 from files")
	}
	cat := benchCatalog(t)
	cats := []*catalog.Catalog{cat}
	all := defaultChannelSubs(cat)
	h := sha256.New()
	for _, s := range all {
		writeAnswer(t, h, cats, []Subscription{s})
	}
	largest := largestResolving(t, cats, all)
	for _, subs := range [][]Subscription{all, largest, largestResolving(t, cats, fromTail(cat, all))} {
		writeAnswer(t, h, cats, subs)
	}
	if got := fmt.Sprintf("%x", h.Sum(nil)); got != realCatalogAnswers {
		t.Errorf("answers on ocp-v4.20 changed: digest %s, want %s", got, realCatalogAnswers)
	}
}

// writeAnswer writes one namespace's answer to h, by names: what a plan
// shows of it.
func writeAnswer(t *testing.T, h hash.Hash, cats []*catalog.Catalog, subs []Subscription) {
	sol, err := Resolve(t.Context(), Namespace{Catalogs: cats, Subscriptions: subs})
	var u *Unsatisfiable
	switch {
	case errors.As(err, &u):
		fmt.Fprintf(h, "unsatisfiable %d: %s\n", len(subs), err)
		return
	case err != nil:
		t.Fatal(err)
	}
	fmt.Fprintf(h, "solution %d\n", len(subs))
	for _, r := range sol.Subscriptions {
		fmt.Fprintf(h, "sub %s %s %s %s %s %+v %q %v\n", r.Name, r.Package, r.Catalog.Name, r.Channel.Name, r.BundleName, r.Edge, r.Held, r.Warnings)
		for _, hop := range r.Path {
			fmt.Fprintf(h, " hop %s %s %+v\n", hop.Catalog.Name, hop.Channel.Name, hop.Edge)
		}
	}
	for _, d := range sol.Dependencies {
		fmt.Fprintf(h, "dep %s %s %s %s %s %v\n", d.Name, d.Package, d.Catalog.Name, d.Channel.Name, d.StartingCSV, d.RequiredBy)
	}
	for _, f := range sol.Findings {
		fmt.Fprintf(h, "finding %s %s\n", f.Bundle, f.Message)
	}
}
