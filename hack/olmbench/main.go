//go:build ignore

// Command olmbench times OLM classic's own resolver
// (operator-lifecycle-manager's pkg/controller/registry/resolver) on the
// workloads of ../shared/PEERS.md, so that docs/performance.md compares
// olmops with OLM measured on the same machine at the same time.
//
// It lives outside olmops's module (the build tag keeps it out of
// go build ./... and go mod tidy): hack/olmbench.sh builds it in a
// private directory with a go.mod of its own and pinned versions.
//
// The catalog goes the way it goes in a cluster: FBC → declcfg → model →
// api.Bundle (operator-registry's own conversion, what the registry's gRPC
// API serves) → cache.Entry (a copy of what OLM's registrySource does, whose
// function is unexported), held in a static source whose snapshot never
// expires: only Resolver.Resolve is timed, as in PEERS.md.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/blang/semver/v4"
	"github.com/sirupsen/logrus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/registry/resolver"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/registry/resolver/cache"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/registry/resolver/solver"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/pkg/api"
	opregistry "github.com/operator-framework/operator-registry/pkg/registry"
)

const (
	namespace = "bench"
	catSource = "ocp-v4.20"
)

func main() {
	dir := flag.String("catalog", "../shared/catalogs/ocp-v4.20", "FBC directory")
	reps := flag.Int("reps", 1, "timed repetitions of each workload")
	setsFile := flag.String("sets", "", "JSON file caching the subscription sets (computed when absent)")
	wlFile := flag.String("workloads", "", "olmops's namespaces and answers (BenchmarkResolveNamespace -olmbench.workloads): resolved by OLM and compared")
	flag.Parse()
	ctx := context.Background()

	start := time.Now()
	b, err := load(ctx, *dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("loaded %d packages, %d channel entries in %s\n", len(b.pkgs), len(b.entries), time.Since(start).Round(time.Millisecond))

	s, err := b.sets(*setsFile)
	if err != nil {
		log.Fatal(err)
	}
	ws, err := readWorkloads(*wlFile)
	if err != nil {
		log.Fatal(err)
	}
	for _, w := range ws {
		if strings.HasPrefix(w.Name, "largest-resolving-") {
			compareSets(s.Largest, w)
		}
	}
	for range *reps {
		b.runAlone(s.All)
		if ws == nil {
			b.runNamespace(fmt.Sprintf("all-%d", len(s.All)), b.plain(s.All))
			b.runNamespace(fmt.Sprintf("largest-resolving-%d", len(s.Largest)), b.plain(s.Largest))
		}
		for _, w := range ws {
			b.runNamespace(w.Name, w)
		}
	}
}

// fresh returns the one resolver of the runs with nothing installed: its
// cache keeps the catalog's snapshot from one resolution to the next.
func (b *bench) fresh() *resolver.Resolver {
	if b.base == nil {
		b.base = b.resolver(nil)
	}
	return b.base
}

type pkgInfo struct {
	defaultChannel string
}

type bench struct {
	pkgs    map[string]pkgInfo
	entries []*cache.Entry
	byName  map[string]*cache.Entry // package/channel/bundle
	log     *logrus.Logger
	base    *resolver.Resolver
}

func load(ctx context.Context, dir string) (*bench, error) {
	cfg, err := declcfg.LoadFS(ctx, os.DirFS(dir))
	if err != nil {
		return nil, err
	}
	m, err := declcfg.ConvertToModel(*cfg)
	if err != nil {
		return nil, err
	}
	logger := logrus.New()
	logger.SetOutput(io.Discard)
	b := &bench{pkgs: map[string]pkgInfo{}, byName: map[string]*cache.Entry{}, log: logger}
	key := cache.SourceKey{Name: catSource, Namespace: namespace}
	for _, p := range m {
		info := pkgInfo{defaultChannel: p.DefaultChannel.Name}
		for _, ch := range p.Channels {
			for _, bd := range ch.Bundles {
				ab, err := api.ConvertModelBundleToAPIBundle(*bd)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", bd.Name, err)
				}
				e, err := entryFromBundle(ab, key, p.DefaultChannel.Name)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", bd.Name, err)
				}
				b.byName[p.Name+"/"+ch.Name+"/"+bd.Name] = e
				b.entries = append(b.entries, e)
			}
		}
		b.pkgs[p.Name] = info
	}
	return b, nil
}

// entryFromBundle does what OLM's registrySource.Snapshot does with each
// bundle the registry lists (newOperatorFromBundle and what follows it).
func entryFromBundle(b *api.Bundle, key cache.SourceKey, defaultChannel string) (*cache.Entry, error) {
	var version *semver.Version
	if v, err := semver.ParseTolerant(b.Version); err == nil {
		version = &v
	}
	provided, required := cache.APISet{}, cache.APISet{}
	for _, g := range b.ProvidedApis {
		provided[opregistry.APIKey{Plural: g.Plural, Group: g.Group, Kind: g.Kind, Version: g.Version}] = struct{}{}
	}
	for _, g := range b.RequiredApis {
		required[opregistry.APIKey{Plural: g.Plural, Group: g.Group, Kind: g.Kind, Version: g.Version}] = struct{}{}
	}
	props := slices.Clone(b.Properties)
	if len(b.Dependencies) > 0 {
		for _, d := range b.Dependencies {
			switch d.Type {
			case "olm.gvk":
				props = append(props, &api.Property{Type: "olm.gvk.required", Value: d.Value})
			case "olm.package":
				var v struct {
					PackageName string `json:"packageName"`
					Version     string `json:"version"`
				}
				if err := json.Unmarshal([]byte(d.Value), &v); err != nil {
					return nil, err
				}
				raw, _ := json.Marshal(map[string]string{"packageName": v.PackageName, "versionRange": v.Version})
				props = append(props, &api.Property{Type: "olm.package.required", Value: string(raw)})
			case "olm.label":
				props = append(props, &api.Property{Type: "olm.label.required", Value: d.Value})
			}
		}
	} else {
		keys := make([]string, 0, len(required))
		for a := range required {
			raw, _ := json.Marshal(map[string]string{"group": a.Group, "version": a.Version, "kind": a.Kind})
			keys = append(keys, string(raw))
		}
		sort.Strings(keys)
		for _, k := range keys {
			props = append(props, &api.Property{Type: "olm.gvk.required", Value: k})
		}
	}
	e := &cache.Entry{
		Name:         b.CsvName,
		Replaces:     b.Replaces,
		Skips:        b.Skips,
		Version:      version,
		ProvidedAPIs: provided.StripPlural(),
		RequiredAPIs: required.StripPlural(),
		Properties:   props,
		BundlePath:   b.BundlePath,
		SourceInfo: &cache.OperatorSourceInfo{
			Package:        b.PackageName,
			Channel:        b.ChannelName,
			Catalog:        key,
			DefaultChannel: b.ChannelName == defaultChannel,
		},
	}
	if r, err := semver.ParseRange(b.SkipRange); err == nil {
		e.SkipRange = r
	}
	resolver.EnsurePackageProperty(e, b.PackageName, b.Version)
	return e, nil
}

// never is a snapshot validity channel that is never closed: the catalog
// stays loaded between resolutions, as in a running catalog operator.
var never = make(chan struct{})

// resolver returns OLM's resolver over a new cache whose catalog
// snapshot is shared, with installed entries (if any) in the namespace's
// virtual source, as OLM's csvSource puts installed CSVs there.
func (b *bench) resolver(installed []*cache.Entry) *resolver.Resolver {
	sp := cache.StaticSourceProvider{
		{Name: catSource, Namespace: namespace}: &cache.Snapshot{Entries: b.entries, Valid: never},
		cache.NewVirtualSourceKey(namespace):    &cache.Snapshot{Entries: installed, Valid: never},
	}
	return resolver.NewDefaultResolver(cache.New(sp), b.log)
}

func (b *bench) subs(pkgs []string) []*v1alpha1.Subscription {
	var out []*v1alpha1.Subscription
	for _, p := range pkgs {
		out = append(out, subscription(p, b.pkgs[p].defaultChannel))
	}
	return out
}

func subscription(pkg, channel string) *v1alpha1.Subscription {
	return &v1alpha1.Subscription{
		ObjectMeta: metav1.ObjectMeta{Name: pkg, Namespace: namespace},
		Spec: &v1alpha1.SubscriptionSpec{
			CatalogSource: catSource, CatalogSourceNamespace: namespace,
			Package: pkg, Channel: channel,
		},
	}
}

// installedEntry is the installed CSV as OLM's csvSource lists it in the
// namespace's virtual source: name and version from the CSV, properties
// from its operatorframework.io/properties annotation (what the catalog
// operator projects there: the bundle's properties), the package read from
// olm.package, and the Subscription whose status.installedCSV names it.
// That last link decides everything: a CSV no Subscription owns is
// mandatory ("exists and is not referenced by a subscription"), so OLM
// never replaces it.
func installedEntry(e *cache.Entry, sub *v1alpha1.Subscription) *cache.Entry {
	return &cache.Entry{
		Name: e.Name, Version: e.Version, Properties: e.Properties,
		ProvidedAPIs: e.ProvidedAPIs, RequiredAPIs: e.RequiredAPIs,
		SourceInfo: &cache.OperatorSourceInfo{
			Catalog: cache.NewVirtualSourceKey(namespace), Package: sub.Spec.Package, Subscription: sub,
		},
	}
}

func (b *bench) solve(r *resolver.Resolver, subs []*v1alpha1.Subscription) ([]*cache.Entry, error) {
	return r.Resolve([]string{namespace}, subs)
}

func (b *bench) ok(pkgs []string) bool {
	_, err := b.solve(b.fresh(), b.subs(pkgs))
	return err == nil
}

type sets struct {
	All, Largest []string
}

// sets returns every package and the largest namespace that resolves,
// built like olmops's benchmark builds it (adding one package at a time,
// keeping it if the namespace still resolves); the greedy search takes
// minutes, so it is cached in file.
func (b *bench) sets(file string) (sets, error) {
	var s sets
	if file != "" {
		raw, err := os.ReadFile(file)
		if err == nil {
			return s, json.Unmarshal(raw, &s)
		}
		if !errors.Is(err, os.ErrNotExist) {
			return s, err
		}
	}
	for p := range b.pkgs {
		s.All = append(s.All, p)
	}
	sort.Strings(s.All)
	var alone []string
	for _, p := range s.All {
		if b.ok([]string{p}) {
			alone = append(alone, p)
		}
	}
	s.Largest = b.greedy(alone)
	if file != "" {
		raw, _ := json.Marshal(s)
		if err := os.WriteFile(file, raw, 0o644); err != nil {
			return s, err
		}
	}
	return s, nil
}

// greedy returns what adding pkgs one at a time, keeping each only if the
// namespace still resolves, keeps, without resolving once per package: a
// namespace whose subscriptions resolve also resolves without some of them
// (the same answer minus theirs satisfies every rule), so a prefix of the
// rest that resolves is all kept, and the first package that breaks it is
// found by bisection.
func (b *bench) greedy(pkgs []string) []string {
	var kept []string
	for len(pkgs) > 0 {
		with := func(n int) []string { return append(slices.Clone(kept), pkgs[:n]...) }
		if b.ok(with(len(pkgs))) {
			return with(len(pkgs))
		}
		lo, hi := 0, len(pkgs) // with(lo) resolves, with(hi) does not
		for hi-lo > 1 {
			if mid := (lo + hi) / 2; b.ok(with(mid)) {
				lo = mid
			} else {
				hi = mid
			}
		}
		kept, pkgs = with(lo), pkgs[hi:]
	}
	return kept
}

// runAlone resolves every package alone and reports the total and the per-package median.
func (b *bench) runAlone(pkgs []string) {
	var times []time.Duration
	var total time.Duration
	resolved := 0
	var failed []string
	cpu0 := cpuTime()
	for _, p := range pkgs {
		r, subs := b.fresh(), b.subs([]string{p})
		t0 := time.Now()
		_, err := b.solve(r, subs)
		d := time.Since(t0)
		times, total = append(times, d), total+d
		var unsat solver.NotSatisfiable
		switch {
		case err == nil:
			resolved++
		case errors.As(err, &unsat):
			failed = append(failed, p+" (unsatisfiable)")
		default:
			failed = append(failed, fmt.Sprintf("%s (error: %.120s)", p, err))
		}
	}
	fmt.Printf("NOTE alone-%d not resolved by OLM: %s\n", len(pkgs), strings.Join(failed, ", "))
	slices.Sort(times)
	fmt.Printf("RESULT olm alone-%d total_ms=%.1f median_ms=%.3f cpu_ms=%.1f resolved=%d load=%s\n",
		len(pkgs), ms(total), ms(times[len(times)/2]), ms(cpuTime()-cpu0), resolved, loadavg())
}

// workload is one namespace of the file BenchmarkResolveNamespace writes
// with -olmbench.workloads: the subscriptions olmops is timed on, the
// bundles installed, and olmops's answers.
type workload struct {
	Name          string `json:"name"`
	Resolved      bool   `json:"resolved"`
	Subscriptions []wsub `json:"subscriptions"`
	compare       bool   // olmops's answers are known
}

// wsub is one subscription of a workload: the bundle installed ("" for
// none) and the one olmops picks ("" when the namespace does not resolve).
type wsub struct {
	Package   string `json:"package"`
	Channel   string `json:"channel"`
	Installed string `json:"installed"`
	Answer    string `json:"answer"`
}

func readWorkloads(file string) ([]workload, error) {
	if file == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var ws []workload
	if err := json.Unmarshal(raw, &ws); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for i := range ws {
		ws[i].compare = true
	}
	return ws, nil
}

// plain is a namespace of pkgs on their default channels, nothing installed.
func (b *bench) plain(pkgs []string) workload {
	var w workload
	w.Subscriptions = make([]wsub, len(pkgs))
	for i, p := range pkgs {
		w.Subscriptions[i].Package, w.Subscriptions[i].Channel = p, b.pkgs[p].defaultChannel
	}
	return w
}

// compareSets says whether OLM's own greedy search found the namespace
// olmops's benchmark resolves as the largest.
func compareSets(olm []string, w workload) {
	in := map[string]int{}
	for _, p := range olm {
		in[p]++
	}
	for _, s := range w.Subscriptions {
		in[s.Package] += 2
	}
	var onlyOLM, onlyOlmops []string
	for p, n := range in {
		switch n {
		case 1:
			onlyOLM = append(onlyOLM, p)
		case 2:
			onlyOlmops = append(onlyOlmops, p)
		}
	}
	sort.Strings(onlyOLM)
	sort.Strings(onlyOlmops)
	fmt.Printf("NOTE largest resolving namespace: OLM's search %d, olmops's %s; only OLM's %v, only olmops's %v\n",
		len(olm), w.Name, onlyOLM, onlyOlmops)
}

// runNamespace resolves one namespace, with its installed CSVs in the
// virtual source; the first resolution warms the cache's snapshot and is
// not timed. With olmops's answers known, it compares them bundle by
// bundle and prints a DIFF line for each disagreement.
func (b *bench) runNamespace(name string, w workload) {
	subs := make([]*v1alpha1.Subscription, len(w.Subscriptions))
	var inst []*cache.Entry
	for i, ws := range w.Subscriptions {
		subs[i] = subscription(ws.Package, ws.Channel)
		if ws.Installed == "" {
			continue
		}
		e := b.byName[ws.Package+"/"+ws.Channel+"/"+ws.Installed]
		if e == nil {
			log.Fatalf("%s: %s is not in channel %s of %s", name, ws.Installed, ws.Channel, ws.Package)
		}
		subs[i].Status.InstalledCSV = ws.Installed
		inst = append(inst, installedEntry(e, subs[i]))
	}
	r := b.resolver(inst)
	_, _ = b.solve(r, subs[:1])
	cpu0, t0 := cpuTime(), time.Now()
	out, err := b.solve(r, subs)
	d, cpu := time.Since(t0), cpuTime()-cpu0

	got := map[string]string{} // package → bundle OLM picks
	if err == nil {
		for _, e := range out {
			got[e.SourceInfo.Package] = e.Name
		}
	}
	upgraded, agree := 0, 0
	for _, ws := range w.Subscriptions {
		pick := got[ws.Package]
		if pick == "" && err == nil {
			pick = ws.Installed // the installed CSV stays: the result lists only what changes
		}
		if ws.Installed != "" && pick != ws.Installed {
			upgraded++
		}
		if pick == ws.Answer {
			agree++
		} else if w.compare && err == nil && w.Resolved {
			fmt.Printf("DIFF %s %s olmops=%q olm=%q\n", name, ws.Package, ws.Answer, pick)
		}
	}
	answer := fmt.Sprintf("resolved=%d", len(out))
	if len(inst) > 0 {
		answer += fmt.Sprintf(" upgrades=%d", upgraded)
	}
	var unsat solver.NotSatisfiable
	switch {
	case errors.As(err, &unsat):
		answer = "unsatisfiable"
	case err != nil:
		answer = "error"
		fmt.Printf("NOTE %s: %.300s\n", name, err)
	}
	if w.compare {
		answer += fmt.Sprintf(" agree=%d/%d", agree, len(w.Subscriptions))
		if (err == nil) != w.Resolved {
			answer += fmt.Sprintf(" olmops_resolved=%t", w.Resolved)
		}
	}
	fmt.Printf("RESULT olm %s total_ms=%.1f cpu_ms=%.1f %s load=%s\n", name, ms(d), ms(cpu), answer, loadavg())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func loadavg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil || len(raw) < 4 {
		return "?"
	}
	var one string
	fmt.Sscan(string(raw), &one)
	return one
}
