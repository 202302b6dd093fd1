package fbc

import (
	"strings"
	"testing"
)

// TestBuildReportsNestedFieldErrors: a wrong type in a channel entry, a
// related image or a deprecation entry is an error at its line, from
// either decoder, as a wrong top-level field is.
func TestBuildReportsNestedFieldErrors(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"channel entry", "schema: olm.channel\nname: c\npackage: p\nentries:\n- name: a\n- name: [b]\n", "bad.yaml:6:"},
		{"related image", "schema: olm.bundle\nname: b\npackage: p\nimage: i\nrelatedImages:\n- name: x\n  image: {a: b}\n", "bad.yaml:7:"},
		{"deprecation entry", "schema: olm.deprecations\npackage: p\nentries:\n- reference: {schema: olm.package}\n  message: [m]\n", "bad.yaml:5:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("bad.yaml", []byte(tc.data))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v, want one starting %q", err, tc.want)
			}
			decodeFastAndReference(t, "bad.yaml", []byte(tc.data))
		})
	}
}
