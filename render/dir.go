package render

import (
	"errors"
	"fmt"
	"github.com/olmops/olmops/catalog/yamllimit"
	"io"
	"io/fs"
	"path"
	"strings"

	"sigs.k8s.io/yaml"
)

// Bounds on what FromDir and ReadFiles read, so that a hostile or broken
// tree cannot exhaust memory.
const (
	maxFiles      = 1000
	maxTotalBytes = 64 << 20
)

// packageAnnotation names a bundle's package in metadata/annotations.yaml.
const packageAnnotation = "operators.operatorframework.io.bundle.package.v1"

// FromDir reads the registry+v1 bundle in dir: every .yaml, .yml and .json
// file of dir/manifests (YAML files may hold several documents) and, when
// present, dir/metadata/annotations.yaml. A missing or empty manifests
// folder gives an error wrapping ErrNoManifests. At most 1000 files and
// 64 MiB are read.
func FromDir(fsys fs.FS, dir string) (*Bundle, error) {
	mdir := path.Join(dir, "manifests")
	entries, err := fs.ReadDir(fsys, mdir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", mdir, ErrNoManifests)
	}
	if err != nil {
		return nil, err
	}
	rd := &boundedReader{fsys: fsys, files: maxFiles, bytes: maxTotalBytes}
	b := &Bundle{}
	var csvAt string
	for _, e := range entries {
		if e.IsDir() || !isManifestName(e.Name()) {
			continue
		}
		p := path.Join(mdir, e.Name())
		objs, err := rd.decode(p, false)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			if o.obj.GetKind() != csvKind {
				b.Objects = append(b.Objects, o.obj)
				continue
			}
			if b.CSVObject != nil {
				return nil, &posError{File: p, Line: o.line, Msg: "a second ClusterServiceVersion (the first is at " + csvAt + ")"}
			}
			b.CSVObject, csvAt = o.obj, fmt.Sprintf("%s:%d", p, o.line)
		}
	}
	if b.CSVObject == nil && len(b.Objects) == 0 {
		return nil, fmt.Errorf("%s: %w", mdir, ErrNoManifests)
	}
	if b.CSVObject == nil {
		return nil, fmt.Errorf("%s: no ClusterServiceVersion", mdir)
	}
	if b.CSV, err = typedCSV(b.CSVObject); err != nil {
		return nil, fmt.Errorf("%s: %w", csvAt, err)
	}
	b.Name, b.Version = b.CSV.Name, b.CSV.Spec.Version.String()
	if b.Annotations, err = readAnnotations(rd, path.Join(dir, "metadata", "annotations.yaml")); err != nil {
		return nil, err
	}
	b.Package = b.Annotations[packageAnnotation]
	return b, nil
}

func isManifestName(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// readAnnotations reads a bundle's annotations.yaml; a missing file is no
// annotations and no error.
func readAnnotations(rd *boundedReader, p string) (map[string]string, error) {
	data, err := rd.read(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Annotations map[string]any `json:"annotations"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, msg := yamlErrorLine(err)
		return nil, &posError{File: p, Line: line, Msg: msg, Err: err}
	}
	out := make(map[string]string, len(doc.Annotations))
	for k, v := range doc.Annotations {
		switch v := v.(type) {
		case string:
			out[k] = v
		case nil, map[string]any, []any:
			return nil, &posError{File: p, Msg: fmt.Sprintf("annotation %s: want a string", k)}
		default:
			out[k] = fmt.Sprint(v)
		}
	}
	return out, nil
}

// boundedReader reads files through an fs.FS while it stays within a file
// count and a byte total.
type boundedReader struct {
	fsys  fs.FS
	files int
	bytes int64
}

func (r *boundedReader) read(p string) ([]byte, error) {
	if r.files <= 0 {
		return nil, fmt.Errorf("%s: more than %d files", p, maxFiles)
	}
	r.files--
	f, err := r.fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, r.bytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if int64(len(data)) > r.bytes {
		return nil, fmt.Errorf("%s: more than %d MiB of manifests in all", p, maxTotalBytes>>20)
	}
	r.bytes -= int64(len(data))
	// Bundle manifests and overlay files are untrusted: an alias bomb of
	// a few hundred bytes would expand in the YAML decoders and kustomize.
	if err := yamllimit.Check(p, data, yamllimit.Limits{MaxBytes: maxTotalBytes}); err != nil {
		return nil, err
	}
	return data, nil
}

func (r *boundedReader) decode(p string, strict bool) ([]sourced, error) {
	data, err := r.read(p)
	if err != nil {
		return nil, err
	}
	return decodeFile(p, data, strict)
}
