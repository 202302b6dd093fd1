package resolver

import (
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/olmops/olmops/catalog"
)

// olmbenchWorkloads, when set, makes BenchmarkResolveNamespace write the
// namespaces it resolves, with olmops's answers, for hack/olmbench: OLM
// classic is then given the very subscriptions and installed bundles
// olmops is timed on, and the answers are compared bundle by bundle.
var olmbenchWorkloads = flag.String("olmbench.workloads", "", "write the resolved namespaces and olmops's answers to this JSON file (read by hack/olmbench)")

// benchWorkload is one namespace of the file hack/olmbench reads.
type benchWorkload struct {
	Name          string     `json:"name"`
	Resolved      bool       `json:"resolved"`
	Subscriptions []benchSub `json:"subscriptions"`
}

// benchSub is one subscription: its package on one channel, the bundle
// installed ("" for none) and the bundle olmops picks ("" when the
// namespace does not resolve).
type benchSub struct {
	Package   string `json:"package"`
	Channel   string `json:"channel"`
	Installed string `json:"installed,omitempty"`
	Answer    string `json:"answer,omitempty"`
}

// writeBenchWorkloads resolves each namespace once more and writes it with
// its answer to the -olmbench.workloads file.
func writeBenchWorkloads(tb testing.TB, cats []*catalog.Catalog, names []string, namespaces [][]Subscription) {
	tb.Helper()
	out := make([]benchWorkload, 0, len(namespaces))
	for i, subs := range namespaces {
		w := benchWorkload{Name: names[i]}
		sol, err := Resolve(tb.Context(), Namespace{Catalogs: cats, Subscriptions: subs})
		w.Resolved = err == nil
		for j, s := range subs {
			bs := benchSub{Package: s.Package, Channel: s.Channels[0]}
			if s.Installed != nil {
				bs.Installed = s.Installed.Bundle
			}
			if err == nil {
				bs.Answer = sol.Subscriptions[j].BundleName
			}
			w.Subscriptions = append(w.Subscriptions, bs)
		}
		out = append(out, w)
	}
	raw, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(*olmbenchWorkloads, raw, 0o644); err != nil {
		tb.Fatal(err)
	}
}
