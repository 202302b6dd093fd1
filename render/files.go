package render

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/olmops/olmops/catalog/yamllimit"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// maxFileStem keeps file names well under the 255 bytes filesystems allow.
const maxFileStem = 200

// Files writes one YAML file per object, named <kind>-<name>.yaml in lower
// case; the namespace, then the API group, then a hash join the name only
// when names would collide. Bytes are deterministic (keys sorted) and names
// are safe on any filesystem, case-insensitive ones included. Two objects
// of the same identity are an error.
func Files(objs []*unstructured.Unstructured) (map[string][]byte, error) {
	ids := make([]objectID, len(objs))
	seen := map[objectID]bool{}
	for i, o := range objs {
		if err := checkIdentity(o); err != nil {
			return nil, fmt.Errorf("%s: %w", idOf(o), err)
		}
		ids[i] = idOf(o)
		if seen[ids[i]] {
			return nil, fmt.Errorf("%s appears twice", ids[i])
		}
		seen[ids[i]] = true
	}
	names := fileNames(ids)
	out := make(map[string][]byte, len(objs))
	for i, o := range objs {
		if _, ok := out[names[i]]; ok {
			return nil, fmt.Errorf("%s: file name %s is taken", ids[i], names[i])
		}
		data, err := yaml.Marshal(o.Object)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ids[i], err)
		}
		out[names[i]] = data
	}
	return out, nil
}

// fileNames gives each identity the shortest name level that no other
// identity shares; the result depends on the set, not on its order.
func fileNames(ids []objectID) []string {
	levels := make([]int, len(ids))
	names := make([]string, len(ids))
	for {
		byName := map[string][]int{}
		for i, id := range ids {
			names[i] = fileName(id, levels[i])
			byName[names[i]] = append(byName[names[i]], i)
		}
		bumped := false
		for _, same := range byName {
			if len(same) < 2 {
				continue
			}
			for _, i := range same {
				if levels[i] < 3 {
					levels[i]++
					bumped = true
				}
			}
		}
		if !bumped {
			return names
		}
	}
}

// fileName is an identity's name at a level: 0 kind-name, 1 with the
// namespace, 2 with the group, 3 with a hash of the identity.
func fileName(id objectID, level int) string {
	parts := []string{id.kind}
	if level >= 2 && id.group != "" {
		parts[0] += "." + id.group
	}
	if level >= 1 && id.namespace != "" {
		parts = append(parts, id.namespace)
	}
	parts = append(parts, id.name)
	stem := safeFileName(strings.Join(parts, "-"))
	if level >= 3 || len(stem) > maxFileStem {
		sum := sha256.Sum256([]byte(id.group + "/" + id.kind + "/" + id.namespace + "/" + id.name))
		stem = stem[:min(len(stem), maxFileStem)] + "-" + hex.EncodeToString(sum[:])[:8]
	}
	return stem + ".yaml"
}

// safeFileName lowercases and keeps only letters, digits, '.', '-' and '_'.
func safeFileName(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '.', c == '-', c == '_':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// ReadFiles reads back a folder written with Files (any .yaml, .yml or
// .json file of dir, several documents allowed), sorted by Less. Errors
// name the file and line; duplicate YAML keys and two manifests for one
// object are errors. At most 1000 files and 64 MiB are read.
func ReadFiles(fsys fs.FS, dir string) ([]*unstructured.Unstructured, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	rd := &boundedReader{fsys: fsys, files: maxFiles, bytes: maxTotalBytes}
	var out []*unstructured.Unstructured
	where := map[objectID]string{}
	for _, e := range entries {
		if e.IsDir() || !isManifestName(e.Name()) {
			continue
		}
		p := path.Join(dir, e.Name())
		objs, err := rd.decode(p, true)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			at := fmt.Sprintf("%s:%d", p, o.line)
			if first, ok := where[idOf(o.obj)]; ok {
				return nil, &posError{File: p, Line: o.line, Msg: fmt.Sprintf("%s is also at %s", idOf(o.obj), first)}
			}
			where[idOf(o.obj)] = at
			out = append(out, o.obj)
		}
	}
	Sort(out)
	return out, nil
}

// ParseManifests decodes one manifest file of a plan folder (any number of
// documents; errors name the file and line) under the limits ReadFiles
// applies. A committed plan is as untrusted as the pull request that last
// changed it, and sigs.k8s.io/yaml alone lets a few kilobytes of aliases
// expand to hundreds of megabytes.
func ParseManifests(name string, data []byte) ([]*unstructured.Unstructured, error) {
	if err := yamllimit.Check(name, data, yamllimit.Limits{MaxBytes: maxTotalBytes}); err != nil {
		return nil, err
	}
	docs, err := decodeFile(name, data, true)
	if err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, len(docs))
	for i, d := range docs {
		out[i] = d.obj
	}
	return out, nil
}
