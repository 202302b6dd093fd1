package main

import (
	"strings"
	"testing"
)

func TestGraphGolden(t *testing.T) {
	tests := []struct {
		golden string
		args   []string
	}{
		{"foo.mmd", []string{smallCatalog, "foo"}},
		{"foo-stable.dot", []string{smallCatalog, "foo", "--channel", "stable", "-o", "dot"}},
		{"etcd.mmd", []string{examplesDir + "/catalogs/operatorhub", "etcd"}},
		{"memcached.dot", []string{examplesDir + "/catalogs/operatorhub", "memcached-operator", "-o", "dot"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			out, stderr, code := runCLI(t, append([]string{"graph"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			golden(t, tt.golden, out)
			again, _, _ := runCLI(t, append([]string{"graph"}, tt.args...)...)
			if again != out {
				t.Error("two runs gave different output")
			}
		})
	}
}

func TestGraphEdges(t *testing.T) {
	out, _, code := runCLI(t, "graph", smallCatalog, "foo", "--channel", "stable", "-o", "dot")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		`"stable/foo.v0.1.0" -> "stable/foo.v0.2.0" [style=solid];`,                        // replaces
		`"stable/foo.v0.1.0" -> "stable/foo.v0.2.0" [style=dotted, label="skipRange"];`,    // skipRange <0.2.0
		`"stable/foo.v0.2.1" -> "stable/foo.v0.3.0" [style=dashed, label="skips"];`,        // skips
		`"stable/foo.v0.3.0" [label="foo.v0.3.0\n0.3.0\nhead", penwidth=2, style="bold"];`, // head
		`label="foo.v0.1.0\n0.1.0\ndeprecated"`,                                            // deprecated bundle
		`label="foo.v0.2.1\nnot in channel"`,                                               // skipped, absent
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s\n%s", want, out)
		}
	}
	if strings.Contains(out, "beta") {
		t.Errorf("--channel stable drew another channel:\n%s", out)
	}
}
