package fbc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadDirReadsLargeValuesBack(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("x", 2*DetachLimit)
	doc := "schema: olm.bundle\npackage: p\nname: p.v1\nimage: quay.io/p:v1\nproperties:\n" +
		"- type: olm.package\n  value: {packageName: p, version: 1.0.0}\n" +
		"- type: olm.csv.metadata\n  value:\n    description: " + big + "\n"
	path := filepath.Join(dir, "catalog.yaml")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadDir(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	props := cfg.Bundles[0].Properties
	var meta struct{ Description string }
	if err := props[1].Value.Decode(&meta); err != nil {
		t.Fatal(err)
	}
	if meta.Description != big {
		t.Fatalf("read back %d bytes of description, want %d", len(meta.Description), len(big))
	}
	var pkg struct{ PackageName string }
	if err := props[0].Value.Decode(&pkg); err != nil || pkg.PackageName != "p" {
		t.Fatalf("small value: %+v, %v", pkg, err)
	}

	// A file that changed after loading is refused, never misread.
	if err := os.WriteFile(path, []byte(doc+"# edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := props[1].Value.Decode(&meta); err == nil || !strings.Contains(err.Error(), "changed since") {
		t.Fatalf("decode after edit: %v, want a changed-file error", err)
	}
	if err := props[0].Value.Decode(&pkg); err != nil {
		t.Fatalf("small values are held in memory and survive the edit: %v", err)
	}
}
