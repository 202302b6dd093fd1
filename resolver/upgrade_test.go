package resolver

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog"
)

func pkgCatalog(t *testing.T, p fxPackage) []*catalog.Catalog {
	t.Helper()
	return []*catalog.Catalog{buildCatalog(t, "catalog", 0, []fxPackage{p})}
}

// TestSeedExampleBothPolicies is the documented difference (seed 001):
// v3 skips v2 and v2's skipRange covers 1.0.0. OLM classic sees no update
// from 1.0.0 (v2 is skipped, so off the replaces chain); OLM v1 moves to
// v2 (no replaces chain, just the edge).
func TestSeedExampleBothPolicies(t *testing.T) {
	cats := pkgCatalog(t, fxPackage{
		Package: "example", DefaultChannel: "stable",
		Channels: []fxChannel{{Name: "stable", Entries: []fxEntry{
			{Name: "example.v3.0.0", Skips: []string{"example.v2.0.0"}},
			{Name: "example.v2.0.0", SkipRange: ">=1.0.0 <2.0.0"},
		}}},
		Bundles: []fxBundle{{Name: "example.v2.0.0", Version: "2.0.0"}, {Name: "example.v3.0.0", Version: "3.0.0"}},
	})
	installed := &Installed{Bundle: "example.v1.0.0", Version: "1.0.0"}

	v1, err := Successors(cats, Request{Package: "example", Installed: installed, Policy: Semver})
	if err != nil {
		t.Fatal(err)
	}
	if got := v1.Best(); got.Name() != "example.v2.0.0" || got.Edge.Kind != EdgeSkipRange {
		t.Errorf("Semver: best = %v, want example.v2.0.0 by skipRange", got.Edge)
	}

	classic, err := Successors(cats, Request{Package: "example", Installed: installed, Policy: Classic})
	if err != nil {
		t.Fatal(err)
	}
	if classic.Upgrades() {
		t.Errorf("Classic: best = %v, want to stay on example.v1.0.0", classic.Best().Edge)
	}
}

func chainCatalog(t *testing.T) []*catalog.Catalog {
	return pkgCatalog(t, fxPackage{
		Package: "etcd", DefaultChannel: "stable",
		Channels: []fxChannel{
			{Name: "stable", Entries: []fxEntry{
				{Name: "etcd.v0.9.0"},
				{Name: "etcd.v0.9.1", Replaces: "etcd.v0.9.0"},
				{Name: "etcd.v0.9.2", Replaces: "etcd.v0.9.0", Skips: []string{"etcd.v0.9.1"}},
				{Name: "etcd.v0.9.4", Replaces: "etcd.v0.9.2"},
				{Name: "etcd.v1.0.0", Replaces: "etcd.v0.9.4"},
			}},
			{Name: "alpha", Entries: []fxEntry{{Name: "etcd.v1.1.0-rc.1", SkipRange: ">=0.9.0 <1.1.0-rc.1"}}},
		},
		Bundles: []fxBundle{
			{Name: "etcd.v0.9.0", Version: "0.9.0"}, {Name: "etcd.v0.9.1", Version: "0.9.1"},
			{Name: "etcd.v0.9.2", Version: "0.9.2"}, {Name: "etcd.v0.9.4", Version: "0.9.4"},
			{Name: "etcd.v1.0.0", Version: "1.0.0"}, {Name: "etcd.v1.1.0-rc.1", Version: "1.1.0-rc.1"},
		},
		Deprecations: &fxDeprecation{Channels: map[string]string{"alpha": "alpha is going away"}, Bundles: map[string]string{"etcd.v0.9.0": "CVE-1"}},
	})
}

func TestUpgradePath(t *testing.T) {
	cats := chainCatalog(t)
	tests := []struct {
		name string
		req  Request
		want []string
	}{
		{"classic one hop at a time", Request{Package: "etcd", Channels: []string{"stable"}, Policy: Classic, Installed: &Installed{Bundle: "etcd.v0.9.0"}},
			[]string{"etcd.v0.9.2", "etcd.v0.9.4", "etcd.v1.0.0"}},
		{"classic without a channel stays on the default channel", Request{Package: "etcd", Policy: Classic},
			[]string{"etcd.v1.0.0"}},
		{"classic over two channels: the default head, then alpha's skipRange", Request{Package: "etcd", Channels: []string{"stable", "alpha"}, Policy: Classic},
			[]string{"etcd.v1.0.0", "etcd.v1.1.0-rc.1"}},
		{"classic starting CSV, then upgrades", Request{Package: "etcd", Channels: []string{"stable"}, Policy: Classic, StartingCSV: "etcd.v0.9.2"},
			[]string{"etcd.v0.9.2", "etcd.v0.9.4", "etcd.v1.0.0"}},
		{"classic at the head", Request{Package: "etcd", Channels: []string{"stable"}, Policy: Classic, Installed: &Installed{Bundle: "etcd.v1.0.0"}}, nil},
		{"semver takes direct edges", Request{Package: "etcd", Channels: []string{"stable"}, Installed: &Installed{Bundle: "etcd.v0.9.0"}},
			[]string{"etcd.v0.9.2", "etcd.v0.9.4", "etcd.v1.0.0"}},
		{"semver across channels prefers the highest edge", Request{Package: "etcd", Installed: &Installed{Bundle: "etcd.v0.9.1"}},
			[]string{"etcd.v1.1.0-rc.1"}},
		{"semver range keeps pre-releases out", Request{Package: "etcd", VersionRange: ">=0.9.0", Installed: &Installed{Bundle: "etcd.v0.9.1"}},
			[]string{"etcd.v0.9.2", "etcd.v0.9.4", "etcd.v1.0.0"}},
		{"caret constraints never leave 0.9", Request{Package: "etcd", ForceSemverUpgradeConstraints: true, Installed: &Installed{Bundle: "etcd.v0.9.0"}},
			[]string{"etcd.v0.9.4"}},
		{"self-certified jumps once", Request{Package: "etcd", SelfCertified: true, VersionRange: "<0.9.4", Installed: &Installed{Bundle: "etcd.v0.9.4"}},
			[]string{"etcd.v0.9.2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, err := UpgradePath(cats, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range path {
				got = append(got, h.Edge.To)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("path = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSuccessorsEdgesAndWarnings(t *testing.T) {
	cats := chainCatalog(t)
	res, err := Successors(cats, Request{Package: "etcd", Channels: []string{"alpha", "stable"}, Installed: &Installed{Bundle: "etcd.v0.9.0"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Candidates {
		got = append(got, c.Edge.String()+" in "+c.Channel.Name)
	}
	want := []string{
		`etcd.v0.9.0 -> etcd.v1.1.0-rc.1 (skipRange ">=0.9.0 <1.1.0-rc.1") in alpha`,
		"etcd.v0.9.0 -> etcd.v0.9.2 (replaces) in stable",
		"etcd.v0.9.0 -> etcd.v0.9.1 (replaces) in stable",
		"stay on etcd.v0.9.0 in stable",
	}
	if !slices.Equal(got, want) {
		t.Errorf("candidates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var ws []string
	for _, w := range res.Warnings {
		ws = append(ws, w.String())
	}
	wantWs := []string{"ChannelDeprecated alpha: alpha is going away", "BundleDeprecated etcd.v0.9.0: CVE-1"}
	if !slices.Equal(ws, wantWs) {
		t.Errorf("warnings = %q, want %q", ws, wantWs)
	}
}

func TestSuccessorsErrors(t *testing.T) {
	cats := chainCatalog(t)
	tests := []struct {
		name string
		req  Request
		want string
		none bool
	}{
		{"no package", Request{}, "no package in request", false},
		{"bad range", Request{Package: "etcd", VersionRange: ">>1"}, `invalid version range ">>1"`, false},
		{"bad policy", Request{Package: "etcd", Policy: "Newest"}, `unknown successor policy "Newest"`, false},
		{"v1 missing package", Request{Package: "nope"}, `no bundles found for package "nope"`, true},
		{"v1 installed unknown", Request{Package: "etcd", Installed: &Installed{Bundle: "etcd.v9"}}, `installed bundle "etcd.v9" has no version`, false},
		{"classic missing package", Request{Package: "nope", Policy: Classic, Name: "sub"}, "no operators found in package nope in the catalog referenced by subscription sub", true},
		{"classic missing channel", Request{Package: "etcd", Channels: []string{"beta"}, Policy: Classic}, "no operators found in channel beta of package etcd in the catalog referenced by subscription etcd", true},
		{"classic missing catalog", Request{Package: "etcd", Catalog: "other", Policy: Classic}, "no operators found from catalog other referenced by subscription etcd", true},
		{"classic missing catalog in a namespace", Request{Package: "etcd", Catalog: "other", CatalogNamespace: "olm", Policy: Classic}, "no operators found from catalog other in namespace olm referenced by subscription etcd", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Successors(cats, tt.req)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
			if errors.Is(err, ErrNoCandidates) != tt.none {
				t.Errorf("errors.Is(ErrNoCandidates) = %v, want %v", !tt.none, tt.none)
			}
		})
	}
}
