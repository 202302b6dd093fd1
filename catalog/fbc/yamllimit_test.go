package fbc

import (
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog/yamllimit/yamllimittest"
)

func TestDecodeAliasBomb(t *testing.T) {
	data := "schema: olmops.test\nname: a\n---\nschema: olm.package\nname: etcd\n" + yamllimittest.Laughs("x")
	_, err := Decode("catalog.yaml", []byte(data))
	want := "catalog.yaml:15: YAML aliases expand the document by more than 100000 nodes (the limit)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want %q", err, want)
	}
}
