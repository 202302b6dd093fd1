package plan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/render"
)

// rendered is one hop's manifests.
type rendered struct {
	objects  []*unstructured.Unstructured
	files    map[string][]byte
	image    string
	warnings []string
}

// build renders every hop and assembles the plan, then compares it with
// the committed one.
func (pl *planner) build(ctx context.Context, m member, spec v1alpha1.InstallPlanSpec, hops []hop, namespace string) (Plan, error) {
	k := m.key
	p := Plan{Key: k, Dir: Dir(pl.in.Cluster, k), Committed: m.committed, Group: k.Name}
	if hops == nil { // a committed path whose bundles left the catalog
		p.State, p.File, p.Files = UpToDate, m.committed.Plan, m.committed.Files
		return p, nil
	}
	last := hops[len(hops)-1]
	p.Package = last.bundle.Package
	files := map[string][]byte{}
	var target *rendered
	for i, h := range hops {
		r, err := pl.render(ctx, m, h, namespace)
		if err != nil {
			return p, fmt.Errorf("render %s: %w", h.bundle.Name, err)
		}
		dir := v1alpha1.ManifestsDir
		if i < len(hops)-1 {
			dir = path.Join(v1alpha1.HopsDir, fmt.Sprintf("%02d-%s", i+1, h.bundle.Name))
		}
		for name, data := range r.files {
			files[path.Join(dir, name)] = data
		}
		ph := v1alpha1.PlanHop{PlanBundle: planBundle(h, r.image), Channel: h.channel, Edge: h.edge, SkipRange: h.skipRange, Manifests: dir}
		spec.Path = append(spec.Path, ph)
		spec.Warnings = append(spec.Warnings, r.warnings...)
		target = r
	}
	spec.To = spec.Path[len(spec.Path)-1].PlanBundle
	if m.committed != nil {
		from := m.committed.Plan.Spec.To
		if from.Name != spec.To.Name {
			spec.From = &from
		} else {
			spec.From = m.committed.Plan.Spec.From
		}
	} else if m.intent != nil && m.intent.Installed != nil && m.intent.Installed.Bundle != spec.To.Name {
		spec.From = &v1alpha1.PlanBundle{Name: m.intent.Installed.Bundle, Version: m.intent.Installed.Version}
	}
	pathDigest, err := pl.pathDigest(hops)
	if err != nil {
		return p, err
	}
	spec.Catalog = v1alpha1.PlanCatalog{Name: last.cat.Name, Digest: pathDigest}
	if spec.InputsDigest, err = pl.inputsDigest(m, spec); err != nil {
		return p, err
	}
	spec.ManifestsDigest = v1alpha1.ManifestsDigest(files)
	spec.Warnings = dedupe(spec.Warnings)
	p.File = &v1alpha1.InstallPlan{APIVersion: v1alpha1.GroupVersion, Kind: v1alpha1.InstallPlanKind,
		Metadata: v1alpha1.PlanMeta{Name: k.Name, Namespace: k.Namespace}, Spec: spec}
	p.File.Spec.OlmopsVersion = pl.in.Version
	if err := pl.compare(&p, files, target.objects); err != nil {
		return p, err
	}
	if err := crdUpgradeSafety(m, p.Changes); err != nil {
		return p, err
	}
	return p, pl.gate(&p)
}

func planBundle(h hop, image string) v1alpha1.PlanBundle {
	b := v1alpha1.PlanBundle{Name: h.bundle.Name, Image: h.bundle.Image}
	if h.bundle.Version != nil {
		b.Version = h.bundle.Version.Original()
	}
	if image != "" {
		b.Image = image
	}
	return b
}

// compare sets p's files and state against the committed plan. The
// committed olmopsVersion is kept for the comparison so a new olmops
// release alone does not make every plan stale.
func (pl *planner) compare(p *Plan, files map[string][]byte, target []*unstructured.Unstructured) error {
	c := p.Committed
	if c != nil {
		p.File.Spec.OlmopsVersion = c.Plan.Spec.OlmopsVersion
	}
	data, err := p.File.Marshal()
	if err != nil {
		return err
	}
	files[v1alpha1.InstallPlanFile] = data
	if c != nil && maps.EqualFunc(files, c.Files, bytes.Equal) {
		p.State, p.File, p.Files = UpToDate, c.Plan, c.Files
		return nil
	}
	// Marshalling is a good part of a plan's cost: again only when the
	// version differs from the committed one just written.
	if p.File.Spec.OlmopsVersion != pl.in.Version {
		p.File.Spec.OlmopsVersion = pl.in.Version
		if files[v1alpha1.InstallPlanFile], err = p.File.Marshal(); err != nil {
			return err
		}
	}
	p.Files = files
	var before []*unstructured.Unstructured
	switch {
	case c == nil:
		p.State = Install
	case c.Plan.Spec.To.Name != p.File.Spec.To.Name:
		p.State = Upgrade
	default:
		p.State = Refresh
	}
	if c != nil {
		if before, err = committedManifests(c); err != nil {
			return err
		}
	}
	p.Changes = render.Compare(before, target)
	return nil
}

// committedManifests reads the committed target manifests back.
func committedManifests(c *Committed) ([]*unstructured.Unstructured, error) {
	out, err := TargetManifests(c.Files)
	if err != nil {
		return nil, fmt.Errorf("committed plan %s: %w", c.Plan.Metadata.Name, err)
	}
	return out, nil
}

// TargetManifests parses the target's manifests among a plan folder's
// files (by path relative to the folder), for comparing two revisions.
func TargetManifests(files map[string][]byte) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	prefix := v1alpha1.ManifestsDir + "/"
	for _, name := range sortedKeys(files) {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		objs, err := render.ParseManifests(name, files[name])
		if err != nil {
			return nil, fmt.Errorf("manifest %w", err)
		}
		out = append(out, objs...)
	}
	return out, nil
}

// render turns one hop's bundle into manifest files.
func (pl *planner) render(ctx context.Context, m member, h hop, namespace string) (*rendered, error) {
	b, image, err := pl.in.Bundles.Bundle(ctx, h.cat, h.bundle)
	if err != nil {
		return nil, err
	}
	opts, err := pl.renderOptions(m, b, namespace)
	if err != nil {
		return nil, err
	}
	r, err := pl.renders.render(b, opts)
	if err != nil {
		return nil, err
	}
	out := &rendered{objects: r.objects, files: r.files, image: image, warnings: r.warnings}
	if m.intent == nil {
		return out, nil
	}
	// The overlay is applied after the memo: its content is the cluster's
	// own, and the shared objects are only read by render.Overlay.
	dir := OverlayDir(pl.in.Cluster, m.key.Name)
	if _, err := fs.Stat(pl.in.Repo, path.Join(dir, "kustomization.yaml")); err != nil {
		return out, nil
	}
	if out.objects, err = render.Overlay(r.objects, pl.in.Repo, dir); err != nil {
		return nil, err
	}
	if out.files, err = render.Files(out.objects); err != nil {
		return nil, err
	}
	return out, nil
}

// pathDigest hashes what the catalogs say about the bundles on the path,
// and nothing else of their packages: see Digests.Bundle.
func (pl *planner) pathDigest(hops []hop) (string, error) {
	d := newDigester()
	for _, h := range hops {
		sum, err := pl.digests.Bundle(h.bundle)
		if err != nil {
			return "", err
		}
		d.field("hop", h.cat.Name, h.bundle.Name, sum)
	}
	return d.sum(), nil
}

// inputsDigest hashes everything the plan was made from.
func (pl *planner) inputsDigest(m member, spec v1alpha1.InstallPlanSpec) (string, error) {
	d := newDigester()
	c := pl.in.Cluster
	d.field("cluster", c.Name, c.KubernetesVersion, c.OpenShiftVersion, string(spec.Approval), string(spec.SuccessorPolicy))
	if m.intent != nil {
		in := *m.intent
		in.Pos = v1alpha1.Pos{}
		if err := d.json(in); err != nil {
			return "", err
		}
	}
	if og := pl.in.Objects.OperatorGroup(m.key.Namespace); og != nil {
		d.field(append([]string{"operatorGroup", og.Name}, og.TargetNamespaces...)...)
	}
	if spec.From != nil {
		d.field("from", spec.From.Name)
	}
	d.field("path", spec.Catalog.Digest)
	for _, dep := range spec.Dependencies {
		d.field("dependency", dep.Name, dep.Bundle)
	}
	if m.intent != nil {
		overlay, err := readTree(pl.in.Repo, OverlayDir(c, m.key.Name))
		if err != nil {
			return "", err
		}
		d.field("overlay", v1alpha1.ManifestsDigest(overlay))
	}
	return d.sum(), nil
}

// readTree reads every file under dir; a missing dir is empty.
func readTree(fsys fs.FS, dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := fs.WalkDir(fsys, dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipDir
			}
			return err
		}
		if e.Type().IsRegular() {
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			out[strings.TrimPrefix(p, dir+"/")] = data
		}
		return nil
	})
	return out, err
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	out := s[:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
