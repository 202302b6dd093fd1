package catalog_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
)

// The documents below are written with a "# @mark" comment on the line
// where the object (or channel entry) starts, so a case names the position
// it expects by its mark.

func pkgDoc(name, defaultChannel, mark string) string {
	s := fmt.Sprintf("schema: olm.package # %s\nname: %q\n", mark, name)
	if defaultChannel != "" {
		s += fmt.Sprintf("defaultChannel: %s\n", defaultChannel)
	}
	return s
}

// chDoc writes a channel; each entry is a YAML flow mapping, optionally
// followed by its own "# @mark".
func chDoc(pkg, name, mark string, entries ...string) string {
	s := fmt.Sprintf("schema: olm.channel # %s\npackage: %s\nname: %q\n", mark, pkg, name)
	if len(entries) == 0 {
		return s + "entries: []\n"
	}
	s += "entries:\n"
	for _, e := range entries {
		s += "  - " + e + "\n"
	}
	return s
}

// bundleDoc writes a bundle with an olm.package property for version
// (none when version is "-") and any extra YAML lines.
func bundleDoc(pkg, name, version, image, mark string, extra ...string) string {
	s := fmt.Sprintf("schema: olm.bundle # %s\npackage: %s\nname: %s\nimage: %q\nproperties:\n", mark, pkg, name, image)
	if version != "-" {
		s += fmt.Sprintf("  - type: olm.package\n    value: {packageName: %s, version: %q}\n", pkg, version)
	}
	for _, x := range extra {
		s += x + "\n"
	}
	return s
}

func docs(ds ...string) string { return "---\n" + strings.Join(ds, "---\n") }

// foo is a valid one-package catalog the cases extend.
func foo(extra ...string) string {
	return docs(append([]string{
		pkgDoc("foo", "alpha", "@pkg"),
		chDoc("foo", "alpha", "@ch", "{name: foo.v0.1.0} # @e1"),
		bundleDoc("foo", "foo.v0.1.0", "0.1.0", "quay.io/foo/bundle:v0.1.0", "@b1"),
	}, extra...)...)
}

const file = "catalog.yaml"

func validate(t *testing.T, yaml string) catalog.Problems {
	t.Helper()
	cfg, err := fbc.Decode(file, []byte(yaml))
	if err != nil {
		t.Fatalf("decode: %v\n%s", err, yaml)
	}
	return catalog.New("test", cfg).Validate()
}

func lineOf(t *testing.T, yaml, mark string) int {
	t.Helper()
	for i, l := range strings.Split(yaml, "\n") {
		if strings.HasSuffix(l, "# "+mark) {
			return i + 1
		}
	}
	t.Fatalf("mark %s not in\n%s", mark, yaml)
	return 0
}

type ruleCase struct {
	name string
	yaml string
	// want is the expected problems: message and mark; none for a valid case.
	want []wantProblem
}

type wantProblem struct {
	msg, mark string
	// prefix compares only the start of the message (for texts of
	// encoding/json that olmops does not own).
	prefix bool
}

func runRules(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ps := validate(t, tc.yaml)
			if len(ps) != len(tc.want) {
				t.Fatalf("got %d problems, want %d:\n%v", len(ps), len(tc.want), ps)
			}
			for i, w := range tc.want {
				p := ps[i]
				ok := p.Message == w.msg || (w.prefix && strings.HasPrefix(p.Message, w.msg))
				if !ok {
					t.Errorf("problem %d message:\n got %s\nwant %s", i, p.Message, w.msg)
				}
				if want := (catalog.Pos{File: file, Line: lineOf(t, tc.yaml, w.mark)}); p.Pos != want {
					t.Errorf("problem %d (%s) at %s, want %s", i, p.Message, p.Pos, want)
				}
			}
		})
	}
}

func TestValidatePackages(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "valid", yaml: foo()},
		{name: "unknown schemas are kept", yaml: foo("schema: example.com/notes # @x\nname: n\n")},
		{name: "no name", yaml: foo(pkgDoc("", "alpha", "@p2")), want: []wantProblem{
			{msg: "config contains package with no name", mark: "@p2"}}},
		{name: "name with dots", yaml: docs(pkgDoc("foo.bar", "alpha", "@p"), chDoc("foo.bar", "alpha", "@c", "{name: b.v1.0.0}"), bundleDoc("foo.bar", "b.v1.0.0", "1.0.0", "img", "@b")), want: []wantProblem{
			{msg: `invalid package name "foo.bar": [must not contain dots]`, mark: "@p"}}},
		{name: "name not a label", yaml: docs(pkgDoc("Foo", "alpha", "@p"), chDoc("Foo", "alpha", "@c", "{name: b.v1.0.0}"), bundleDoc("Foo", "b.v1.0.0", "1.0.0", "img", "@b")), want: []wantProblem{
			{msg: `invalid package name "Foo": [a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]`, mark: "@p"}}},
		{name: "duplicate", yaml: foo(pkgDoc("foo", "alpha", "@p2")), want: []wantProblem{
			{msg: fmt.Sprintf(`duplicate package "foo" (first defined at %s:2)`, file), mark: "@p2"}}},
		{name: "no default channel", yaml: docs(pkgDoc("foo", "", "@pkg"), chDoc("foo", "alpha", "@ch", "{name: foo.v0.1.0}"), bundleDoc("foo", "foo.v0.1.0", "0.1.0", "img", "@b1")), want: []wantProblem{
			{msg: `invalid package "foo": default channel must be set`, mark: "@pkg"}}},
		{name: "default channel not found", yaml: docs(pkgDoc("foo", "beta", "@pkg"), chDoc("foo", "alpha", "@ch", "{name: foo.v0.1.0}"), bundleDoc("foo", "foo.v0.1.0", "0.1.0", "img", "@b1")), want: []wantProblem{
			{msg: `invalid package "foo": default channel "beta" not found in channels list`, mark: "@pkg"}}},
		{name: "no channels", yaml: docs(pkgDoc("foo", "alpha", "@pkg")), want: []wantProblem{
			{msg: `invalid package "foo": package must contain at least one channel`, mark: "@pkg"}}},
		{name: "duplicate versions", yaml: foo(
			bundleDoc("foo", "foo.v0.1.0-copy", "0.1.0", "img", "@b2"),
			chDoc("foo", "beta", "@c2", "{name: foo.v0.1.0-copy}")), want: []wantProblem{
			{msg: `invalid package "foo": duplicate versions found in bundles: [{0.1.0: [foo.v0.1.0, foo.v0.1.0-copy]}]`, mark: "@pkg"}}},
	})
}

func TestValidateChannels(t *testing.T) {
	twoBundles := func(entries ...string) string {
		return docs(pkgDoc("foo", "alpha", "@pkg"), chDoc("foo", "alpha", "@ch", entries...),
			bundleDoc("foo", "foo.v1", "1.0.0", "img", "@b1"), bundleDoc("foo", "foo.v2", "2.0.0", "img", "@b2"),
			bundleDoc("foo", "foo.v3", "3.0.0", "img", "@b3"))
	}
	runRules(t, []ruleCase{
		{name: "unknown package", yaml: foo(chDoc("bar", "alpha", "@c2", "{name: foo.v0.1.0}")), want: []wantProblem{
			{msg: `unknown package "bar" for channel "alpha"`, mark: "@c2"}}},
		{name: "no name", yaml: foo(chDoc("foo", "", "@c2", "{name: foo.v0.1.0}")), want: []wantProblem{
			{msg: `package "foo" contains channel with no name`, mark: "@c2"}}},
		{name: "duplicate", yaml: foo(chDoc("foo", "alpha", "@c2", "{name: foo.v0.1.0}")), want: []wantProblem{
			{msg: fmt.Sprintf(`package "foo" has duplicate channel "alpha" (first defined at %s:6)`, file), mark: "@c2"}}},
		{name: "duplicate entry", yaml: docs(pkgDoc("foo", "alpha", "@pkg"), chDoc("foo", "alpha", "@ch", "{name: foo.v0.1.0}", "{name: foo.v0.1.0} # @e2"), bundleDoc("foo", "foo.v0.1.0", "0.1.0", "img", "@b1")), want: []wantProblem{
			{msg: `invalid package "foo", channel "alpha": duplicate entry "foo.v0.1.0"`, mark: "@e2"}}},
		{name: "no entries", yaml: foo(chDoc("foo", "beta", "@c2")), want: []wantProblem{
			{msg: `invalid package "foo": invalid channel "beta": channel must contain at least one bundle`, mark: "@c2"}}},
		{name: "entries without bundles in every channel", yaml: foo(
			chDoc("foo", "beta", "@c2", "{name: foo.v0.2.0, replaces: foo.v0.1.0} # @e2", "{name: foo.v0.1.0}"),
			chDoc("foo", "gamma", "@c3", "{name: foo.v0.3.0} # @e3")), want: []wantProblem{
			{msg: `no olm.bundle blobs found in package "foo" for olm.channel entries [foo.v0.2.0 foo.v0.3.0]`, mark: "@e2"}}},
		{name: "entry with no name", yaml: foo(chDoc("foo", "beta", "@c2", "{replaces: foo.v0.1.0} # @e2")), want: []wantProblem{
			{msg: `invalid package "foo": invalid channel "beta": invalid bundle "": name must be set`, mark: "@e2"},
			{msg: `no olm.bundle blobs found in package "foo" for olm.channel entries []`, mark: "@e2"}}},
		{name: "replaces chain", yaml: twoBundles("{name: foo.v1}", "{name: foo.v2, replaces: foo.v1}", "{name: foo.v3, replaces: foo.v2}")},
		{name: "replaces a bundle that exists nowhere", yaml: twoBundles("{name: foo.v1, replaces: foo.v0}", "{name: foo.v2, replaces: foo.v1}", "{name: foo.v3, replaces: foo.v2, skips: [foo.v9]}")},
		{name: "skips only", yaml: twoBundles("{name: foo.v1}", "{name: foo.v2, skips: [foo.v1]}", "{name: foo.v3, skips: [foo.v2, foo.v1]}")},
		{name: "multiple heads", yaml: twoBundles("{name: foo.v1}", "{name: foo.v3, replaces: foo.v1}", "{name: foo.v2, replaces: foo.v1}"), want: []wantProblem{
			{msg: `invalid package "foo": invalid channel "alpha": multiple channel heads found in graph: foo.v2, foo.v3`, mark: "@ch"}}},
		{name: "skipRange does not make a head", yaml: twoBundles("{name: foo.v1}", "{name: foo.v2, replaces: foo.v1}", "{name: foo.v3, skipRange: '<3.0.0'}"), want: []wantProblem{
			{msg: `invalid package "foo": invalid channel "alpha": multiple channel heads found in graph: foo.v2, foo.v3`, mark: "@ch"}}},
		{name: "no head", yaml: twoBundles("{name: foo.v1, replaces: foo.v3}", "{name: foo.v2, replaces: foo.v1}", "{name: foo.v3, replaces: foo.v2}"), want: []wantProblem{
			{msg: `invalid package "foo": invalid channel "alpha": no channel head found in graph`, mark: "@ch"}}},
		{name: "cycle", yaml: twoBundles("{name: foo.v1, replaces: foo.v2}", "{name: foo.v2, replaces: foo.v1}", "{name: foo.v3, replaces: foo.v2}"), want: []wantProblem{
			{msg: `invalid package "foo": invalid channel "alpha": detected cycle in replaces chain of upgrade graph: foo.v2 -> foo.v1 -> foo.v2`, mark: "@ch"}}},
		{name: "stranded", yaml: twoBundles("{name: foo.v1}", "{name: foo.v2, replaces: foo.v1}", "{name: foo.v3, skips: [foo.v2]}"), want: []wantProblem{
			{msg: `invalid package "foo": invalid channel "alpha": channel contains one or more stranded bundles: foo.v1`, mark: "@ch"}}},
		{name: "replaced and skipped ends the chain", yaml: twoBundles("{name: foo.v1}", "{name: foo.v2, replaces: foo.v1}", "{name: foo.v3, replaces: foo.v2, skips: [foo.v2]}"), want: []wantProblem{
			{msg: `invalid package "foo": invalid channel "alpha": channel contains one or more stranded bundles: foo.v1`, mark: "@ch"}}},
		{name: "empty skip", yaml: twoBundles("{name: foo.v1}", "{name: foo.v2, replaces: foo.v1}", "{name: foo.v3, replaces: foo.v2, skips: ['']} # @e3"), want: []wantProblem{
			{msg: `invalid package "foo": invalid channel "alpha": invalid bundle "foo.v3": skip[0] is empty`, mark: "@e3"}}},
		{name: "skipRange", yaml: twoBundles("{name: foo.v1}", "{name: foo.v2, replaces: foo.v1, skipRange: '>=1.0.0 <2.0.0'}", "{name: foo.v3, replaces: foo.v2, skipRange: '1.x || >= 2.0.0 < 3.0.0'}")},
		{name: "skipRange with a v", yaml: twoBundles("{name: foo.v1}", "{name: foo.v2, replaces: foo.v1}", "{name: foo.v3, replaces: foo.v2, skipRange: '>v0.1.0'} # @e3"), want: []wantProblem{
			{msg: `invalid package "foo": invalid channel "alpha": invalid bundle "foo.v3": invalid skipRange ">v0.1.0": Could not parse Range ">v0.1.0": Could not parse comparator ">v" in ">v0.1.0"`, mark: "@e3"}}},
		{name: "skipRange with a leading zero", yaml: twoBundles("{name: foo.v1}", "{name: foo.v2, replaces: foo.v1}", "{name: foo.v3, replaces: foo.v2, skipRange: '>1.00.1'} # @e3"), want: []wantProblem{
			{msg: `invalid package "foo": invalid channel "alpha": invalid bundle "foo.v3": invalid skipRange ">1.00.1": Could not parse Range ">1.00.1": Could not parse version "1.00.1" in ">1.00.1": Minor number must not contain leading zeroes "00"`, mark: "@e3"}}},
	})
}

func TestValidateBundles(t *testing.T) {
	objectProp := "  - type: olm.bundle.object\n    value: {data: e30=}"
	runRules(t, []ruleCase{
		{name: "unknown package", yaml: foo(bundleDoc("bar", "bar.v1.0.0", "1.0.0", "img", "@b2")), want: []wantProblem{
			{msg: `unknown package "bar" for bundle "bar.v1.0.0"`, mark: "@b2"}}},
		{name: "no package", yaml: foo("schema: olm.bundle # @b2\nname: x\n"), want: []wantProblem{
			{msg: `package name must be set for bundle "x"`, mark: "@b2"}}},
		{name: "duplicate", yaml: foo(bundleDoc("foo", "foo.v0.1.0", "0.1.0", "img", "@b2")), want: []wantProblem{
			{msg: fmt.Sprintf(`package "foo" has duplicate bundle "foo.v0.1.0" (first defined at %s:12)`, file), mark: "@b2"}}},
		{name: "in no channel", yaml: foo(bundleDoc("foo", "foo.v0.2.0", "0.2.0", "img", "@b2")), want: []wantProblem{
			{msg: `package "foo", bundle "foo.v0.2.0" not found in any channel entries`, mark: "@b2"}}},
		{name: "no olm.package", yaml: docs(pkgDoc("foo", "alpha", "@pkg"), chDoc("foo", "alpha", "@ch", "{name: foo.v0.1.0}"), bundleDoc("foo", "foo.v0.1.0", "-", "img", "@b1")), want: []wantProblem{
			{msg: `package "foo" bundle "foo.v0.1.0" must have exactly 1 "olm.package" property, found 0`, mark: "@b1"}}},
		{name: "two olm.package", yaml: docs(pkgDoc("foo", "alpha", "@pkg"), chDoc("foo", "alpha", "@ch", "{name: foo.v0.1.0}"), bundleDoc("foo", "foo.v0.1.0", "0.1.0", "img", "@b1", "  - type: olm.package\n    value: {packageName: foo, version: 0.1.0}")), want: []wantProblem{
			{msg: `package "foo" bundle "foo.v0.1.0" must have exactly 1 "olm.package" property, found 2`, mark: "@b1"}}},
		{name: "olm.package of another package", yaml: docs(pkgDoc("foo", "alpha", "@pkg"), chDoc("foo", "alpha", "@ch", "{name: foo.v0.1.0}"), strings.Replace(bundleDoc("foo", "foo.v0.1.0", "0.1.0", "img", "@b1"), "packageName: foo", "packageName: foooperator", 1)), want: []wantProblem{
			{msg: `package "foo" does not match "olm.package" property "foooperator"`, mark: "@b1"}}},
		{name: "four-part version", yaml: docs(pkgDoc("foo", "alpha", "@pkg"), chDoc("foo", "alpha", "@ch", "{name: foo.v0.1.0}"), bundleDoc("foo", "foo.v0.1.0", "0.1.0.1", "img", "@b1")), want: []wantProblem{
			{msg: `error parsing bundle "foo.v0.1.0" version "0.1.0.1": Invalid character(s) found in patch number "0.1"`, mark: "@b1"}}},
		{name: "empty version", yaml: docs(pkgDoc("foo", "alpha", "@pkg"), chDoc("foo", "alpha", "@ch", "{name: foo.v}"), bundleDoc("foo", "foo.v", "", "img", "@b1")), want: []wantProblem{
			{msg: `error parsing bundle "foo.v" version "": Version string empty`, mark: "@b1"}}},
		{name: "version with v", yaml: docs(pkgDoc("foo", "alpha", "@pkg"), chDoc("foo", "alpha", "@ch", "{name: foo.v1}"), bundleDoc("foo", "foo.v1", "v1.0.0", "img", "@b1")), want: []wantProblem{
			{msg: `error parsing bundle "foo.v1" version "v1.0.0": Invalid character(s) found in major number "v1"`, mark: "@b1"}}},
		{name: "property that does not parse", yaml: foo(
			chDoc("foo", "beta", "@c2", "{name: foo.v0.2.0}"),
			bundleDoc("foo", "foo.v0.2.0", "0.2.0", "img", "@b2", "  - type: olm.gvk # @prop\n    value: not-a-gvk")), want: []wantProblem{
			{msg: `parse properties for bundle "foo.v0.2.0": parse property[1] of type "olm.gvk": json: cannot unmarshal`, mark: "@prop", prefix: true}}},
		{name: "no image but bundle objects", yaml: docs(pkgDoc("foo", "alpha", "@pkg"), chDoc("foo", "alpha", "@ch", "{name: foo.v0.1.0}"), bundleDoc("foo", "foo.v0.1.0", "0.1.0", "", "@b1", objectProp))},
		{name: "no image", yaml: docs(pkgDoc("foo", "alpha", "@pkg"), chDoc("foo", "alpha", "@ch", "{name: foo.v0.1.0}"), bundleDoc("foo", "foo.v0.1.0", "0.1.0", "", "@b1")), want: []wantProblem{
			{msg: `invalid package "foo": invalid bundle "foo.v0.1.0": bundle image must be set`, mark: "@b1"}}},
		{name: "image by digest", yaml: docs(pkgDoc("foo", "alpha", "@pkg"), chDoc("foo", "alpha", "@ch", "{name: foo.v0.1.0}"), bundleDoc("foo", "foo.v0.1.0", "0.1.0", "registry.redhat.io/ns/b@sha256:"+strings.Repeat("ab", 32), "@b1"))},
		{name: "image with upper case", yaml: docs(pkgDoc("foo", "alpha", "@pkg"), chDoc("foo", "alpha", "@ch", "{name: foo.v0.1.0}"), bundleDoc("foo", "foo.v0.1.0", "0.1.0", "quay.io/Foo/b:v1", "@b1")), want: []wantProblem{
			{msg: `invalid package "foo": invalid bundle "foo.v0.1.0": image: invalid image pull spec "quay.io/Foo/b:v1": invalid reference format: repository name must be lowercase`, mark: "@b1"}}},
		{name: "related image with a short digest", yaml: docs(pkgDoc("foo", "alpha", "@pkg"), chDoc("foo", "alpha", "@ch", "{name: foo.v0.1.0}"), bundleDoc("foo", "foo.v0.1.0", "0.1.0", "img", "@b1", "relatedImages:\n  - {name: op, image: ''}\n  - {name: op, image: 'quay.io/a/b@sha256:"+strings.Repeat("ab", 20)+"'}")), want: []wantProblem{
			{msg: `invalid package "foo": invalid bundle "foo.v0.1.0": relatedImages[1].image: invalid image pull spec "quay.io/a/b@sha256:` + strings.Repeat("ab", 20) + `": invalid checksum digest length`, mark: "@b1"}}},
		{name: "release", yaml: docs(pkgDoc("foo", "alpha", "@pkg"), chDoc("foo", "alpha", "@ch", "{name: foo-v0.0.1-alpha1}"), bundleDoc("foo", "foo-v0.0.1-alpha1", "-", "img", "@b1", "  - type: olm.package\n    value: {packageName: foo, version: 0.0.1, release: alpha1}"))},
		{name: "release and a name not normalized", yaml: docs(pkgDoc("foo", "alpha", "@pkg"), chDoc("foo", "alpha", "@ch", "{name: foo.v0.0.1.alpha1}"), bundleDoc("foo", "foo.v0.0.1.alpha1", "-", "img", "@b1", "  - type: olm.package\n    value: {packageName: foo, version: 0.0.1, release: alpha1}")), want: []wantProblem{
			{msg: `invalid package "foo": invalid bundle "foo.v0.0.1.alpha1": name "foo.v0.0.1.alpha1" does not match normalized name "foo-v0.0.1-alpha1"`, mark: "@b1"}}},
		{name: "same version, other releases", yaml: docs(pkgDoc("foo", "alpha", "@pkg"), chDoc("foo", "alpha", "@ch", "{name: foo-v0.0.1-1}", "{name: foo-v0.0.1-2, replaces: foo-v0.0.1-1}"),
			bundleDoc("foo", "foo-v0.0.1-1", "-", "img", "@b1", "  - type: olm.package\n    value: {packageName: foo, version: 0.0.1, release: '1'}"),
			bundleDoc("foo", "foo-v0.0.1-2", "-", "img", "@b2", "  - type: olm.package\n    value: {packageName: foo, version: 0.0.1, release: '2'}"))},
	})
}

func TestValidateDeprecations(t *testing.T) {
	dep := func(pkg string, entries ...string) string {
		s := fmt.Sprintf("schema: olm.deprecations # @d\npackage: %s\nentries:\n", pkg)
		for _, e := range entries {
			s += "  - " + e + "\n"
		}
		return s
	}
	runRules(t, []ruleCase{
		{name: "valid", yaml: foo(dep("foo",
			"{reference: {schema: olm.package}, message: 'use bar'}",
			"{reference: {schema: olm.channel, name: alpha}, message: 'use beta'}",
			"{reference: {schema: olm.bundle, name: foo.v0.1.0}, message: 'broken'}"))},
		{name: "no package", yaml: foo(dep("''")), want: []wantProblem{
			{msg: "package name must be set for deprecation item 0", mark: "@d"}}},
		{name: "unknown package", yaml: foo(dep("nyarl")), want: []wantProblem{
			{msg: `cannot apply deprecations to an unknown package "nyarl"`, mark: "@d"}}},
		{name: "two for a package", yaml: foo(dep("foo"), strings.Replace(dep("foo"), "@d", "@d2", 1)), want: []wantProblem{
			{msg: fmt.Sprintf(`expected a maximum of one deprecation per package: "foo" (first at %s:20)`, file), mark: "@d2"}}},
		{name: "no schema", yaml: foo(dep("foo", "{reference: {name: alpha}, message: m} # @e")), want: []wantProblem{
			{msg: `schema must be set for deprecation entry [0] for package "foo"`, mark: "@e"}}},
		{name: "duplicate entry", yaml: foo(dep("foo", "{reference: {schema: olm.bundle, name: foo.v0.1.0}, message: m}", "{reference: {schema: olm.bundle, name: foo.v0.1.0}, message: m} # @e")), want: []wantProblem{
			{msg: `duplicate deprecation entry declcfg.PackageScopedReference{Schema:"olm.bundle", Name:"foo.v0.1.0"} for package "foo"`, mark: "@e"}}},
		{name: "unknown bundle", yaml: foo(dep("foo", "{reference: {schema: olm.bundle, name: foo.v2.0.0}, message: m} # @e")), want: []wantProblem{
			{msg: `cannot deprecate bundle "foo.v2.0.0" for package "foo": bundle not found`, mark: "@e"}}},
		{name: "unknown channel", yaml: foo(dep("foo", "{reference: {schema: olm.channel, name: beta}, message: m} # @e")), want: []wantProblem{
			{msg: `cannot deprecate channel "beta" for package "foo": channel not found`, mark: "@e"}}},
		{name: "package entry with a name", yaml: foo(dep("foo", "{reference: {schema: olm.package, name: foo}, message: m} # @e")), want: []wantProblem{
			{msg: `package name must be empty for deprecated package "foo" (specified "foo")`, mark: "@e"}}},
		{name: "unknown schema", yaml: foo(dep("foo", "{reference: {schema: badschema, name: foo.v2.0.0}, message: m} # @e")), want: []wantProblem{
			{msg: `cannot deprecate object declcfg.PackageScopedReference{Schema:"badschema", Name:"foo.v2.0.0"} referenced by entry 0 for package "foo": object schema unknown`, mark: "@e"}}},
		{name: "no message", yaml: foo(dep("foo", "{reference: {schema: olm.channel, name: alpha}} # @e")), want: []wantProblem{
			{msg: `invalid package "foo": invalid channel "alpha": invalid deprecation: message must be set`, mark: "@e"}}},
	})
}

// TestValidateCollectsEverything checks that one catalog with several
// problems reports all of them, in file order.
func TestValidateCollectsEverything(t *testing.T) {
	yaml := docs(pkgDoc("foo", "", "@pkg"),
		chDoc("foo", "alpha", "@ch", "{name: foo.v1}", "{name: foo.v2, skipRange: '>v1'} # @e2"),
		bundleDoc("foo", "foo.v1", "1.0", "img", "@b1"),
		bundleDoc("bar", "bar.v1", "1.0.0", "img", "@b2"))
	ps := validate(t, yaml)
	var marks []string
	for _, p := range ps {
		marks = append(marks, fmt.Sprint(p.Pos.Line))
	}
	want := []int{lineOf(t, yaml, "@pkg"), lineOf(t, yaml, "@ch"), lineOf(t, yaml, "@e2"), lineOf(t, yaml, "@e2"), lineOf(t, yaml, "@b1"), lineOf(t, yaml, "@b2")}
	if fmt.Sprint(want) != "["+strings.Join(marks, " ")+"]" {
		t.Errorf("lines %v, want %v:\n%v", marks, want, ps)
	}
}
