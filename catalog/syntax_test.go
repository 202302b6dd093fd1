package catalog

import (
	"strings"
	"testing"
)

func TestCheckRange(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{in: ">=1.0.0 <2.0.0"},
		{in: ">= 1.0.0 < 2.0.0"},
		{in: "<1.2.3 || >=2.0.0"},
		{in: "1.x"},
		{in: ">1.2.x"},
		{in: "!=1.0.0"},
		{in: ">=4.5.0-0 <4.6.0"},
		{in: ">v0.1.0", err: `Could not parse Range ">v0.1.0": Could not parse comparator ">v" in ">v0.1.0"`},
		{in: ">1.00.1", err: `Could not parse Range ">1.00.1": Could not parse version "1.00.1" in ">1.00.1": Minor number must not contain leading zeroes "00"`},
		{in: ">=1.0 <2.0.0", err: `Could not parse Range ">=1.0": Could not parse version "1.0" in ">=1.0": No Major.Minor.Patch elements found`},
		{in: "~1.2.3", err: `Could not parse Range "~1.2.3": Could not parse comparator "~" in "~1.2.3"`},
		{in: "|| 1.0.0", err: "First element in range is '||'"},
		{in: "1.0.0 ||", err: "Last element in range is '||'"},
		{in: ">=abc", err: `Could not get version from string: ">=abc"`},
		{in: ">1.x.1", err: `Could not get version from string: ">="`},
	} {
		err := checkRange(tc.in)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.err {
			t.Errorf("checkRange(%q) = %q, want %q", tc.in, got, tc.err)
		}
	}
}

func TestCheckImageRef(t *testing.T) {
	digest := "sha256:" + strings.Repeat("0a", 32)
	for _, tc := range []struct{ in, err string }{
		{in: ""},
		{in: "busybox"},
		{in: "quay.io/ns/op:v1.0.0"},
		{in: "registry.redhat.io/ns/op@" + digest},
		{in: "localhost:5000/op:latest@" + digest},
		{in: "[::1]:5000/op"},
		{in: "Quay.io/ns/op"},
		{in: "quay.io/NS/op", err: "invalid reference format: repository name must be lowercase"},
		{in: "quay.io/ns/op:", err: "invalid reference format"},
		{in: "quay.io/ns/op op", err: "invalid reference format"},
		{in: strings.Repeat("0a", 32), err: "invalid repository name (" + strings.Repeat("0a", 32) + "), cannot specify 64-byte hexadecimal strings"},
		{in: "op@md5:" + strings.Repeat("0a", 16), err: "unsupported digest algorithm"},
		{in: "op@sha256:" + strings.Repeat("0A", 32), err: "invalid checksum digest format"},
		// The length limit counts the docker.io/library/ a short name stands for.
		{in: "quay.io/" + strings.Repeat("a", 247)},
		{in: "quay.io/" + strings.Repeat("a", 248), err: "repository name must not be more than 255 characters"},
		{in: strings.Repeat("a", 237)},
		{in: strings.Repeat("a", 238), err: "repository name must not be more than 255 characters"},
		{in: "docker.io/" + strings.Repeat("a", 238), err: "repository name must not be more than 255 characters"},
		{in: "index.docker.io/ns/" + strings.Repeat("a", 243), err: "repository name must not be more than 255 characters"},
		{in: "index.docker.io/ns/" + strings.Repeat("a", 242)},
	} {
		err := checkImageRef(tc.in)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.err {
			t.Errorf("checkImageRef(%q) = %q, want %q", tc.in, got, tc.err)
		}
	}
}

func FuzzCheckRange(f *testing.F) {
	for _, s := range []string{">=1.0.0 <2.0.0", "1.x || >2.x.x", "!1.0.0-x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { _ = checkRange(s) })
}

func FuzzCheckImageRef(f *testing.F) {
	for _, s := range []string{"quay.io/a/b:v1", "a@sha256:00", "[::1]/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { _ = checkImageRef(s) })
}
