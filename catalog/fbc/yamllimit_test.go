package fbc

import (
	"fmt"
	"strings"
	"testing"
)

// laughs is a few hundred bytes of YAML whose aliases expand to 9^8
// nodes, under key in a mapping.
func laughs(key string) string {
	var b strings.Builder
	b.WriteString(key + ":\n  a: &a [l,l,l,l,l,l,l,l,l]\n")
	for c := 'b'; c <= 'i'; c++ {
		p := string(c - 1)
		fmt.Fprintf(&b, "  %c: &%c [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", c, c, p, p, p, p, p, p, p, p, p)
	}
	return b.String()
}

func TestDecodeAliasBomb(t *testing.T) {
	data := "schema: olmops.test\nname: a\n---\nschema: olm.package\nname: etcd\n" + laughs("x")
	_, err := Decode("catalog.yaml", []byte(data))
	want := "catalog.yaml:15: YAML aliases expand the document by more than 100000 nodes (the limit)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want %q", err, want)
	}
}
