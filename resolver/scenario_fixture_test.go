package resolver

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/internal/corpus"
)

// scenariosFile is the shared conformance corpus (format at its top).
const scenariosFile = "scenarios/scenarios.yaml"

// scenario is one scenario, or one case of a table scenario with the
// case's fields laid over the scenario's. Only the fields the upgrade
// half reads are typed; the rest stay in raw.
type scenario struct {
	ID            string         `yaml:"id"`
	Semantics     string         `yaml:"semantics"`
	Level         string         `yaml:"level"`
	Fault         string         `yaml:"fault"`
	Catalog       []fxPackage    `yaml:"catalog"`
	Catalogs      []fxCatalog    `yaml:"catalogs"`
	Installed     *fxInstalled   `yaml:"installed"`
	InstalledSet  []fxCSV        `yaml:"installedSet"`
	Request       *fxRequest     `yaml:"request"`
	Subscriptions []fxSub        `yaml:"subscriptions"`
	OperatorGroup map[string]any `yaml:"operatorGroup"`
	Expect        fxExpect       `yaml:"expect"`

	// range / predicate / sort levels
	Range             string          `yaml:"range"`
	Version           string          `yaml:"version"`
	Match             *bool           `yaml:"match"`
	RangeError        bool            `yaml:"error"`
	BundleVersion     string          `yaml:"bundleVersion"`
	Matches           map[string]bool `yaml:"matches"`
	Valid             []string        `yaml:"valid"`
	Invalid           []string        `yaml:"invalid"`
	TooLong           []fxTooLong     `yaml:"tooLong"`
	Bundles           []fxBundle      `yaml:"bundles"`
	Input             []string        `yaml:"input"`
	ExpectOrder       []string        `yaml:"expectOrder"`
	DeprecatedBundles []string        `yaml:"deprecatedBundles"`
	A                 string          `yaml:"a"`
	B                 string          `yaml:"b"`
	Cmp               int             `yaml:"cmp"`
	OlmPackage        any             `yaml:"olmPackage"`
	Gate              string          `yaml:"gate"`
	Package           string          `yaml:"package"`
	Channel           string          `yaml:"channel"`
	Entries           []fxEntry       `yaml:"entries"`
	CaseChannels      []any           `yaml:"channels"` // names, in a case; objects in raw
	raw               map[string]any  `yaml:"-"`
	caseName          string          `yaml:"-"`
	decodeErr         error           `yaml:"-"`
}

type fxCatalog struct {
	Name      string            `yaml:"name"`
	Namespace string            `yaml:"namespace"`
	Priority  int               `yaml:"priority"`
	Available *bool             `yaml:"available"`
	Labels    map[string]string `yaml:"labels"`
	Fault     string            `yaml:"fault"`
	Packages  []fxPackage       `yaml:"packages"`
}

type fxPackage struct {
	Package        string         `yaml:"package"`
	DefaultChannel string         `yaml:"defaultChannel"`
	Channels       []fxChannel    `yaml:"channels"`
	Bundles        []fxBundle     `yaml:"bundles"`
	Deprecations   *fxDeprecation `yaml:"deprecations"`
}

type fxChannel struct {
	Name    string    `yaml:"name"`
	Entries []fxEntry `yaml:"entries"`
}

type fxEntry struct {
	Name      string   `yaml:"name"`
	Replaces  string   `yaml:"replaces"`
	Skips     []string `yaml:"skips"`
	SkipRange string   `yaml:"skipRange"`
}

type fxBundle struct {
	Name             string           `yaml:"name"`
	Version          string           `yaml:"version"`
	Release          string           `yaml:"release"`
	Provides         []string         `yaml:"provides"`
	Requires         []string         `yaml:"requires"`
	RequiresPackages []map[string]any `yaml:"requiresPackages"`
	Properties       any              `yaml:"properties"`
	Dependencies     []any            `yaml:"dependencies"`
	SourceCatalog    string           `yaml:"sourceCatalog"`
}

type fxDeprecation struct {
	Package  string            `yaml:"package"`
	Channels map[string]string `yaml:"channels"`
	Bundles  map[string]string `yaml:"bundles"`
}

type fxInstalled struct {
	Package string  `yaml:"package"`
	Bundle  string  `yaml:"bundle"`
	Version string  `yaml:"version"`
	Release *string `yaml:"release"`
}

type fxCSV struct {
	Name       string   `yaml:"name"`
	Package    string   `yaml:"package"`
	Channel    string   `yaml:"channel"`
	Version    string   `yaml:"version"`
	Replaces   string   `yaml:"replaces"`
	Provides   []string `yaml:"provides"`
	Requires   []string `yaml:"requires"`
	Properties any      `yaml:"properties"`
	Phase      string   `yaml:"phase"`
}

type fxRequest struct {
	Package                 string         `yaml:"package"`
	Channels                []string       `yaml:"channels"`
	Version                 string         `yaml:"version"`
	UpgradeConstraintPolicy string         `yaml:"upgradeConstraintPolicy"`
	Selector                map[string]any `yaml:"selector"`
}

type fxSub struct {
	Name         string `yaml:"name"`
	Package      string `yaml:"package"`
	Channel      string `yaml:"channel"`
	Catalog      string `yaml:"catalog"`
	StartingCSV  string `yaml:"startingCSV"`
	InstalledCSV string `yaml:"installedCSV"`
	CurrentCSV   string `yaml:"currentCSV"`
}

type fxExpect struct {
	Bundle              string         `yaml:"bundle"`
	Version             string         `yaml:"version"`
	Release             *string        `yaml:"release"`
	DeprecationReturned *bool          `yaml:"deprecationReturned"`
	Error               any            `yaml:"error"`
	ErrorContains       *string        `yaml:"errorContains"`
	ErrorContainsAll    []string       `yaml:"errorContainsAll"`
	ErrorType           string         `yaml:"errorType"`
	NoError             bool           `yaml:"noError"`
	Successors          []string       `yaml:"successors"`
	Order               []string       `yaml:"order"`
	Installs            []any          `yaml:"installs"`
	Operators           []any          `yaml:"operators"` // names, or {name, channel, catalog}
	NotSatisfiable      []string       `yaml:"notSatisfiable"`
	SubscriptionStatus  []fxSubStatus  `yaml:"subscriptionStatus"`
	Raw                 map[string]any `yaml:",inline"`
}

type fxSubStatus struct {
	Name       string `yaml:"name"`
	CurrentCSV string `yaml:"currentCSV"`
}

type fxTooLong struct {
	Value         string `yaml:"value"`
	ErrorContains string `yaml:"errorContains"`
}

// loadScenarios reads the corpus and expands table scenarios into one
// scenario per case; the test fails when the corpus is absent
// (internal/corpus).
func loadScenarios(t *testing.T) []scenario {
	t.Helper()
	data, err := os.ReadFile(corpus.Path(t, scenariosFile))
	if err != nil {
		t.Fatal(err)
	}
	var raws []map[string]any
	if err := yaml.Unmarshal(data, &raws); err != nil {
		t.Fatal(err)
	}
	var out []scenario
	for _, raw := range raws {
		cases, _ := raw["cases"].([]any)
		if len(cases) == 0 {
			out = append(out, decodeScenario(t, raw, raw, ""))
			continue
		}
		for i, c := range cases {
			cm, _ := c.(map[string]any)
			merged := maps.Clone(raw)
			delete(merged, "cases")
			maps.Copy(merged, cm)
			name := fmt.Sprint(i)
			for _, k := range []string{"name", "title"} {
				if s, ok := cm[k].(string); ok {
					name = fmt.Sprintf("%d-%s", i, s)
				}
			}
			out = append(out, decodeScenario(t, merged, raw, name))
		}
	}
	return out
}

func decodeScenario(t *testing.T, m, parent map[string]any, caseName string) scenario {
	t.Helper()
	b, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var s scenario
	if err := yaml.Unmarshal(b, &s); err != nil {
		// A string where a structure is expected is a prose description
		// of an upstream fixture (see the corpus header).
		s = scenario{ID: fmt.Sprint(m["id"]), decodeErr: err}
	}
	s.raw, s.caseName = parent, caseName
	return s
}

// buildCatalog turns compact packages into FBC YAML and loads it through
// fbc.Decode and catalog.New, the path real catalogs take.
func buildCatalog(t testing.TB, name string, priority int, pkgs []fxPackage) *catalog.Catalog {
	t.Helper()
	var docs []any
	for _, p := range pkgs {
		pkgDoc := map[string]any{"schema": "olm.package", "name": p.Package}
		if p.DefaultChannel != "" {
			pkgDoc["defaultChannel"] = p.DefaultChannel
		}
		docs = append(docs, pkgDoc)
		for _, ch := range p.Channels {
			var entries []any
			for _, e := range ch.Entries {
				em := map[string]any{"name": e.Name}
				if e.Replaces != "" {
					em["replaces"] = e.Replaces
				}
				if len(e.Skips) > 0 {
					em["skips"] = e.Skips
				}
				if e.SkipRange != "" {
					em["skipRange"] = e.SkipRange
				}
				entries = append(entries, em)
			}
			docs = append(docs, map[string]any{"schema": "olm.channel", "package": p.Package, "name": ch.Name, "entries": entries})
		}
		for _, b := range p.Bundles {
			docs = append(docs, bundleDoc(p.Package, b))
		}
		if d := p.Deprecations; d != nil {
			var entries []any
			if d.Package != "" {
				entries = append(entries, map[string]any{"reference": map[string]any{"schema": "olm.package"}, "message": d.Package})
			}
			for _, k := range sortedKeys(d.Channels) {
				entries = append(entries, map[string]any{"reference": map[string]any{"schema": "olm.channel", "name": k}, "message": d.Channels[k]})
			}
			for _, k := range sortedKeys(d.Bundles) {
				entries = append(entries, map[string]any{"reference": map[string]any{"schema": "olm.bundle", "name": k}, "message": d.Bundles[k]})
			}
			docs = append(docs, map[string]any{"schema": "olm.deprecations", "package": p.Package, "entries": entries})
		}
	}
	var buf bytes.Buffer
	for _, d := range docs {
		b, err := yaml.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		buf.WriteString("---\n")
		buf.Write(b)
	}
	cfg, err := fbc.Decode(name+".yaml", buf.Bytes())
	if err != nil {
		t.Fatalf("decode fixture catalog %q: %v\n%s", name, err, buf.String())
	}
	c := catalog.New(name, cfg)
	c.Priority = priority
	return c
}

func bundleDoc(pkg string, b fxBundle) map[string]any {
	var props []any
	add := func(typ string, v any) { props = append(props, map[string]any{"type": typ, "value": v}) }
	hasPackage := false
	switch p := b.Properties.(type) {
	case map[string]any:
		for _, k := range sortedKeys(p) {
			add(k, p[k])
			hasPackage = hasPackage || k == "olm.package"
		}
	case []any:
		for _, item := range p {
			m, _ := item.(map[string]any)
			for _, k := range sortedKeys(m) {
				add(k, m[k])
				hasPackage = hasPackage || k == "olm.package"
			}
		}
	}
	if !hasPackage && b.Version != "" {
		v := map[string]any{"packageName": pkg, "version": b.Version}
		if b.Release != "" {
			v["release"] = b.Release
		}
		props = append([]any{map[string]any{"type": "olm.package", "value": v}}, props...)
	}
	for _, g := range b.Provides {
		add("olm.gvk", gvk(g))
	}
	for _, g := range b.Requires {
		add("olm.gvk.required", gvk(g))
	}
	for _, r := range b.RequiresPackages {
		add("olm.package.required", map[string]any{"packageName": r["package"], "versionRange": r["range"]})
	}
	doc := map[string]any{"schema": "olm.bundle", "package": pkg, "name": b.Name, "image": "example.com/" + b.Name}
	if len(props) > 0 {
		doc["properties"] = props
	}
	return doc
}

func gvk(s string) map[string]any {
	parts := strings.SplitN(s, "/", 3)
	for len(parts) < 3 {
		parts = append(parts, "")
	}
	return map[string]any{"group": parts[0], "version": parts[1], "kind": parts[2]}
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
