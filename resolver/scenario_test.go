package resolver

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	mm "github.com/Masterminds/semver/v3"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/semver"
)

// Skip reasons; docs/resolver-semantics.md lists each as a deliberate
// difference or as work that belongs elsewhere.
const (
	skipSAT           = "a solver-level scenario of OLM v1 semantics: v1 resolves one package at a time"
	skipSourceCatalog = "a bundle whose cache entry claims another catalog source is an OLM cache internal; in olmops a bundle belongs to the catalog it is read from"
	skipLabel         = "olm.label dependencies (a bundle requiring another bundle's olm.label property) are OLM classic's legacy dependency type; olmops resolves olm.gvk, olm.package and olm.constraint dependencies"
	skipUnsubscribed  = "operators installed without a subscription: olmops resolves the subscriptions of a namespace, and every installed operator in a GitOps repo has one"
	skipFault         = "fault injection into operator-controller's catalog walker: olmops resolves over catalogs already loaded from files, there is no walker to fail"
	skipFailFwd       = "the TechPreviewUnsafeFailForward upgrade strategy reasons over installed CSV phases (Failed, Replacing), which a GitOps repo does not record"
	skipGVKString     = "parsing of OLM classic's provided-APIs annotation (Kind.version.group) is CSV reading, not upgrade edges"
	skipOther         = "validate-level scenario: run by package catalog (catalog/scenarios_test.go)"
)

// TestScenarios runs the v1 and classic scenarios of the shared corpus
// whose level is resolve, successors, predicate, range or sort and that
// need no dependency resolution.
func TestScenarios(t *testing.T) {
	for _, s := range loadScenarios(t) {
		name := s.ID
		if s.caseName != "" {
			name += "/" + s.caseName
		}
		t.Run(name, func(t *testing.T) { runScenario(t, s) })
	}
}

func runScenario(t *testing.T, s scenario) {
	switch {
	case s.decodeErr != nil:
		t.Skipf("fixture given in prose upstream, not restated as data: %v", s.decodeErr)
	case s.Semantics == "v1" && s.Level == "resolve":
		runV1Resolve(t, s)
	case s.Semantics == "v1" && s.Level == "successors":
		runV1Successors(t, s)
	case s.Semantics == "v1" && (s.Level == "predicate" || s.Level == "range" || s.Level == "sort"):
		runV1Unit(t, s)
	case s.Semantics == "classic" && s.Level == "resolve":
		runClassicResolve(t, s)
	case s.Semantics == "classic" && s.Level == "sort":
		runClassicSort(t, s)
	case s.Semantics == "classic" && s.ID == "classic-gvk-string-parsing":
		t.Skip(skipGVKString)
	case s.Semantics == "classic" && s.Level == "solver":
		runClassicSolver(t, s)
	case s.Level == "solver":
		t.Skip(skipSAT)
	default:
		t.Skip(skipOther)
	}
}

// scenarioCatalogs builds the catalogs a scenario resolves over, leaving
// out unavailable ones; a v1 request's selector is the resolver's to apply.
func scenarioCatalogs(t *testing.T, s scenario) []*catalog.Catalog {
	if s.Catalog != nil {
		return []*catalog.Catalog{buildCatalog(t, "catalog", 0, s.Catalog)}
	}
	var cats []*catalog.Catalog
	for _, c := range s.Catalogs {
		if c.Available != nil && !*c.Available {
			continue
		}
		name := c.Name
		if c.Namespace != "" {
			name += "/" + c.Namespace // a classic CatalogSource is name/namespace
		}
		cat := buildCatalog(t, name, c.Priority, c.Packages)
		cat.Labels = c.Labels
		cats = append(cats, cat)
	}
	return cats
}

func hasFault(s scenario) bool {
	if s.Fault != "" {
		return true
	}
	for _, c := range s.Catalogs {
		if c.Fault != "" {
			return true
		}
	}
	return false
}

func runV1Resolve(t *testing.T, s scenario) {
	if hasFault(s) {
		t.Skip(skipFault)
	}
	sel, err := ParseCatalogSelector(s.Request.Selector)
	if err != nil {
		checkError(t, s.Expect, err)
		return
	}
	req := Request{
		CatalogSelector: sel,
		Package:         s.Request.Package,
		Channels:        s.Request.Channels,
		VersionRange:    s.Request.Version,
		SelfCertified:   s.Request.UpgradeConstraintPolicy == "SelfCertified",
		Policy:          Semver,
	}
	if in := s.Installed; in != nil {
		req.Installed = &Installed{Bundle: in.Bundle, Version: in.Version, Release: in.Release}
	}
	res, err := Successors(scenarioCatalogs(t, s), req)
	if !checkError(t, s.Expect, err) {
		return
	}
	best := res.Best()
	if e := s.Expect.Bundle; e != "" && best.Name() != e {
		t.Errorf("bundle = %s, want %s (candidates %v)", best.Name(), e, names(res.Candidates))
	}
	if e := s.Expect.Version; e != "" && (best.Bundle == nil || best.Bundle.Version.String() != e) {
		t.Errorf("version of %s = %v, want %s", best.Name(), best.Bundle.Version, e)
	}
	if e := s.Expect.DeprecationReturned; e != nil && (res.Deprecation != nil) != *e {
		t.Errorf("deprecation returned = %v, want %v", res.Deprecation != nil, *e)
	}
}

// checkError checks err against the expectation and reports whether the
// scenario expects success (so the result should be checked).
func checkError(t *testing.T, e fxExpect, err error) bool {
	t.Helper()
	want, _ := e.Error.(string)
	switch {
	case want != "":
		if err == nil || err.Error() != want {
			t.Errorf("error = %v\nwant    %s", err, want)
		}
		return false
	case e.ErrorContains != nil:
		if err == nil || !strings.Contains(err.Error(), *e.ErrorContains) {
			t.Errorf("error = %v, want it to contain %q", err, *e.ErrorContains)
		}
		return false
	case e.Error == true:
		if err == nil {
			t.Error("want an error")
		}
		return false
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	return true
}

func runV1Successors(t *testing.T, s scenario) {
	var cats []*catalog.Catalog
	pkg := "test"
	if s.Catalog != nil {
		cats = scenarioCatalogs(t, s)
		pkg = s.Catalog[0].Package
	}
	in := s.Installed
	res, err := Successors(cats, Request{Package: pkg, Installed: &Installed{Bundle: in.Bundle, Version: in.Version, Release: in.Release}})
	if s.Expect.Successors != nil && errors.Is(err, ErrNoCandidates) {
		err = nil // the filter level upstream returns an empty set
	}
	if !checkError(t, s.Expect, err) {
		return
	}
	got := names(res.Candidates)
	if !slices.Equal(got, s.Expect.Successors) && !(len(got) == 0 && len(s.Expect.Successors) == 0) {
		t.Errorf("successors = %v, want %v", got, s.Expect.Successors)
	}
}

func names(cs []Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name()
	}
	return out
}

func runV1Unit(t *testing.T, s scenario) {
	switch s.ID {
	case "v1-legacy-successor-edges":
		in, err := parseInstalled(nil, s.Installed.Package, &Installed{Bundle: s.Installed.Bundle, Version: s.Installed.Version}, true)
		if err != nil {
			t.Fatal(err)
		}
		entries := map[string]*catalog.Entry{}
		for _, e := range s.Catalog[0].Channels[0].Entries {
			entries[e.Name] = &catalog.Entry{Name: e.Name, Replaces: e.Replaces, Skips: e.Skips, SkipRange: e.SkipRange}
		}
		for name, want := range s.Matches {
			got := false
			if e := entries[name]; e != nil {
				_, got = entryEdge(e, in)
			}
			if got != want {
				t.Errorf("%q is a successor = %v, want %v", name, got, want)
			}
		}
	case "v1-predicate-in-semver-range":
		r, err := semver.ParseRange(s.Range)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := mm.StrictNewVersion(s.BundleVersion)
		if got := r.Contains(v); got != *s.Match {
			t.Errorf("%q contains %q = %v, want %v", s.Range, s.BundleVersion, got, *s.Match)
		}
	case "v1-predicate-in-any-channel":
		runInAnyChannel(t, s)
	case "v1-range-build-metadata-and-exact":
		r, err := semver.ParseRange(s.Range)
		if s.RangeError {
			if err == nil {
				t.Errorf("ParseRange(%q) succeeded, want an error", s.Range)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Contains(mm.MustParse(s.Version)); got != *s.Match {
			t.Errorf("%q contains %s = %v, want %v", s.Range, s.Version, got, *s.Match)
		}
	case "v1-version-field-syntax":
		for _, v := range s.Valid {
			if _, err := semver.ParseRange(v); err != nil {
				t.Errorf("valid %q: %v", v, err)
			}
		}
		for _, v := range s.Invalid {
			if _, err := semver.ParseRange(v); err == nil {
				t.Errorf("invalid %q was accepted", v)
			}
		}
		for _, tl := range s.TooLong {
			// The field path prefix is the API server's; olmops names the
			// file and line instead.
			want := strings.TrimPrefix(tl.ErrorContains, "spec.source.catalog.version: ")
			if _, err := semver.ParseRange(tl.Value); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("too long %q: error %v, want it to contain %q", tl.Value, err, want)
			}
		}
	case "v1-sort-by-version-and-release":
		cat := buildCatalog(t, "catalog", 0, []fxPackage{{Package: "package1", Bundles: s.Bundles}})
		var bs []*catalog.Bundle
		for _, n := range s.Input {
			bs = append(bs, cat.Bundle("package1", n))
		}
		slices.SortStableFunc(bs, byVersionRelease)
		var got []string
		for _, b := range bs {
			got = append(got, b.Name)
		}
		if !slices.Equal(got, s.ExpectOrder) {
			t.Errorf("order = %v, want %v", got, s.ExpectOrder)
		}
	case "v1-sort-by-deprecation":
		if got := byDeprecation(slices.Contains(s.DeprecatedBundles, s.A), slices.Contains(s.DeprecatedBundles, s.B)); got != s.Cmp {
			t.Errorf("byDeprecation(%s, %s) = %d, want %d", s.A, s.B, got, s.Cmp)
		}
	case "v1-version-release-parsing":
		runVersionRelease(t, s)
	default:
		t.Fatalf("no runner for %s", s.ID)
	}
}

func runInAnyChannel(t *testing.T, s scenario) {
	var chans []fxChannel
	for _, c := range s.raw["channels"].([]any) {
		m := c.(map[string]any)
		ch := fxChannel{Name: m["name"].(string)}
		for _, e := range m["entries"].([]any) {
			ch.Entries = append(ch.Entries, fxEntry{Name: e.(map[string]any)["name"].(string)})
		}
		chans = append(chans, ch)
	}
	var want []string
	for _, c := range s.CaseChannels {
		want = append(want, fmt.Sprint(c))
	}
	bundles := []fxBundle{{Name: "b1", Version: "1.0.0"}, {Name: "b2", Version: "2.0.0"}, {Name: "b3", Version: "3.0.0"}}
	cat := buildCatalog(t, "catalog", 0, []fxPackage{{Package: "p", Channels: chans, Bundles: bundles}})
	for name, wantIn := range s.Matches {
		_, got := channelFor(cat.Bundle("p", name), want)
		if got != wantIn {
			t.Errorf("%s in any of %v = %v, want %v", name, want, got, wantIn)
		}
	}
}

func runVersionRelease(t *testing.T, s scenario) {
	m, ok := s.OlmPackage.(map[string]any)
	var vr semver.VersionRelease
	var err error
	switch {
	case !ok:
		err = fmt.Errorf("olm.package value %v is not an object", s.OlmPackage)
	case s.Gate == "BundleReleaseSupport" && m["release"] != nil:
		vr, err = semver.ParseExplicitRelease(fmt.Sprint(m["version"]), fmt.Sprint(m["release"]))
	default:
		vr, err = semver.ParseVersionRelease(fmt.Sprint(m["version"]))
	}
	if !checkError(t, s.Expect, err) {
		return
	}
	if got := vr.Version.String(); got != s.Expect.Version {
		t.Errorf("version = %s, want %s", got, s.Expect.Version)
	}
	want := ""
	if s.Expect.Release != nil {
		want = *s.Expect.Release
	}
	if got := vr.Release.String(); got != want {
		t.Errorf("release = %q, want %q", got, want)
	}
}

func runClassicSort(t *testing.T, s scenario) {
	var entries []*catalog.Entry
	for _, e := range s.Entries {
		entries = append(entries, &catalog.Entry{Name: e.Name, Replaces: e.Replaces, Skips: e.Skips, SkipRange: e.SkipRange})
	}
	order, err := sortChannel(s.Package, s.Channel, entries)
	if !checkError(t, s.Expect, err) {
		return
	}
	var got []string
	for _, e := range order {
		got = append(got, e.Name)
	}
	if !slices.Equal(got, s.Expect.Order) && !(len(got) == 0 && len(s.Expect.Order) == 0) {
		t.Errorf("order = %v, want %v", got, s.Expect.Order)
	}
}

// classicSkip reports why a classic resolve scenario is out of reach, ""
// when Resolve can run it.
func classicSkip(s scenario) string {
	if s.OperatorGroup != nil {
		return skipFailFwd
	}
	subbed := map[string]bool{}
	for _, sub := range s.Subscriptions {
		subbed[sub.Package] = true
	}
	for _, csv := range s.InstalledSet {
		if !subbed[csv.Package] {
			return skipUnsubscribed
		}
	}
	return ""
}

// classicCatalogs names a scenario's single catalog after the source its
// subscriptions use, so variable names read as OLM's do.
func classicCatalogs(t *testing.T, s scenario) []*catalog.Catalog {
	if s.Catalog != nil && len(s.Subscriptions) > 0 && s.Subscriptions[0].Catalog != "" {
		return []*catalog.Catalog{buildCatalog(t, s.Subscriptions[0].Catalog, 0, s.Catalog)}
	}
	return scenarioCatalogs(t, s)
}

// classicNamespace turns a classic scenario's subscriptions and installed
// CSVs into one namespace to resolve.
func classicNamespace(t *testing.T, s scenario) Namespace {
	ns := Namespace{Catalogs: classicCatalogs(t, s)}
	for _, sub := range s.Subscriptions {
		req := Request{Package: sub.Package, StartingCSV: sub.StartingCSV, Name: sub.Name, Policy: Classic, Catalog: sub.Catalog}
		if sub.Channel != "" {
			req.Channels = []string{sub.Channel}
		}
		for _, csv := range s.InstalledSet {
			if csv.Name == sub.InstalledCSV && sub.InstalledCSV != "" {
				req.Installed = &Installed{Bundle: csv.Name, Version: csv.Version}
			}
		}
		ns.Subscriptions = append(ns.Subscriptions, Subscription{Request: req})
	}
	return ns
}

func runClassicResolve(t *testing.T, s scenario) {
	if why := classicSkip(s); why != "" {
		t.Skip(why)
	}
	sol, err := Resolve(t.Context(), classicNamespace(t, s))
	if checkClassicError(t, s.Expect, err) {
		return
	}
	type install struct{ bundle, replacing string }
	var installs []install
	current := map[string]string{}
	for _, r := range sol.Subscriptions {
		current[r.Name] = r.BundleName
		dup := slices.ContainsFunc(installs, func(i install) bool { return i.bundle == r.BundleName })
		if r.Edge.Kind != EdgeStay && !dup {
			installs = append(installs, install{r.BundleName, r.Edge.From})
		}
	}
	for _, d := range sol.Dependencies {
		installs = append(installs, install{d.StartingCSV, ""})
	}
	var want []install
	for _, i := range s.Expect.Installs {
		switch v := i.(type) {
		case string:
			want = append(want, install{bundle: v})
		case map[string]any:
			want = append(want, install{fmt.Sprint(v["bundle"]), fmt.Sprint(v["replacing"])})
		}
	}
	for _, w := range want {
		ok := slices.ContainsFunc(installs, func(g install) bool {
			return g.bundle == w.bundle && (w.replacing == "" || w.replacing == "<nil>" || g.replacing == w.replacing)
		})
		if !ok {
			t.Errorf("installs %v, want %v", installs, want)
		}
	}
	if len(installs) != len(want) {
		t.Errorf("installs %v, want %v", installs, want)
	}
	for _, st := range s.Expect.SubscriptionStatus {
		if st.CurrentCSV != "" && current[st.Name] != st.CurrentCSV {
			t.Errorf("subscription %s: currentCSV %q, want %q", st.Name, current[st.Name], st.CurrentCSV)
		}
	}
	if want := s.Expect.Raw["newDependencySubscriptions"]; want != nil {
		checkDependencies(t, want, sol.Dependencies)
	}
}

// checkClassicError reports whether the scenario expects a failure, and
// checks it: the explanation must name every constraint OLM names.
func checkClassicError(t *testing.T, e fxExpect, err error) bool {
	t.Helper()
	wantErr := len(e.NotSatisfiable) > 0 || e.ErrorType != "" || len(e.ErrorContainsAll) > 0
	if !wantErr {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return false
	}
	var u *Unsatisfiable
	if !errors.As(err, &u) {
		t.Fatalf("want an unsatisfiable namespace, got %v", err)
	}
	for _, w := range e.NotSatisfiable {
		if !slices.Contains(u.Explanation, w) && !strings.Contains(err.Error(), w) {
			t.Errorf("explanation %q does not name %q", u.Explanation, w)
		}
	}
	for _, w := range e.ErrorContainsAll {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
	return true
}

func checkDependencies(t *testing.T, want any, got []Dependency) {
	t.Helper()
	list, _ := want.([]any)
	if len(list) != len(got) {
		t.Errorf("dependencies %v, want %v", got, want)
		return
	}
	for i, w := range list {
		m, _ := w.(map[string]any)
		d := got[i]
		if n, ok := m["package"]; ok && n != d.Package {
			t.Errorf("dependency %d package %q, want %v", i, d.Package, n)
		}
		if n, ok := m["startingCSV"]; ok && n != d.StartingCSV {
			t.Errorf("dependency %d startingCSV %q, want %v", i, d.StartingCSV, n)
		}
		if n, ok := m["channel"]; ok && d.Channel != nil && n != d.Channel.Name {
			t.Errorf("dependency %d channel %q, want %v", i, d.Channel.Name, n)
		}
		if n, ok := m["name"]; ok && n != d.Name {
			t.Errorf("dependency %d name %q, want %v", i, d.Name, n)
		}
	}
}

// runClassicSolver runs OLM classic's solver-level scenarios through
// Resolve: the set of operators the namespace ends with is the chosen
// bundle of every subscription plus the proposed dependencies.
func runClassicSolver(t *testing.T, s scenario) {
	if why := classicSkip(s); why != "" {
		t.Skip(why)
	}
	for _, c := range s.Catalogs {
		for _, p := range c.Packages {
			for _, b := range p.Bundles {
				if len(b.Dependencies) > 0 {
					t.Skip(skipLabel)
				}
				if b.SourceCatalog != "" {
					t.Skip(skipSourceCatalog)
				}
			}
		}
	}
	sol, err := Resolve(t.Context(), classicNamespace(t, s))
	e := s.Expect
	wantErr := e.ErrorType != "" || e.ErrorContains != nil || e.Error != nil
	if wantErr {
		if err == nil {
			t.Fatalf("want an error (%v%v%v), resolved instead", e.ErrorType, deref(e.ErrorContains), e.Error)
		}
		if e.ErrorContains != nil && !strings.Contains(err.Error(), *e.ErrorContains) {
			t.Errorf("error %q does not contain %q", err, *e.ErrorContains)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	// OLM's solver returns the operators that change: new installs and
	// upgrades, not what stays.
	type operator struct{ name, channel, catalog string }
	var got []operator
	add := func(name string, cat *catalog.Catalog, ch *catalog.Channel) {
		o := operator{name: name}
		if ch != nil {
			o.channel = ch.Name
		}
		if cat != nil {
			o.catalog = cat.Name
		}
		if !slices.Contains(got, o) {
			got = append(got, o)
		}
	}
	for _, r := range sol.Subscriptions {
		if r.Edge.Kind != EdgeStay {
			add(r.BundleName, r.Catalog, r.Channel)
		}
	}
	for _, d := range sol.Dependencies {
		add(d.StartingCSV, d.Catalog, d.Channel)
	}
	if len(got) != len(e.Operators) {
		t.Errorf("operators %v, want %v", got, e.Operators)
	}
	for _, w := range e.Operators {
		want := operator{}
		switch v := w.(type) {
		case string:
			want.name = v
		case map[string]any:
			want.name, _ = v["name"].(string)
			want.channel, _ = v["channel"].(string)
			want.catalog, _ = v["catalog"].(string)
		}
		ok := slices.ContainsFunc(got, func(g operator) bool {
			return g.name == want.name && (want.channel == "" || g.channel == want.channel) && (want.catalog == "" || g.catalog == want.catalog)
		})
		if !ok {
			t.Errorf("operators %v do not include %+v", got, want)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
