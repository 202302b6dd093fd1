package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateWarnings: a key written twice and a CEL rule that does not
// compile are warnings (opm accepts both), printed in every format with
// their lines; the catalog stays valid and the exit code 0.
func TestValidateWarnings(t *testing.T) {
	cat := strings.Replace(validPackage, "defaultChannel: stable\n", "defaultChannel: beta\ndefaultChannel: stable\n", 1) +
		"  - type: olm.constraint\n    value: {cel: {rule: 'properties.exists(p, '}}\n"
	dir := writeCatalog(t, map[string]string{"foo/catalog.yaml": cat})
	file := filepath.Join(dir, "foo", "catalog.yaml")
	dup := file + `:5: warning: duplicate key "defaultChannel" (first at line 4); the last value is used, as opm reads it`
	cel := file + `:20: warning: bundle foo.v0.1.0: olm.constraint: cel rule "properties.exists(p, " does not compile`

	out, stderr, code := runCLI(t, "validate", dir)
	if code != 0 || !strings.Contains(out, dup) || !strings.Contains(out, cel) {
		t.Errorf("text: exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 0 and\n%s\n%s", code, out, stderr, dup, cel)
	}
	out, _, code = runCLI(t, "validate", "-o", "json", dir)
	var got struct {
		Valid    bool
		Warnings []finding
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 || !got.Valid || len(got.Warnings) != 2 || got.Warnings[0].Line != 5 {
		t.Errorf("json: exit %d, %v, %+v", code, err, got)
	}
	out, _, code = runCLI(t, "validate", "-o", "github", dir)
	if code != 0 || strings.Count(out, "::warning file=") != 2 || strings.Contains(out, "::error") {
		t.Errorf("github: exit %d\n%s", code, out)
	}
}
