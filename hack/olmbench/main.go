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
	"syscall"
	"time"

	"github.com/blang/semver/v4"
	"github.com/sirupsen/logrus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/registry/resolver"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/registry/resolver/cache"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/model"
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
	for range *reps {
		b.runAlone(s.All)
		b.runNamespace(fmt.Sprintf("all-%d", len(s.All)), s.All, nil)
		b.runNamespace(fmt.Sprintf("largest-resolving-%d", len(s.Largest)), s.Largest, nil)
		b.runNamespace(fmt.Sprintf("upgrade-%d", len(s.Largest)), s.Largest, b.tails(s.Largest))
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
	tail           *cache.Entry // oldest entry of the default channel's replaces chain
}

type bench struct {
	pkgs    map[string]pkgInfo
	entries []*cache.Entry
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
	b := &bench{pkgs: map[string]pkgInfo{}, log: logger}
	key := cache.SourceKey{Name: catSource, Namespace: namespace}
	for _, p := range m {
		info := pkgInfo{defaultChannel: p.DefaultChannel.Name}
		for _, ch := range p.Channels {
			byName := map[string]*cache.Entry{}
			for _, bd := range ch.Bundles {
				ab, err := api.ConvertModelBundleToAPIBundle(*bd)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", bd.Name, err)
				}
				e, err := entryFromBundle(ab, key, p.DefaultChannel.Name)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", bd.Name, err)
				}
				byName[bd.Name] = e
				b.entries = append(b.entries, e)
			}
			if ch.Name == p.DefaultChannel.Name {
				info.tail = tail(ch, byName)
			}
		}
		b.pkgs[p.Name] = info
	}
	return b, nil
}

// tail walks the channel's replaces chain from its head to the oldest
// entry still in the channel.
func tail(ch *model.Channel, byName map[string]*cache.Entry) *cache.Entry {
	head, err := ch.Head()
	if err != nil {
		return nil
	}
	e, seen := byName[head.Name], map[string]bool{}
	for e != nil && !seen[e.Name] {
		seen[e.Name] = true
		next, ok := byName[e.Replaces]
		if !ok {
			break
		}
		e = next
	}
	return e
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

func (b *bench) subs(pkgs []string, installed map[string]*cache.Entry) []*v1alpha1.Subscription {
	var out []*v1alpha1.Subscription
	for _, p := range pkgs {
		s := &v1alpha1.Subscription{
			ObjectMeta: metav1.ObjectMeta{Name: p, Namespace: namespace},
			Spec: &v1alpha1.SubscriptionSpec{
				CatalogSource: catSource, CatalogSourceNamespace: namespace,
				Package: p, Channel: b.pkgs[p].defaultChannel,
			},
		}
		if e := installed[p]; e != nil {
			s.Status.InstalledCSV = e.Name
		}
		out = append(out, s)
	}
	return out
}

// tails installs each package at the oldest entry of its default channel,
// as OLM's csvSource would list the installed CSV: in the virtual source,
// with the catalog bundle's properties (the CSV's properties annotation).
func (b *bench) tails(pkgs []string) map[string]*cache.Entry {
	out := map[string]*cache.Entry{}
	for _, p := range pkgs {
		t := b.pkgs[p].tail
		if t == nil {
			continue
		}
		out[p] = &cache.Entry{
			Name: t.Name, Version: t.Version, Properties: t.Properties,
			ProvidedAPIs: t.ProvidedAPIs, RequiredAPIs: t.RequiredAPIs,
			SourceInfo: &cache.OperatorSourceInfo{Catalog: cache.NewVirtualSourceKey(namespace), Package: p},
		}
	}
	return out
}

func (b *bench) solve(r *resolver.Resolver, subs []*v1alpha1.Subscription) ([]*cache.Entry, error) {
	return r.Resolve([]string{namespace}, subs)
}

func (b *bench) ok(pkgs []string) bool {
	_, err := b.solve(b.fresh(), b.subs(pkgs, nil))
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
	cpu0 := cpuTime()
	for _, p := range pkgs {
		r, subs := b.fresh(), b.subs([]string{p}, nil)
		t0 := time.Now()
		_, err := b.solve(r, subs)
		d := time.Since(t0)
		times, total = append(times, d), total+d
		if err == nil {
			resolved++
		}
	}
	slices.Sort(times)
	fmt.Printf("RESULT olm alone-%d total_ms=%.1f median_ms=%.3f cpu_ms=%.1f resolved=%d load=%s\n",
		len(pkgs), ms(total), ms(times[len(times)/2]), ms(cpuTime()-cpu0), resolved, loadavg())
}

// runNamespace resolves pkgs in one namespace; the first resolution warms
// the cache's snapshot and is not timed.
func (b *bench) runNamespace(name string, pkgs []string, installed map[string]*cache.Entry) {
	var inst []*cache.Entry
	for _, p := range pkgs {
		if e := installed[p]; e != nil {
			inst = append(inst, e)
		}
	}
	r, subs := b.resolver(inst), b.subs(pkgs, installed)
	_, _ = b.solve(r, subs[:1])
	cpu0, t0 := cpuTime(), time.Now()
	out, err := b.solve(r, subs)
	d := time.Since(t0)
	answer := fmt.Sprintf("resolved=%d", len(out))
	if installed != nil && err == nil {
		answer += fmt.Sprintf(" upgrades=%d", upgrades(out, installed))
	}
	if err != nil {
		answer = "unsatisfiable"
	}
	fmt.Printf("RESULT olm %s total_ms=%.1f cpu_ms=%.1f %s load=%s\n", name, ms(d), ms(cpuTime()-cpu0), answer, loadavg())
}

func upgrades(out []*cache.Entry, installed map[string]*cache.Entry) int {
	n := 0
	for _, e := range out {
		if in := installed[e.SourceInfo.Package]; in != nil && in.Name != e.Name {
			n++
		}
	}
	return n
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
