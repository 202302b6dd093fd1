package v1alpha1

import (
	"sync"

	yaml "go.yaml.in/yaml/v3"
)

// appendPlan appends p as Marshal's yaml.v3 encoding (indent 2) spells
// it, for the plans whose every string yaml.v3 writes plain, and says
// whether it could. A fleet plan marshals tens of thousands of plans per
// run: yaml.v3's emitter keeps every event of a document, about 65 KB
// per plan, a fifth of all the bytes planning allocated. Any other plan
// (an empty field, a warning with ": ", a line break) goes through
// yaml.v3 itself. TestAppendPlanMatchesYAML compares the two on every
// field, and FuzzAppendPlan on arbitrary strings.
func appendPlan(b []byte, p *InstallPlan) ([]byte, bool) {
	w := planWriter{b: b, ok: true}
	w.str(0, "apiVersion", p.APIVersion)
	w.str(0, "kind", p.Kind)
	w.key(0, "metadata")
	w.str(2, "name", p.Metadata.Name)
	w.str(2, "namespace", p.Metadata.Namespace)
	w.key(0, "spec")
	s := &p.Spec
	w.str(2, "cluster", s.Cluster)
	w.key(2, "subscription")
	w.str(4, "kind", s.Subscription.Kind)
	w.omit(4, "file", s.Subscription.File)
	w.list(4, "requiredBy", s.Subscription.RequiredBy)
	w.omit(4, "serviceAccount", s.Subscription.ServiceAccount)
	w.str(2, "package", s.Package)
	w.str(2, "approval", string(s.Approval))
	w.str(2, "successorPolicy", string(s.SuccessorPolicy))
	if s.From != nil {
		w.key(2, "from")
		w.str(4, "name", s.From.Name)
		w.bundle(4, *s.From)
	}
	w.key(2, "to")
	w.str(4, "name", s.To.Name)
	w.bundle(4, s.To)
	if len(s.Path) == 0 {
		return b, false // yaml.v3 writes "path: []"
	}
	w.key(2, "path")
	for _, h := range s.Path {
		w.item(4, "name", h.Name)
		w.bundle(6, h.PlanBundle)
		w.omit(6, "channel", h.Channel)
		w.str(6, "edge", h.Edge)
		w.omit(6, "skipRange", h.SkipRange)
		w.str(6, "manifests", h.Manifests)
	}
	w.key(2, "catalog")
	w.str(4, "name", s.Catalog.Name)
	w.str(4, "digest", s.Catalog.Digest)
	if len(s.Dependencies) > 0 {
		w.key(2, "dependencies")
		for _, d := range s.Dependencies {
			w.item(4, "name", d.Name)
			w.str(6, "package", d.Package)
			w.str(6, "bundle", d.Bundle)
		}
	}
	w.list(2, "warnings", s.Warnings)
	w.str(2, "inputsDigest", s.InputsDigest)
	w.str(2, "manifestsDigest", s.ManifestsDigest)
	w.str(2, "olmopsVersion", s.OlmopsVersion)
	return w.b, w.ok
}

// planWriter writes block YAML; ok turns false at the first string it
// cannot write plain.
type planWriter struct {
	b  []byte
	ok bool
}

func (w *planWriter) indent(n int) {
	for range n {
		w.b = append(w.b, ' ')
	}
}

func (w *planWriter) key(indent int, k string) {
	w.indent(indent)
	w.b = append(w.b, k...)
	w.b = append(w.b, ":\n"...)
}

func (w *planWriter) str(indent int, k, v string) {
	w.indent(indent)
	w.b = append(w.b, k...)
	w.b = append(w.b, ": "...)
	w.value(v)
}

func (w *planWriter) value(v string) {
	w.ok = w.ok && writesPlain(v)
	w.b = append(w.b, v...)
	w.b = append(w.b, '\n')
}

// omit writes k unless v is empty, as omitempty does.
func (w *planWriter) omit(indent int, k, v string) {
	if v != "" {
		w.str(indent, k, v)
	}
}

// item starts a sequence item at indent whose first field is k.
func (w *planWriter) item(indent int, k, v string) {
	w.indent(indent)
	w.b = append(w.b, "- "...)
	w.str(0, k, v)
}

// list writes a string sequence, omitted when empty.
func (w *planWriter) list(indent int, k string, vs []string) {
	if len(vs) == 0 {
		return
	}
	w.key(indent, k)
	for _, v := range vs {
		w.indent(indent + 2)
		w.b = append(w.b, "- "...)
		w.value(v)
	}
}

// bundle writes b's fields after its name, which the caller wrote: as a
// field, or as the first of a sequence item.
func (w *planWriter) bundle(indent int, b PlanBundle) {
	w.omit(indent, "version", b.Version)
	w.omit(indent, "image", b.Image)
}

// writesPlain tells whether yaml.v3 writes s as a plain scalar, as it
// is. The common shapes (names, paths, digests, image references) are
// decided here; the rest (versions start with a digit, which yaml.v3
// resolves as a number when it can) by asking yaml.v3 once per string.
func writesPlain(s string) bool {
	if simplePlain(s) {
		return true
	}
	plainMemo.Lock()
	v, ok := plainMemo.m[s]
	plainMemo.Unlock()
	if ok {
		return v
	}
	v = yamlPlain(s)
	plainMemo.Lock()
	if len(plainMemo.m) >= plainMemoSize {
		clear(plainMemo.m)
	}
	plainMemo.m[s] = v
	plainMemo.Unlock()
	return v
}

// yamlPlain asks yaml.v3 whether it writes s plain, as it is.
func yamlPlain(s string) bool {
	out, err := yaml.Marshal(map[string]string{"k": s})
	return err == nil && string(out) == "k: "+s+"\n"
}

// plainMemo keeps yaml.v3's answers for the strings simplePlain cannot
// decide: a fleet's plans repeat the same versions thousands of times.
// Bounded, since a catalog's strings are untrusted.
var plainMemo = struct {
	sync.Mutex
	m map[string]bool
}{m: map[string]bool{}}

const plainMemoSize = 4096

// simplePlain reports the strings that yaml.v3 surely writes plain: a
// letter, then letters, digits and ._/:@+=- only, not ending in ':'
// (": " and a final ':' are mapping indicators), and not one of the words
// it resolves to a boolean or null (it quotes YAML 1.1's booleans too).
// A string starting with a letter resolves to nothing else.
func simplePlain(s string) bool {
	if s == "" || !isLetter(s[0]) || s[len(s)-1] == ':' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && (c < '0' || c > '9') && !isPlainPunct(c) {
			return false
		}
	}
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL",
		"y", "Y", "yes", "Yes", "YES", "on", "On", "ON",
		"n", "N", "no", "No", "NO", "off", "Off", "OFF":
		return false
	}
	return true
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isPlainPunct(c byte) bool {
	switch c {
	case '.', '_', '/', ':', '@', '+', '=', '-':
		return true
	}
	return false
}
