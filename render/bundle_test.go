package render

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/property"
	"github.com/olmops/olmops/internal/corpus"
)

// catalogBundle builds a catalog bundle whose olm.bundle.object properties
// carry the given manifests, the first at c.yaml:10, the next at :11...
func catalogBundle(t *testing.T, manifests ...string) *catalog.Bundle {
	t.Helper()
	props := []property.Property{{Pos: property.Pos{File: "c.yaml", Line: 9}, Type: property.TypePackage,
		Value: property.JSONValue([]byte(`{"packageName": "tiny", "version": "0.1.0"}`))}}
	for i, m := range manifests {
		data := m
		if !strings.HasPrefix(m, "{\"data\"") {
			data = fmt.Sprintf(`{"data": %q}`, base64.StdEncoding.EncodeToString([]byte(m)))
		}
		props = append(props, property.Property{Pos: property.Pos{File: "c.yaml", Line: 10 + i}, Type: property.TypeBundleObject, Value: property.JSONValue([]byte(data))})
	}
	set, errs := property.Parse(props)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return &catalog.Bundle{Pos: property.Pos{File: "c.yaml", Line: 5}, Name: "tiny.v0.1.0", Properties: props, Props: set,
		Package: &catalog.Package{Name: "tiny"}}
}

func TestFromCatalog(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
	b, err := FromCatalog(catalogBundle(t, cm, minimalCSV))
	if err != nil {
		t.Fatal(err)
	}
	if b.Name != "tiny.v0.1.0" || b.Package != "tiny" || b.Version != "0.1.0" || b.CSV.Name != "tiny.v0.1.0" || len(b.Objects) != 1 {
		t.Errorf("bundle = %+v", b)
	}

	tests := []struct {
		name      string
		manifests []string
		want      string
		wantIs    error
	}{
		{"no manifests", nil, "c.yaml:5: bundle tiny.v0.1.0: bundle carries no manifests", ErrNoManifests},
		{"no CSV", []string{cm}, "c.yaml:5: bundle tiny.v0.1.0: no olm.bundle.object is a ClusterServiceVersion", nil},
		{"two CSVs", []string{minimalCSV, cm, minimalCSV}, "c.yaml:12: bundle tiny.v0.1.0: a second ClusterServiceVersion (the first is at c.yaml:10)", nil},
		{"bad base64", []string{`{"data": "!!!"}`}, "bundle tiny.v0.1.0: c.yaml:10: olm.bundle.object: olm.bundle.object data: illegal base64", nil},
		{"two objects in one", []string{cm + "---\n" + cm}, "bundle tiny.v0.1.0: c.yaml:10: olm.bundle.object holds 2 objects, want 1", nil},
		{"no kind", []string{"apiVersion: v1\nmetadata: {name: a}\n"}, "bundle tiny.v0.1.0: c.yaml:10: olm.bundle.object: data:1: object has no kind", nil},
		{"bad CSV", []string{strings.Replace(minimalCSV, "deployments: []", "deployments: 3", 1)}, "c.yaml:10: bundle tiny.v0.1.0: ClusterServiceVersion tiny.v0.1.0: json: cannot unmarshal", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromCatalog(catalogBundle(t, tt.manifests...))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to start with %q", err, tt.want)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error does not wrap %v", tt.wantIs)
			}
		})
	}
	if _, err := FromCatalog(nil); err == nil {
		t.Errorf("FromCatalog(nil): no error")
	}
}

// Every bundle of the real catalogs that carries its manifests converts
// and renders in a mode it supports, with the invariants Render promises.
func TestRenderRealBundles(t *testing.T) {
	if testing.Short() {
		t.Skip("loads every real catalog")
	}
	dirs, _ := filepath.Glob(filepath.Join(corpus.Path(t, ocpCatalogs), "*"))
	examples, _ := filepath.Glob(filepath.Join(exampleCatalogs, "*", "*"))
	rendered := 0
	for _, dir := range append(dirs, examples...) {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		c := loadCatalog(t, dir)
		for _, pn := range c.PackageNames() {
			for _, bn := range c.Packages[pn].BundleNames() {
				cb := c.Packages[pn].Bundles[bn]
				if len(cb.Props.BundleObjects) == 0 {
					continue
				}
				t.Run(bn, func(t *testing.T) {
					b, err := FromCatalog(cb)
					if err != nil {
						t.Fatal(err)
					}
					res := mustRender(t, b, Options{Namespace: "ops", TargetNamespaces: supportedTargets(b)})
					checkInvariants(t, b, res)
				})
				rendered++
			}
		}
	}
	if rendered < 300 {
		t.Errorf("rendered %d real bundles, want the 300 and more the catalogs hold", rendered)
	}
}

// supportedTargets picks AllNamespaces when supported, else OwnNamespace,
// else a single other namespace.
func supportedTargets(b *Bundle) []string {
	set, _ := operatorsv1alpha1.NewInstallModeSet(b.CSV.Spec.InstallModes)
	switch {
	case set[operatorsv1alpha1.InstallModeTypeAllNamespaces]:
		return nil
	case set[operatorsv1alpha1.InstallModeTypeOwnNamespace]:
		return []string{"ops"}
	}
	return []string{"team-a"}
}

func checkInvariants(t *testing.T, b *Bundle, res *Result) {
	t.Helper()
	seen := map[objectID]bool{}
	for i, o := range res.Objects {
		if seen[idOf(o)] {
			t.Errorf("%s rendered twice", idOf(o))
		}
		seen[idOf(o)] = true
		if i > 0 && Less(o, res.Objects[i-1]) {
			t.Errorf("%s sorted after %s", idOf(o), idOf(res.Objects[i-1]))
		}
		want := b.Package
		if sharedAcrossPackages(o) {
			want = "" // CRDs and their roles may be shared by packages
		}
		if o.GetLabels()[PackageLabel] != want {
			t.Errorf("%s has package label %q, want %q", idOf(o), o.GetLabels()[PackageLabel], want)
		}
		if o.GetKind() == "ClusterServiceVersion" {
			t.Errorf("the CSV was rendered")
		}
	}
	for _, d := range b.CSV.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		dep := mustFind(t, res.Objects, "Deployment", "ops", d.Name)
		for name, c := range containers(t, dep, "containers") {
			if env := strings.Join(envNames(c), ","); !strings.Contains(env, "OPERATOR_CONDITION_NAME="+b.CSV.Name) {
				t.Errorf("deployment %s container %s lacks OPERATOR_CONDITION_NAME", d.Name, name)
			}
		}
	}
	mustFind(t, res.Objects, "OperatorCondition", "ops", b.CSV.Name)
}
