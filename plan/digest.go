package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"sort"
	"sync"

	"github.com/olmops/olmops/catalog"
)

// digester writes length-prefixed fields into a sha256, so that no two
// different field lists hash the same by shifting bytes between fields.
type digester struct{ h hash.Hash }

func newDigester() *digester { return &digester{h: sha256.New()} }

func (d *digester) field(parts ...string) {
	for _, p := range parts {
		fmt.Fprintf(d.h, "%d:", len(p))
		io.WriteString(d.h, p)
	}
	d.h.Write([]byte{'\n'})
}

func (d *digester) bytes(b []byte) {
	fmt.Fprintf(d.h, "%d:", len(b))
	d.h.Write(b)
	d.h.Write([]byte{'\n'})
}

func (d *digester) json(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	d.bytes(b)
	return nil
}

func (d *digester) sum() string { return "sha256:" + hex.EncodeToString(d.h.Sum(nil)) }

// Digests remembers package digests for one planning run: many clusters
// subscribe to the same packages, and a package's digest reads every
// property value of every bundle. Safe for concurrent use.
type Digests struct {
	mu      sync.Mutex
	m       map[*catalog.Package]string
	bundles map[*catalog.Bundle]string
}

// NewDigests returns an empty digest cache.
func NewDigests() *Digests {
	return &Digests{m: map[*catalog.Package]string{}, bundles: map[*catalog.Bundle]string{}}
}

// Bundle returns the sha256 of what the catalog says about b itself: its
// image, related images and properties (manifests included when the
// catalog carries them). A plan records the digests of the bundles on its
// path only, so an edit elsewhere in the package (another channel, another
// bundle) does not make it stale: resolution reads the whole package, but
// when it still picks the same path, nothing the plan installs changed.
func (ds *Digests) Bundle(b *catalog.Bundle) (string, error) {
	ds.mu.Lock()
	sum, ok := ds.bundles[b]
	ds.mu.Unlock()
	if ok {
		return sum, nil
	}
	d := newDigester()
	if err := writeBundle(d, b); err != nil {
		return "", fmt.Errorf("digest of bundle %s: %w", b.Name, err)
	}
	sum = d.sum()
	ds.mu.Lock()
	ds.bundles[b] = sum
	ds.mu.Unlock()
	return sum, nil
}

// Package returns the sha256 of what the catalog says about p: its
// channels with their edges and its bundles with their properties. It
// changes when anything resolution or rendering reads from p changes, and
// not when another package of the catalog does.
func (ds *Digests) Package(p *catalog.Package) (string, error) {
	ds.mu.Lock()
	sum, ok := ds.m[p]
	ds.mu.Unlock()
	if ok {
		return sum, nil
	}
	sum, err := packageDigest(p)
	if err != nil {
		return "", fmt.Errorf("digest of package %s: %w", p.Name, err)
	}
	ds.mu.Lock()
	ds.m[p] = sum
	ds.mu.Unlock()
	return sum, nil
}

func packageDigest(p *catalog.Package) (string, error) {
	d := newDigester()
	d.field("package", p.Name, p.DefaultChannel)
	if dep := p.Deprecation; dep != nil {
		d.field("deprecation", dep.Message)
		for _, k := range sortedKeys(dep.Channels) {
			d.field("channel", k, dep.Channels[k])
		}
		for _, k := range sortedKeys(dep.Bundles) {
			d.field("bundle", k, dep.Bundles[k])
		}
	}
	for _, name := range p.ChannelNames() {
		d.field("channel", name)
		for _, e := range p.Channels[name].Entries {
			d.field(append([]string{"entry", e.Name, e.Replaces, e.SkipRange}, e.Skips...)...)
		}
	}
	for _, name := range p.BundleNames() {
		if err := writeBundle(d, p.Bundles[name]); err != nil {
			return "", err
		}
	}
	return d.sum(), nil
}

func writeBundle(d *digester, b *catalog.Bundle) error {
	d.field("bundle", b.Name, b.Image)
	for _, ri := range b.RelatedImages {
		d.field("relatedImage", ri.Name, ri.Image)
	}
	for _, prop := range b.Properties {
		v, err := prop.Value.Bytes()
		if err != nil {
			return fmt.Errorf("bundle %s property %s: %w", b.Name, prop.Type, err)
		}
		d.field("property", prop.Type)
		d.bytes(v)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
