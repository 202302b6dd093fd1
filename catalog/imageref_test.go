package catalog

import (
	"regexp"
	"strings"
	"testing"
)

// referenceRE is distribution/reference's expression, which
// splitReference replaces; the two must accept the same strings and agree
// on the name and digest.
var referenceRE = func() *regexp.Regexp {
	pathComponent := `[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*`
	domainComp := `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	host := `(?:` + domainComp + `(?:\.` + domainComp + `)*|\[(?:[a-fA-F0-9:]+)\])`
	name := `(?:` + host + `(?::[0-9]+)?/)?` + pathComponent + `(?:/` + pathComponent + `)*`
	tag := `[\w][\w.-]{0,127}`
	digest := `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}`
	return regexp.MustCompile(`^(` + name + `)(?::(` + tag + `))?(?:@(` + digest + `))?$`)
}()

var referenceSeeds = []string{
	"docker.io/library/busybox", "quay.io/ns/op:v1.0.0", "localhost:5000/op:latest",
	"[::1]:5000/op", "[::1]/op", "[]/op", "[::1]:/op", "a:5000", "a:b/c", "a.b-c.d:1/e",
	"-a.b/c", "a-.b/c", "a..b/c", "a/b__c", "a/b___c", "a/b--c", "a/b._c", "a/b.", "a/_b",
	"a/b:" + strings.Repeat("t", 128), "a/b:" + strings.Repeat("t", 129), "a/b:.t", "a/b:_t",
	"a/b@sha256:" + strings.Repeat("0a", 32), "a/b:t@sha256:" + strings.Repeat("0A", 16),
	"a/b@sha256:" + strings.Repeat("0", 31), "a/b@s-h+a.2_x:" + strings.Repeat("f", 32),
	"a/b@1sha:" + strings.Repeat("f", 32), "a/b@sha-:" + strings.Repeat("f", 32),
	"a/b@sha256:" + strings.Repeat("f", 32) + "@x", "a/b@@", "a/b:@sha256:" + strings.Repeat("f", 32),
	"a/b:c:d", "a/b/", "/a/b", "a//b", "A/b", "a/B", "a/b\n", "a/b ", "a/b:t\n",
}

func TestSplitReferenceMatchesRegexp(t *testing.T) {
	for _, s := range referenceSeeds {
		sameAsRegexp(t, s)
	}
}

func FuzzSplitReference(f *testing.F) {
	for _, s := range referenceSeeds {
		f.Add(s)
	}
	f.Fuzz(sameAsRegexp)
}

func sameAsRegexp(t *testing.T, s string) {
	name, digest, ok := splitReference(s)
	m := referenceRE.FindStringSubmatch(s)
	if ok != (m != nil) || ok && (name != m[1] || digest != m[3]) {
		t.Errorf("splitReference(%q) = %q, %q, %v; the regexp says %q", s, name, digest, ok, m)
	}
}
