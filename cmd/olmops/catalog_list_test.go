package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCatalogList(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{
			name: "packages",
			args: []string{"packages", smallCatalog},
			want: `
NAME  DISPLAY NAME  DEFAULT CHANNEL
bar                 alpha
foo   Foo Operator  stable
`,
		},
		{
			name: "channels",
			args: []string{"channels", smallCatalog},
			want: `
PACKAGE  CHANNEL  HEAD
bar      alpha    bar.v1.0.0
foo      beta     foo.v0.3.0
foo      stable   foo.v0.3.0
`,
		},
		{
			name: "bundles of one package",
			args: []string{"bundles", smallCatalog, "foo"},
			want: `
PACKAGE  CHANNEL  BUNDLE      REPLACES    SKIPS       SKIP RANGE  IMAGE
foo      beta     foo.v0.2.0                                      example.com/foo-bundle:v0.2.0
foo      beta     foo.v0.3.0  foo.v0.2.0                          example.com/foo-bundle:v0.3.0
foo      stable   foo.v0.1.0                                      example.com/foo-bundle:v0.1.0
foo      stable   foo.v0.2.0  foo.v0.1.0              <0.2.0      example.com/foo-bundle:v0.2.0
foo      stable   foo.v0.3.0  foo.v0.2.0  foo.v0.2.1              example.com/foo-bundle:v0.3.0
`,
		},
		{
			name: "display names from CSV bundle objects",
			args: []string{"packages", examplesDir + "/catalogs/operatorhub"},
			want: `
NAME                DISPLAY NAME        DEFAULT CHANNEL
etcd                etcd                stable
memcached-operator  Memcached Operator  alpha
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := runCLI(t, append([]string{"catalog", "list"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			if want := strings.TrimPrefix(tt.want, "\n"); out != want {
				t.Errorf("got:\n%s\nwant:\n%s", out, want)
			}
		})
	}
}

func TestCatalogListJSON(t *testing.T) {
	out, stderr, code := runCLI(t, "catalog", "list", "bundles", smallCatalog, "foo", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	var rows []bundleRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("output is not a JSON array of bundles: %v\n%s", err, out)
	}
	if len(rows) != 5 {
		t.Fatalf("got %d rows, want 5", len(rows))
	}
	want := bundleRow{Package: "foo", Channel: "stable", Bundle: "foo.v0.3.0", Replaces: "foo.v0.2.0", Skips: []string{"foo.v0.2.1"}, Image: "example.com/foo-bundle:v0.3.0"}
	if got := rows[4]; got.Bundle != want.Bundle || got.Replaces != want.Replaces || strings.Join(got.Skips, ",") != "foo.v0.2.1" || got.Image != want.Image {
		t.Errorf("last row = %+v, want %+v", got, want)
	}
	if !strings.Contains(out, `"skips": []`) {
		t.Errorf("entries without skips should have an empty list, not null:\n%s", out)
	}

	out, _, _ = runCLI(t, "catalog", "list", "channels", smallCatalog, "-o", "json")
	var chans []channelRow
	if err := json.Unmarshal([]byte(out), &chans); err != nil || len(chans) != 3 || chans[2].Head != "foo.v0.3.0" {
		t.Errorf("channels JSON = %s (err %v)", out, err)
	}
}

func TestCatalogListUndecodable(t *testing.T) {
	dir := writeCatalog(t, map[string]string{"catalog.json": "{\"schema\": \"olm.package\", \"name\": }\n"})
	out, stderr, code := runCLI(t, "catalog", "list", "packages", dir)
	if code != exitFindings || out != "" || !strings.Contains(stderr, "catalog.json:1: ") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and the file's problem on stderr", code, out, stderr)
	}
}
