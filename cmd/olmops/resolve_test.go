package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	operatorhub   = examplesDir + "/catalogs/operatorhub"
	internalCat   = examplesDir + "/catalogs/internal"
	labCatalog    = "testdata/resolve/lab"
	resolveSubs   = "testdata/resolve/subscriptions"
	prodEastSubs  = examplesDir + "/clusters/prod-east/subscriptions"
	invalidImgMsg = `invalid image pull spec "Not A Valid Image"`
)

// resolveResult decodes the JSON of one resolution, with or without the
// subscription name and dependencies.
type resolveResult struct {
	Subscription string   `json:"subscription"`
	Package      string   `json:"package"`
	Installed    string   `json:"installed"`
	Bundle       string   `json:"bundle"`
	Version      string   `json:"version"`
	Channel      string   `json:"channel"`
	Catalog      string   `json:"catalog"`
	Edge         string   `json:"edge"`
	Path         []string `json:"path"`
	Warnings     []string `json:"warnings"`
	Dependencies []struct {
		Name       string   `json:"name"`
		Package    string   `json:"package"`
		Bundle     string   `json:"bundle"`
		Channel    string   `json:"channel"`
		Catalog    string   `json:"catalog"`
		RequiredBy []string `json:"requiredBy"`
	} `json:"dependencies"`
	Error       string   `json:"error"`
	Explanation []string `json:"explanation"`
}

// resolveJSON runs olmops resolve -o json, checks the exit code and decodes
// standard output strictly into v.
func resolveJSON(t *testing.T, want int, v any, args ...string) {
	t.Helper()
	args = append([]string{"resolve", "-o", "json"}, args...)
	out, stderr, code := runCLI(t, args...)
	if code != want {
		t.Fatalf("olmops %v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", args, code, want, out, stderr)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("olmops %v: decoding %v\n%s", args, err, out)
	}
}

func TestResolvePackage(t *testing.T) {
	deprecated090 := "BundleDeprecated etcdoperator.v0.9.0: etcdoperator.v0.9.0 can lose data when a member is replaced; upgrade to 0.9.2 or later."
	tests := []struct {
		name     string
		args     []string
		want     resolveResult // only the fields set are compared, Path and Warnings always
		wantDeps []string      // dependency names
	}{
		{"fresh install, default channel head",
			[]string{"--catalog", operatorhub, "--package", "etcd", "--channel", "stable"},
			resolveResult{Bundle: "etcdoperator.v0.9.4", Version: "0.9.4", Channel: "stable", Catalog: "operatorhub", Edge: "install",
				Path: []string{"etcdoperator.v0.9.4"}, Warnings: []string{}}, nil},
		{"fresh install, any channel",
			[]string{"--catalog", operatorhub, "--package", "etcd"},
			resolveResult{Bundle: "etcdoperator.v0.10.0", Channel: "fast", Edge: "install",
				Path: []string{"etcdoperator.v0.10.0"}, Warnings: []string{}}, nil},
		{"semver upgrade via skips",
			[]string{"--catalog", operatorhub, "--package", "etcd", "--channel", "fast", "--installed", "etcdoperator.v0.9.2"},
			resolveResult{Installed: "etcdoperator.v0.9.2", Bundle: "etcdoperator.v0.10.0", Channel: "fast", Edge: "skips",
				Path: []string{"etcdoperator.v0.10.0"}, Warnings: []string{}}, nil},
		{"classic upgrade from a deprecated bundle",
			[]string{"--catalog", operatorhub, "--package", "etcd", "--channel", "stable", "--installed", "etcdoperator.v0.9.0", "--policy", "Classic"},
			resolveResult{Bundle: "etcdoperator.v0.9.4", Channel: "stable", Edge: "skipRange",
				Path: []string{"etcdoperator.v0.9.4"}, Warnings: []string{deprecated090}}, nil},
		{"installed bundle no catalog lists, with @VERSION",
			[]string{"--catalog", operatorhub, "--package", "etcd", "--channel", "stable", "--installed", "etcdoperator.v0.9.1@0.9.1"},
			resolveResult{Installed: "etcdoperator.v0.9.1", Bundle: "etcdoperator.v0.9.4", Edge: "skipRange",
				Path: []string{"etcdoperator.v0.9.4"}, Warnings: []string{}}, nil},
		{"semver takes the highest version with an edge",
			[]string{"--catalog", labCatalog, "--package", "app", "--installed", "app.v1.0.0"},
			resolveResult{Bundle: "app.v2.0.0", Version: "2.0.0", Catalog: "lab", Edge: "replaces",
				Path: []string{"app.v2.0.0"}, Warnings: []string{invalidImgMsg}}, nil},
		{"classic takes the edge closest to the head",
			[]string{"--catalog", labCatalog, "--package", "app", "--installed", "app.v1.0.0", "--policy", "Classic"},
			resolveResult{Bundle: "app.v1.5.0", Version: "1.5.0", Edge: "skips",
				Path: []string{"app.v1.5.0"}, Warnings: []string{invalidImgMsg}}, nil},
		{"classic path over several resolutions",
			[]string{"--catalog", labCatalog, "--package", "chain", "--installed", "chain.v1.0.0", "--policy", "Classic"},
			resolveResult{Bundle: "chain.v1.1.0", Edge: "replaces",
				Path: []string{"chain.v1.1.0", "chain.v1.2.0"}, Warnings: []string{}}, nil},
		{"semver path is one hop",
			[]string{"--catalog", labCatalog, "--package", "chain", "--installed", "chain.v1.0.0"},
			resolveResult{Bundle: "chain.v1.1.0", Edge: "replaces",
				Path: []string{"chain.v1.1.0"}, Warnings: []string{}}, nil},
		{"dependency proposed",
			[]string{"--catalog", operatorhub, "--catalog", internalCat + ":10", "--package", "acme-db", "--channel", "stable"},
			resolveResult{Bundle: "acme-db.v1.1.0", Catalog: "internal", Edge: "install",
				Path: []string{"acme-db.v1.1.0"}, Warnings: []string{}}, []string{"etcd-stable-operatorhub"}},
		{"version range",
			[]string{"--catalog", operatorhub, "--package", "etcd", "--version", "<0.10.0"},
			resolveResult{Bundle: "etcdoperator.v0.9.4", Edge: "install",
				Path: []string{"etcdoperator.v0.9.4"}, Warnings: []string{}}, nil},
		{"self-certified downgrade",
			[]string{"--catalog", operatorhub, "--package", "etcd", "--channel", "stable", "--installed", "etcdoperator.v0.9.4", "--version", "0.9.2", "--self-certified"},
			resolveResult{Bundle: "etcdoperator.v0.9.2", Edge: "selfCertified",
				Path: []string{"etcdoperator.v0.9.2"}, Warnings: []string{}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got resolveResult
			resolveJSON(t, exitOK, &got, tt.args...)
			w := tt.want
			check := func(field, got, want string) {
				if want != "" && got != want {
					t.Errorf("%s = %q, want %q", field, got, want)
				}
			}
			check("package", got.Package, tt.args[slices.Index(tt.args, "--package")+1])
			check("installed", got.Installed, w.Installed)
			check("bundle", got.Bundle, w.Bundle)
			check("version", got.Version, w.Version)
			check("channel", got.Channel, w.Channel)
			check("catalog", got.Catalog, w.Catalog)
			check("edge", got.Edge, w.Edge)
			if !slices.Equal(got.Path, w.Path) {
				t.Errorf("path = %q, want %q", got.Path, w.Path)
			}
			if len(got.Warnings) != len(w.Warnings) {
				t.Errorf("warnings = %q, want %q", got.Warnings, w.Warnings)
			}
			for i := range min(len(got.Warnings), len(w.Warnings)) {
				if !strings.Contains(got.Warnings[i], w.Warnings[i]) {
					t.Errorf("warning %d = %q, want it to contain %q", i, got.Warnings[i], w.Warnings[i])
				}
			}
			var deps []string
			for _, d := range got.Dependencies {
				deps = append(deps, d.Name)
			}
			if !slices.Equal(deps, tt.wantDeps) {
				t.Errorf("dependencies = %q, want %q", deps, tt.wantDeps)
			}
		})
	}
}

func TestResolveDependencyFields(t *testing.T) {
	var got resolveResult
	resolveJSON(t, exitOK, &got, "--catalog", operatorhub, "--catalog", internalCat, "--package", "acme-db", "--channel", "candidate")
	if len(got.Dependencies) != 1 {
		t.Fatalf("dependencies = %+v, want one", got.Dependencies)
	}
	d := got.Dependencies[0]
	if d.Package != "etcd" || d.Bundle != "etcdoperator.v0.9.4" || d.Channel != "stable" || d.Catalog != "operatorhub" ||
		!slices.Equal(d.RequiredBy, []string{"acme-db.v1.2.0"}) {
		t.Errorf("dependency = %+v", d)
	}
	out, _, code := runCLI(t, "resolve", "--catalog", operatorhub, "--catalog", internalCat, "--package", "acme-db", "--channel", "candidate")
	want := "acme-db: install acme-db.v1.2.0 (candidate, internal)\n" +
		"  requires: etcd etcdoperator.v0.9.4 (stable, operatorhub) for acme-db.v1.2.0 (proposed subscription etcd-stable-operatorhub)\n"
	if code != exitOK || out != want {
		t.Errorf("text: exit %d, output:\n%s\nwant:\n%s", code, out, want)
	}
}

func TestResolveUnsatisfiable(t *testing.T) {
	args := []string{"--catalog", internalCat, "--package", "acme-db"}
	var got resolveResult
	resolveJSON(t, exitFindings, &got, args...)
	if got.Error == "" || len(got.Explanation) < 2 || got.Bundle != "" {
		t.Fatalf("got %+v, want an error with an explanation", got)
	}
	if !slices.ContainsFunc(got.Explanation, func(s string) bool { return strings.Contains(s, "kind: EtcdCluster") }) {
		t.Errorf("explanation %q does not name the missing EtcdCluster provider", got.Explanation)
	}

	out, _, code := runCLI(t, append([]string{"resolve"}, args...)...)
	if code != exitFindings || !strings.HasPrefix(out, "error: constraints not satisfiable\n  - subscription acme-db exists\n") {
		t.Errorf("text: exit %d, output:\n%s", code, out)
	}

	// An installed bundle that no catalog has, without @VERSION.
	resolveJSON(t, exitFindings, &got, "--catalog", operatorhub, "--package", "etcd", "--installed", "etcdoperator.v0.9.1")
	if len(got.Explanation) != 1 || got.Error != got.Explanation[0] || !strings.Contains(got.Error, "etcdoperator.v0.9.1") {
		t.Errorf("got %+v, want the missing installed bundle explained", got)
	}
}

func TestResolveText(t *testing.T) {
	out, _, code := runCLI(t, "resolve", "--catalog", operatorhub, "--package", "etcd",
		"--installed", "etcdoperator.v0.9.0", "--policy", "Classic", "--channel", "stable")
	want := `etcd: etcdoperator.v0.9.0 → etcdoperator.v0.9.4 (stable, operatorhub) via skipRange ">=0.9.0 <0.9.4"
  warning: BundleDeprecated etcdoperator.v0.9.0: etcdoperator.v0.9.0 can lose data when a member is replaced; upgrade to 0.9.2 or later.
`
	if code != exitOK || out != want {
		t.Errorf("exit %d, output:\n%s\nwant:\n%s", code, out, want)
	}
	out, _, code = runCLI(t, "resolve", "--catalog", labCatalog, "--package", "chain", "--installed", "chain.v1.0.0", "--policy", "Classic")
	want = "chain: chain.v1.0.0 → chain.v1.1.0 (stable, lab) via replaces\n  path: chain.v1.0.0 → chain.v1.1.0 → chain.v1.2.0\n"
	if code != exitOK || out != want {
		t.Errorf("exit %d, output:\n%s\nwant:\n%s", code, out, want)
	}
	out, _, code = runCLI(t, "resolve", "--catalog", labCatalog, "--package", "app", "--installed", "app.v1.0.0", "--policy", "Classic")
	if code != exitOK || !strings.HasPrefix(out, "app: app.v1.0.0 → app.v1.5.0 (stable, lab) via skips\n  warning: catalog lab: ") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
}

// namespacesResult decodes the JSON of the --subscriptions form.
type namespacesResult struct {
	Namespaces []struct {
		Namespace    string          `json:"namespace"`
		Error        string          `json:"error"`
		Explanation  []string        `json:"explanation"`
		Results      []resolveResult `json:"results"`
		Dependencies []struct {
			Name       string   `json:"name"`
			Package    string   `json:"package"`
			Bundle     string   `json:"bundle"`
			Channel    string   `json:"channel"`
			Catalog    string   `json:"catalog"`
			RequiredBy []string `json:"requiredBy"`
		} `json:"dependencies"`
		Findings []string `json:"findings"`
	} `json:"namespaces"`
}

func TestResolveSubscriptionsExamples(t *testing.T) {
	files, err := filepath.Glob(prodEastSubs + "/*.yaml")
	if err != nil || len(files) != 2 {
		t.Fatalf("glob: %v %v", files, err)
	}
	for _, policy := range []string{"Semver", "Classic"} {
		t.Run(policy, func(t *testing.T) {
			// As the shell passes a glob: one flag value, then arguments.
			args := append([]string{"--catalog", operatorhub, "--catalog", internalCat, "--policy", policy, "--subscriptions"}, files...)
			var got namespacesResult
			resolveJSON(t, exitOK, &got, args...)
			if len(got.Namespaces) != 1 || got.Namespaces[0].Namespace != "etcd-system" || len(got.Namespaces[0].Results) != 2 {
				t.Fatalf("got %+v, want namespace etcd-system with two results", got)
			}
			ns := got.Namespaces[0]
			etcd := "etcdoperator.v0.9.2" // startingCSV is honoured under either policy
			wantSubs := map[string]string{"acme-db": "acme-db.v1.1.0", "etcd": etcd}
			for _, r := range ns.Results {
				if wantSubs[r.Subscription] != r.Bundle || r.Edge != "install" || r.Channel != "stable" {
					t.Errorf("result %+v, want %s to install %s from stable", r, r.Subscription, wantSubs[r.Subscription])
				}
			}
			if len(ns.Dependencies) != 0 || ns.Error != "" {
				t.Errorf("namespace %+v: the etcd subscription satisfies acme-db, nothing else expected", ns)
			}
		})
	}
}

func TestResolveSubscriptionsMixed(t *testing.T) {
	args := []string{"--catalog", labCatalog, "--subscriptions", resolveSubs + "/mixed"}
	var got namespacesResult
	resolveJSON(t, exitFindings, &got, args...)
	var names []string
	for _, ns := range got.Namespaces {
		names = append(names, ns.Namespace)
	}
	if !slices.Equal(names, []string{"apps", "apps-v1", "broken"}) {
		t.Fatalf("namespaces = %q", names)
	}
	classic, v1, broken := got.Namespaces[0], got.Namespaces[1], got.Namespaces[2]
	if len(classic.Results) != 1 || classic.Results[0].Bundle != "app.v1.5.0" || classic.Results[0].Installed != "app.v1.0.0" {
		t.Errorf("Subscription (Classic by annotation): %+v, want app.v1.0.0 → app.v1.5.0", classic)
	}
	if len(v1.Results) != 1 || v1.Results[0].Bundle != "app.v2.0.0" || v1.Results[0].Subscription != "app" {
		t.Errorf("ClusterExtension (Semver): %+v, want app.v1.0.0 → app.v2.0.0", v1)
	}
	if broken.Error == "" || len(broken.Explanation) == 0 || len(broken.Results) != 0 {
		t.Errorf("namespace broken: %+v, want an error and its explanation", broken)
	}

	// --policy Classic is a default; the annotation still wins, and the
	// ClusterExtension follows the default.
	resolveJSON(t, exitFindings, &got, append(args, "--policy", "Classic")...)
	if b := got.Namespaces[1].Results[0].Bundle; b != "app.v1.5.0" {
		t.Errorf("ClusterExtension with --policy Classic: %s, want app.v1.5.0", b)
	}

	out, _, code := runCLI(t, append([]string{"resolve"}, args...)...)
	for _, want := range []string{
		"namespace apps:\n  app: app.v1.0.0 → app.v1.5.0 (stable, lab) via skips\n",
		"namespace broken:\n  error: ",
		"\n    - subscription nope exists\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	if code != exitFindings {
		t.Errorf("text: exit %d, want %d", code, exitFindings)
	}
}

func TestResolveInvalidSubscriptions(t *testing.T) {
	bad := resolveSubs + "/bad/invalid.yaml"
	out, stderr, code := runCLI(t, "resolve", "--catalog", labCatalog, "--subscriptions", bad)
	if code != exitFindings || out != "" {
		t.Fatalf("exit %d, stdout %q; want %d and nothing", code, out, exitFindings)
	}
	for _, want := range []string{bad + `:8: unknown field "chanel"`, bad + ":10: "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	undecodable := writeCatalog(t, map[string]string{"catalog.yaml": "---\nschema: olm.package\nname: bar\n  defaultChannel: [\n"})
	tests := []struct {
		name   string
		args   []string
		want   int
		stderr string
	}{
		{"no catalog", []string{"--package", "etcd"}, exitError, "--catalog"},
		{"neither form", []string{"--catalog", operatorhub}, exitError, "--package"},
		{"both forms", []string{"--catalog", operatorhub, "--package", "etcd", "--subscriptions", prodEastSubs}, exitError, "--package"},
		{"stray argument", []string{"--catalog", operatorhub, "--package", "etcd", "extra"}, exitError, "unexpected arguments"},
		{"package flags with subscriptions", []string{"--catalog", operatorhub, "--subscriptions", prodEastSubs, "--channel", "x"}, exitError, "--channel"},
		{"bad output", []string{"--catalog", operatorhub, "--package", "etcd", "-o", "xml"}, exitError, "--output"},
		{"bad policy", []string{"--catalog", operatorhub, "--package", "etcd", "--policy", "semver"}, exitError, "--policy"},
		{"invalid version range", []string{"--catalog", operatorhub, "--package", "etcd", "--version", ">=1.0 <<2"}, exitError, "invalid --version"},
		{"malformed priority", []string{"--catalog", operatorhub + ":high", "--package", "etcd"}, exitError, `priority "high"`},
		{"empty priority", []string{"--catalog", operatorhub + ":", "--package", "etcd"}, exitError, "priority"},
		{"duplicate catalog name", []string{"--catalog", operatorhub, "--catalog", operatorhub + ":3", "--package", "etcd"}, exitError, "both named"},
		{"missing catalog", []string{"--catalog", "testdata/does-not-exist", "--package", "etcd"}, exitError, "does-not-exist"},
		{"undecodable catalog", []string{"--catalog", undecodable, "--package", "bar"}, exitError, filepath.Join(undecodable, "catalog.yaml") + ":"},
		{"unknown package", []string{"--catalog", operatorhub, "--package", "nope"}, exitError, `package "nope" not found`},
		{"unknown channel", []string{"--catalog", operatorhub, "--package", "etcd", "--channel", "beta"}, exitError, `channel "beta" not found`},
		{"empty installed", []string{"--catalog", operatorhub, "--package", "etcd", "--installed", "@1.0.0"}, exitError, "invalid --installed"},
		{"bad installed version", []string{"--catalog", operatorhub, "--package", "etcd", "--installed", "x@one"}, exitError, "invalid --installed"},
		{"missing subscription file", []string{"--catalog", operatorhub, "--subscriptions", "testdata/resolve/nope.yaml"}, exitError, "nope.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"resolve"}, tt.args...)
			out, stderr, code := runCLI(t, args...)
			if code != tt.want || out != "" || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("olmops %v: exit %d (want %d), stdout %q, stderr (want %q):\n%s", args, code, tt.want, out, tt.stderr, stderr)
			}
		})
	}
}

// TestResolvePackageInNoChannel: a package whose bundles are in no channel
// is there, so "not found" would send the user looking for a typo.
func TestResolvePackageInNoChannel(t *testing.T) {
	dir := t.TempDir()
	fbc := "schema: olm.package\nname: lonely\n---\nschema: olm.bundle\npackage: lonely\nname: lonely.v1.0.0\nimage: example.com/l:v1\nproperties: [{type: olm.package, value: {packageName: lonely, version: 1.0.0}}]\n"
	if err := os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(fbc), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "resolve", "--catalog", dir, "--package", "lonely", "--policy", "Classic")
	if want := `package "lonely" has no channels in any --catalog: none of its bundles is in a channel`; code != exitError || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr, exitError, want)
	}
}
