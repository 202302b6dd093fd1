package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// RenderedFile is the file Overlay writes the rendered objects to, next to
// the overlay's kustomization, and prepends to its resources.
const RenderedFile = "olmops-rendered.yaml"

// kustomizationNames are the names kustomize looks for, in its order.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// Overlay applies the kustomize overlay in dir of overlay to objs: the
// folder is copied into memory with the objects written beside its
// kustomization as RenderedFile, which is prepended to the kustomization's
// resources, so that the kustomization holds only patches, labels, images
// and extra resources of its own folder. Nothing outside the folder can be
// read; remote resources, plugins and exec functions are refused. Errors
// name dir's kustomization file. The result is sorted by Less.
func Overlay(objs []*unstructured.Unstructured, overlay fs.FS, dir string) ([]*unstructured.Unstructured, error) {
	dir = path.Clean(dir)
	root := path.Join("/", dir)
	mem := filesys.MakeFsInMemory()
	kname, err := copyOverlay(overlay, dir, mem, root)
	if err != nil {
		return nil, err
	}
	kpath := path.Join(dir, kname)
	if mem.Exists(path.Join(root, RenderedFile)) {
		return nil, fmt.Errorf("%s: the overlay folder has a file named %s, which olmops writes", kpath, RenderedFile)
	}
	rendered, err := jsonStream(objs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kpath, err)
	}
	kdata, err := mem.ReadFile(path.Join(root, kname))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kpath, err)
	}
	kdata, err = prependResource(kpath, kdata, RenderedFile)
	if err != nil {
		return nil, err
	}
	for p, data := range map[string][]byte{RenderedFile: rendered, kname: kdata} {
		if err := mem.WriteFile(path.Join(root, p), data); err != nil {
			return nil, fmt.Errorf("%s: %w", kpath, err)
		}
	}
	out, err := runKustomize(mem, root, kpath)
	if err != nil {
		return nil, err
	}
	return out, refuseOverrides(kpath, out)
}

// refuseOverrides fails when an OperatorCondition the overlay produced
// sets spec.overrides. Overrides are the cluster administrator's escape
// hatch from an operator's Upgradeable=False, set in the cluster; from
// Git, a pull request could lift every hold it wanted.
func refuseOverrides(kpath string, objs []*unstructured.Unstructured) error {
	var errs []error
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		if gvk.Group != "operators.coreos.com" || gvk.Kind != "OperatorCondition" {
			continue
		}
		if _, found, _ := unstructured.NestedFieldNoCopy(o.Object, "spec", "overrides"); found {
			errs = append(errs, fmt.Errorf("%s: %s sets spec.overrides: overrides belong to the cluster administrator, in the cluster, never in Git", kpath, idOf(o)))
		}
	}
	return errors.Join(errs...)
}

// copyOverlay copies the overlay folder into the in-memory filesystem,
// within the read bounds, checks every kustomization in it for remote
// references, and names the folder's own kustomization file.
func copyOverlay(src fs.FS, dir string, mem filesys.FileSystem, root string) (string, error) {
	rd := &boundedReader{fsys: src, files: maxFiles, bytes: maxTotalBytes}
	err := fs.WalkDir(src, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := path.Join(root, p[len(dir):])
		if dir == "." {
			rel = path.Join(root, p)
		}
		switch {
		case d.IsDir():
			return mem.MkdirAll(rel)
		case !d.Type().IsRegular():
			return fmt.Errorf("%s: an overlay may hold only files and folders", p)
		}
		data, err := rd.read(p)
		if err != nil {
			return err
		}
		if slices.Contains(kustomizationNames, path.Base(p)) {
			within := path.Join(".", strings.TrimPrefix(path.Dir(p), dir))
			if dir == "." {
				within = path.Dir(p)
			}
			if err := checkLocal(p, within, data); err != nil {
				return err
			}
			if err := checkInlineYAML(p, data); err != nil {
				return err
			}
		}
		return mem.WriteFile(rel, data)
	})
	if err != nil {
		return "", err
	}
	for _, n := range kustomizationNames {
		if mem.Exists(path.Join(root, n)) {
			return n, nil
		}
	}
	return "", fmt.Errorf("%s: %w", path.Join(dir, kustomizationNames[0]), fs.ErrNotExist)
}

// jsonStream writes objects as a YAML stream of JSON documents: JSON
// quotes every string, so no value changes type on its way through
// kustomize's YAML parser.
func jsonStream(objs []*unstructured.Unstructured) ([]byte, error) {
	var buf bytes.Buffer
	for _, o := range objs {
		j, err := json.Marshal(o.Object)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", idOf(o), err)
		}
		buf.WriteString("---\n")
		buf.Write(j)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

// kustomizeMu serializes builds: kustomize keeps the OpenAPI schema a
// kustomization may choose in package state, which concurrent builds would
// share.
var kustomizeMu sync.Mutex

// runKustomize builds the overlay with plugins and exec disabled and
// loading restricted to the overlay's root.
func runKustomize(mem filesys.FileSystem, root, kpath string) ([]*unstructured.Unstructured, error) {
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsRootOnly
	opts.PluginConfig = types.DisabledPluginConfig()
	kustomizeMu.Lock()
	m, err := krusty.MakeKustomizer(opts).Run(mem, root)
	kustomizeMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kpath, err)
	}
	out := make([]*unstructured.Unstructured, 0, m.Size())
	for _, r := range m.Resources() {
		j, err := r.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kpath, err)
		}
		o, err := objectFromJSON(kpath, 0, j)
		if err != nil {
			return nil, err
		}
		if o.obj == nil {
			return nil, errors.New(kpath + ": kustomize produced an empty object")
		}
		out = append(out, o.obj)
	}
	Sort(out)
	return out, nil
}
