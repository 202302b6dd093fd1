package catalog_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/catalog/property"
	"github.com/olmops/olmops/internal/corpus"
)

// scenariosFile is the shared conformance corpus (internal/corpus).
const scenariosFile = "scenarios/scenarios.yaml"

// scenarioDifferences are the upstream validation cases whose text olmops
// words differently, on purpose (docs/compatibility.md): the model-level
// check opm's unit test calls directly is unreachable from a file-based
// catalog, where opm's conversion reports the same fault first, in its
// own words — and olmops uses those.
var scenarioDifferences = map[string]string{
	"validate-package-level/Package/Error/NoName":                          "config contains package with no name",
	"validate-channel-and-bundle-level/Channel/Error/NoName":               `package "anakin" contains channel with no name`,
	"validate-channel-and-bundle-level/Bundle/Error/MissingPackage":        `package "anakin" bundle "anakin.v0.1.0" must have exactly 1 "olm.package" property, found 0`,
	"validate-channel-and-bundle-level/Bundle/Error/MultiplePackages":      `package "anakin" bundle "anakin.v0.1.0" must have exactly 1 "olm.package" property, found 2`,
	"validate-package-level/Package/Error/DuplicateBundleVersionsReleases": `package "anakin" has duplicate bundle "anakin.v0.0.1"`,
}

// scenarioFixtures restate the cases the scenario file describes in prose.
var scenarioFixtures = map[string]string{
	"validate-package-level/Package/Error/NoDefaultChannel":                "fixture-no-default",
	"validate-package-level/Package/Error/DefaultChannelNotInChannelMap":   "fixture-not-found",
	"validate-package-level/Model/Error/InvalidPackage":                    "fixture-not-found",
	"validate-package-level/Package/Error/DuplicateBundleVersionsReleases": "releases",
}

type scenario struct {
	ID        string         `yaml:"id"`
	Semantics string         `yaml:"semantics"`
	Fixture   any            `yaml:"fixture"`
	Cases     []scenarioCase `yaml:"cases"`
}

type scenarioCase struct {
	Name    string         `yaml:"name"`
	Entries []any          `yaml:"entries"`
	Catalog any            `yaml:"catalog"`
	Channel map[string]any `yaml:"channel"`
	Bundle  any            `yaml:"bundle"`
	FBC     any            `yaml:"fbc"`
	Expect  map[string]any `yaml:"expect"`
}

func TestScenariosValidate(t *testing.T) {
	data, err := os.ReadFile(corpus.Path(t, scenariosFile))
	if err != nil {
		t.Fatal(err)
	}
	var all []scenario
	if err := yaml.Unmarshal(data, &all); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range all {
		if s.Semantics != "validate" {
			continue
		}
		for _, tc := range s.Cases {
			n++
			id := s.ID + "/" + tc.Name
			t.Run(id, func(t *testing.T) {
				cfg := scenarioConfig(t, s, tc, id)
				c := catalog.New("scenario", cfg)
				checkScenario(t, c, tc, id)
			})
		}
	}
	if n == 0 {
		t.Fatal("no validate scenarios found")
	}
}

func checkScenario(t *testing.T, c *catalog.Catalog, tc scenarioCase, id string) {
	ps := c.Validate()
	if head, ok := tc.Expect["head"]; ok && head != nil {
		h, err := c.Packages["anakin"].Channels["light"].Head()
		if err != nil || h.Name != head {
			t.Errorf("head = %v, %v; want %v", h, err, head)
		}
	}
	want, _ := tc.Expect["error"].(string)
	if want == "" {
		if len(ps) > 0 {
			t.Errorf("want valid, got:\n%v", ps)
		}
		return
	}
	if d, ok := scenarioDifferences[id]; ok {
		want = d
	} else {
		want = flattenTree(want)
	}
	for _, p := range ps {
		if strings.Contains(p.Message, want) {
			return
		}
	}
	t.Errorf("want a problem containing %q, got:\n%v", want, ps)
}

// flattenTree turns opm's printed error tree into olmops' one-line path.
func flattenTree(s string) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimLeft(l, " └─")
		if l == "invalid index:" {
			continue
		}
		parts = append(parts, strings.TrimSuffix(l, ":"))
	}
	return strings.Join(parts, ": ")
}

// ---- building catalogs from the scenario formats ----

func str(m map[string]any, k string) string {
	if v, ok := m[k]; ok && v != nil {
		return fmt.Sprint(v)
	}
	return ""
}

func prop(t *testing.T, typ string, v any) property.Property {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return property.Property{Type: typ, Value: property.JSONValue(b)}
}

func pkgProp(t *testing.T, pkg, version, release string) property.Property {
	v := map[string]string{"packageName": pkg, "version": version}
	if release != "" {
		v["release"] = release
	}
	return prop(t, property.TypePackage, v)
}

func entry(m map[string]any) fbc.ChannelEntry {
	e := fbc.ChannelEntry{Name: str(m, "name"), Replaces: str(m, "replaces"), SkipRange: str(m, "skipRange")}
	if sk, ok := m["skips"].([]any); ok {
		for _, s := range sk {
			e.Skips = append(e.Skips, fmt.Sprint(s))
		}
	}
	return e
}

func scenarioConfig(t *testing.T, s scenario, tc scenarioCase, id string) *fbc.Config {
	switch {
	case scenarioFixtures[id] != "":
		return proseFixture(t, s, scenarioFixtures[id])
	case tc.Entries != nil:
		cfg := &fbc.Config{Packages: []fbc.Package{{Name: "anakin", DefaultChannel: "light"}}}
		ch := fbc.Channel{Package: "anakin", Name: "light"}
		for _, e := range tc.Entries {
			fe := entry(e.(map[string]any))
			ch.Entries = append(ch.Entries, fe)
			cfg.Bundles = append(cfg.Bundles, fbc.Bundle{Package: "anakin", Name: fe.Name, Image: "img",
				Properties: []property.Property{pkgProp(t, "anakin", strings.TrimPrefix(fe.Name, "anakin.v"), "")}})
		}
		cfg.Channels = []fbc.Channel{ch}
		return cfg
	case tc.Catalog != nil:
		if name, ok := tc.Catalog.(string); ok && name == "fixture" {
			return compactCatalog(t, s.Fixture.([]any))
		}
		return compactCatalog(t, tc.Catalog.([]any))
	case tc.Channel != nil:
		ch := fbc.Channel{Package: "anakin", Name: str(tc.Channel, "name")}
		cfg := &fbc.Config{Packages: []fbc.Package{{Name: "anakin", DefaultChannel: "light"}}}
		entries, _ := tc.Channel["entries"].([]any)
		for _, e := range entries {
			fe := entry(e.(map[string]any))
			ch.Entries = append(ch.Entries, fe)
			cfg.Bundles = append(cfg.Bundles, fbc.Bundle{Package: "anakin", Name: fe.Name, Image: "img",
				Properties: []property.Property{pkgProp(t, "anakin", strings.TrimPrefix(fe.Name, "anakin.v"), "")}})
		}
		cfg.Channels = []fbc.Channel{ch}
		return cfg
	case tc.Bundle != nil:
		return bundleCase(t, tc.Bundle)
	case tc.FBC != nil:
		return fbcCase(t, tc.FBC, id)
	}
	t.Fatalf("no catalog in case %s", id)
	return nil
}

func compactCatalog(t *testing.T, pkgs []any) *fbc.Config {
	cfg := &fbc.Config{}
	for _, x := range pkgs {
		p := x.(map[string]any)
		name := str(p, "package")
		cfg.Packages = append(cfg.Packages, fbc.Package{Name: name, DefaultChannel: str(p, "defaultChannel")})
		chs, _ := p["channels"].([]any)
		for _, c := range chs {
			cm := c.(map[string]any)
			ch := fbc.Channel{Package: name, Name: str(cm, "name")}
			es, _ := cm["entries"].([]any)
			for _, e := range es {
				ch.Entries = append(ch.Entries, entry(e.(map[string]any)))
			}
			cfg.Channels = append(cfg.Channels, ch)
		}
		bs, _ := p["bundles"].([]any)
		for _, b := range bs {
			bm := b.(map[string]any)
			image := str(bm, "image")
			if image == "" {
				image = "img"
			}
			fb := fbc.Bundle{Package: name, Name: str(bm, "name"), Image: image,
				Properties: []property.Property{pkgProp(t, name, str(bm, "version"), str(bm, "release"))}}
			provides, _ := bm["provides"].([]any)
			for _, g := range provides {
				gvk := strings.SplitN(fmt.Sprint(g), "/", 3)
				fb.Properties = append(fb.Properties, prop(t, property.TypeGVK, map[string]string{"group": gvk[0], "version": gvk[1], "kind": gvk[2]}))
			}
			cfg.Bundles = append(cfg.Bundles, fb)
		}
	}
	return cfg
}

func proseFixture(t *testing.T, s scenario, which string) *fbc.Config {
	switch which {
	case "fixture-no-default":
		cfg := compactCatalog(t, s.Fixture.([]any))
		cfg.Packages[0].DefaultChannel = ""
		return cfg
	case "fixture-not-found":
		cfg := compactCatalog(t, s.Fixture.([]any))
		cfg.Packages[0].DefaultChannel = "not-found"
		return cfg
	case "releases":
		// Two bundles of each name cannot coexist in a file-based catalog:
		// the second of each is a duplicate bundle.
		cfg := &fbc.Config{Packages: []fbc.Package{{Name: "anakin", DefaultChannel: "light"}},
			Channels: []fbc.Channel{{Package: "anakin", Name: "light", Entries: []fbc.ChannelEntry{{Name: "anakin.v0.0.1"}, {Name: "anakin.v0.0.2"}}}}}
		for _, r := range []string{"", "100"} {
			for _, n := range []string{"anakin.v0.0.1", "anakin.v0.0.2"} {
				cfg.Bundles = append(cfg.Bundles, fbc.Bundle{Package: "anakin", Name: n, Image: "img", Properties: []property.Property{pkgProp(t, "anakin", "0.0.1", r)}})
			}
		}
		return cfg
	}
	t.Fatalf("unknown fixture %s", which)
	return nil
}

func bundleCase(t *testing.T, x any) *fbc.Config {
	b := map[string]any{"name": "anakin.v0.1.0"}
	if m, ok := x.(map[string]any); ok {
		b = m
	}
	name := str(b, "name")
	fb := fbc.Bundle{Package: "anakin", Name: name, Image: str(b, "image")}
	var props []map[string]any
	switch ps := b["properties"].(type) {
	case map[string]any:
		props = append(props, ps)
	case []any:
		for _, p := range ps {
			props = append(props, p.(map[string]any))
		}
	case nil:
		if _, prose := x.(string); prose {
			props = append(props, map[string]any{"olm.package": map[string]any{"packageName": "anakin", "version": "0.1.0"}})
		}
	}
	for _, pm := range props {
		for _, typ := range []string{property.TypePackage, property.TypeGVK} {
			if v, ok := pm[typ]; ok {
				fb.Properties = append(fb.Properties, prop(t, typ, v))
			}
		}
	}
	e := entry(b)
	return &fbc.Config{
		Packages: []fbc.Package{{Name: "anakin", DefaultChannel: "light"}},
		Channels: []fbc.Channel{{Package: "anakin", Name: "light", Entries: []fbc.ChannelEntry{e}}},
		Bundles:  []fbc.Bundle{fb},
	}
}

// fbcCase builds the raw FBC cases; those the scenario file gives in prose
// are restated here.
func fbcCase(t *testing.T, x any, id string) *fbc.Config {
	if _, prose := x.(string); prose {
		return fbcProse(t, strings.TrimPrefix(id, "validate-fbc-to-model/"))
	}
	m := x.(map[string]any)
	cfg := &fbc.Config{}
	list := func(k string) []map[string]any {
		l, _ := m[k].([]any)
		out := make([]map[string]any, len(l))
		for i, v := range l {
			out[i] = v.(map[string]any)
		}
		return out
	}
	for _, p := range list("packages") {
		cfg.Packages = append(cfg.Packages, fbc.Package{Name: str(p, "name"), DefaultChannel: str(p, "defaultChannel")})
	}
	for _, c := range list("channels") {
		ch := fbc.Channel{Package: str(c, "package"), Name: str(c, "name")}
		es, _ := c["entries"].([]any)
		for _, e := range es {
			ch.Entries = append(ch.Entries, entry(e.(map[string]any)))
		}
		cfg.Channels = append(cfg.Channels, ch)
	}
	for _, b := range list("bundles") {
		fb := fbc.Bundle{Package: str(b, "package"), Name: str(b, "name"), Image: "img"}
		if v, ok := b["image"]; ok {
			fb.Image = fmt.Sprint(v)
		}
		if v := str(b, "version"); v != "" {
			fb.Properties = append(fb.Properties, pkgProp(t, fb.Package, v, ""))
		}
		if ps, ok := b["properties"].([]any); ok {
			for _, p := range ps {
				for typ, v := range p.(map[string]any) {
					fb.Properties = append(fb.Properties, prop(t, typ, v))
				}
			}
		}
		if b["hasBundleData"] == true {
			fb.Properties = append(fb.Properties, prop(t, property.TypeBundleObject, map[string]string{"data": "e30="}))
		}
		cfg.Bundles = append(cfg.Bundles, fb)
	}
	return cfg
}

func fbcProse(t *testing.T, name string) *fbc.Config {
	valid := func() *fbc.Config {
		return &fbc.Config{
			Packages: []fbc.Package{{Name: "foo", DefaultChannel: "alpha"}},
			Channels: []fbc.Channel{{Package: "foo", Name: "alpha", Entries: []fbc.ChannelEntry{{Name: "foo.v0.1.0"}}}},
			Bundles:  []fbc.Bundle{{Package: "foo", Name: "foo.v0.1.0", Image: "img", Properties: []property.Property{pkgProp(t, "foo", "0.1.0", "")}}},
		}
	}
	dep := func(pkg string, entries ...fbc.DeprecationEntry) fbc.Deprecation {
		return fbc.Deprecation{Package: pkg, Entries: entries}
	}
	cfg := valid()
	switch name {
	case "Error/BundleInvalidVersion":
		cfg.Bundles[0].Properties = []property.Property{pkgProp(t, "foo", "0.1.0.1", "")}
	case "Error/BundleMissingVersion":
		cfg.Channels[0].Entries[0].Name = "foo.v"
		cfg.Bundles[0].Name = "foo.v"
		cfg.Bundles[0].Properties = []property.Property{pkgProp(t, "foo", "", "")}
	case "Error/Deprecation/OutOfBoundsBundle":
		cfg.Deprecations = append(cfg.Deprecations, dep("foo", fbc.DeprecationEntry{Schema: fbc.SchemaBundle, Name: "foo.v2.0.0", Message: "m"}))
	case "Error/Deprecation/OutOfBoundsPackage":
		cfg.Deprecations = append(cfg.Deprecations, dep("nyarl"))
	case "Error/Deprecation/MultiplePerPackage":
		cfg.Deprecations = append(cfg.Deprecations,
			dep("foo", fbc.DeprecationEntry{Schema: fbc.SchemaChannel, Name: "alpha", Message: "m"}),
			dep("foo", fbc.DeprecationEntry{Schema: fbc.SchemaBundle, Name: "foo.v0.1.0", Message: "m"}))
	case "Error/Deprecation/DuplicateRef":
		e := fbc.DeprecationEntry{Schema: fbc.SchemaBundle, Name: "foo.v0.1.0", Message: "m"}
		cfg.Deprecations = append(cfg.Deprecations, dep("foo", e, e))
	default:
		t.Fatal(errors.New("no restatement for prose case " + name))
	}
	return cfg
}
