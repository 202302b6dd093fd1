package plan

import (
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olmops/olmops/render"
)

// maxRenderBytes bounds the YAML a Renders keeps (the objects behind it
// take a few times more). A fleet whose clusters all differ would
// otherwise keep every plan of the run in memory; past the bound the memo
// starts over, so a fleet of look-alike clusters still hits.
const maxRenderBytes = 32 << 20

// Renders remembers, for one planning run, what rendering a bundle gave:
// a fleet installs the same bundle into the same namespace with the same
// OperatorGroup and config on cluster after cluster, and turning the
// objects into YAML is most of a plan's cost. It also remembers manifest
// files parsed back, by their exact bytes. Safe for concurrent use.
//
// What a Renders hands out is shared by every caller that asked with the
// same inputs: callers must not modify the objects or the file bytes.
type Renders struct {
	mu      sync.Mutex
	renders map[renderKey]*renderedBundle
	bytes   int
	parsed  map[string][]*unstructured.Unstructured
	parsedN int
	// hits and misses count renders, for tests.
	hits, misses int
}

// NewRenders returns an empty memo.
func NewRenders() *Renders {
	return &Renders{renders: map[renderKey]*renderedBundle{}, parsed: map[string][]*unstructured.Unstructured{}}
}

// renderKey is every input of render.Render and render.Files. The bundle
// is keyed by identity: a BundleSource returns one *render.Bundle per
// catalog bundle and tree and never changes it afterwards (Sources reads
// each once), so two pointers that differ may hold different manifests
// (another branch's bundle folder, another pull) and are never merged.
type renderKey struct {
	bundle *render.Bundle
	opts   string
}

// renderedBundle is a render before any overlay: what every cluster with
// the same inputs gets.
type renderedBundle struct {
	objects  []*unstructured.Unstructured
	files    map[string][]byte
	warnings []string
}

// optionsKey encodes every field of render.Options without ambiguity.
// Config is encoded as the JSON Render itself decodes it from, so two
// configs with the same encoding render the same; ok is false when the
// config has no JSON encoding (Render will refuse it).
func optionsKey(o render.Options) (string, bool) {
	d := newDigester()
	d.field("namespace", o.Namespace)
	d.field("operatorGroup", o.OperatorGroup)
	// nil and empty both mean all namespaces to Render, but the count
	// keeps ["a"] apart from ["a", ""].
	d.field(append([]string{"targets", strconv.Itoa(len(o.TargetNamespaces))}, o.TargetNamespaces...)...)
	if err := d.json(o.Config); err != nil {
		return "", false
	}
	return d.sum(), true
}

// render renders b with opts, or returns what an earlier call with the
// same inputs got.
func (rs *Renders) render(b *render.Bundle, opts render.Options) (*renderedBundle, error) {
	k, ok := optionsKey(opts)
	key := renderKey{bundle: b, opts: k}
	if ok {
		rs.mu.Lock()
		r := rs.renders[key]
		if r != nil {
			rs.hits++
		}
		rs.mu.Unlock()
		if r != nil {
			return r, nil
		}
	}
	r, err := renderBundle(b, opts)
	if err != nil || !ok {
		return r, err
	}
	size := 0
	for _, data := range r.files {
		size += len(data)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.misses++
	if prev := rs.renders[key]; prev != nil { // another goroutine was faster
		return prev, nil
	}
	if rs.bytes+size > maxRenderBytes {
		rs.renders, rs.bytes = map[renderKey]*renderedBundle{}, 0
	}
	rs.renders[key] = r
	rs.bytes += size
	return r, nil
}

func renderBundle(b *render.Bundle, opts render.Options) (*renderedBundle, error) {
	res, err := render.Render(b, opts)
	if err != nil {
		return nil, err
	}
	files, err := render.Files(res.Objects)
	if err != nil {
		return nil, err
	}
	return &renderedBundle{objects: res.Objects, files: files, warnings: res.Warnings}, nil
}

// parse is render.ParseManifests remembered by the file's bytes: the
// plans of a fleet hold the same manifest files cluster after cluster,
// and checking API owners reads them all back. The name is only for
// errors, which are not remembered.
func (rs *Renders) parse(name string, data []byte) ([]*unstructured.Unstructured, error) {
	rs.mu.Lock()
	objs, ok := rs.parsed[string(data)]
	rs.mu.Unlock()
	if ok {
		return objs, nil
	}
	objs, err := render.ParseManifests(name, data)
	if err != nil {
		return nil, err
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.parsedN+len(data) > maxRenderBytes {
		rs.parsed, rs.parsedN = map[string][]*unstructured.Unstructured{}, 0
	}
	rs.parsed[string(data)] = objs
	rs.parsedN += len(data)
	return objs, nil
}
