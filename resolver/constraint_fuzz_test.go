package resolver

import (
	"testing"
)

// FuzzCompileCEL feeds catalog-written olm.constraint cel rules to the
// compiler and evaluates what compiles against a small input: nothing
// panics, and the cost limit ends every evaluation.
func FuzzCompileCEL(f *testing.F) {
	for _, s := range []string{
		`properties.exists(p, p.type == "olm.label" && p.value == "x")`,
		`properties.exists(p, p.type == "olm.package" && semverCompare(p.value.version, "1.0.0") >= 0)`,
		`[1,2,3].all(x, [1,2,3].all(y, [1,2,3].all(z, true)))`,
		`1 +`, `"a" == 1`, `true`,
	} {
		f.Add(s)
	}
	in := map[string]any{"properties": []map[string]any{
		{"type": "olm.package", "value": map[string]any{"packageName": "etcd", "version": "0.9.4"}},
		{"type": "olm.label", "value": "x"},
	}}
	f.Fuzz(func(t *testing.T, rule string) {
		if len(rule) > 1<<10 {
			return
		}
		prg, err := compileCEL(rule)
		if err != nil {
			return
		}
		_, _ = evalCEL(prg, in)
	})
}
