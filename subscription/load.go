package subscription

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
)

// LoadDir reads every *.yaml, *.yml and *.json file under dir in fsys
// (recursively, in lexical order) with Parse. Paths in positions and errors
// are fsys paths. OperatorGroups are read and checked too (see
// LoadObjects), but not returned.
//
// The intents come back sorted by namespace, name and kind. Two intents with
// the same namespace and name, or two ClusterExtensions with the same name,
// are an error naming both positions. Every problem of every file is
// reported at once.
func LoadDir(ctx context.Context, fsys fs.FS, dir string) ([]Intent, error) {
	objs, err := LoadObjects(ctx, fsys, dir)
	return objs.Intents, err
}

func loadDir(ctx context.Context, fsys fs.FS, dir string, groups *[]OperatorGroup) ([]Intent, error) {
	var (
		intents []Intent
		errs    []error
	)
	err := fs.WalkDir(fsys, dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.IsDir() {
			return nil
		}
		switch path.Ext(p) {
		case ".yaml", ".yml", ".json":
		default:
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return fmt.Errorf("read intent: %w", err)
		}
		in, err := parse(p, data, groups)
		intents = append(intents, in...)
		if err != nil {
			errs = append(errs, err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load intents from %s: %w", dir, err)
	}
	errs = append(errs, duplicates(intents)...)
	sort.SliceStable(intents, func(a, b int) bool {
		x, y := intents[a], intents[b]
		if x.Namespace != y.Namespace {
			return x.Namespace < y.Namespace
		}
		if x.Name != y.Name {
			return x.Name < y.Name
		}
		return x.Kind < y.Kind
	})
	return intents, errors.Join(errs...)
}

// duplicates reports intents that would own the same plan directory
// (namespace/name), and ClusterExtensions (cluster-scoped) sharing a name.
func duplicates(intents []Intent) []error {
	var errs []error
	byNSName := map[[2]string]Pos{}
	byCEName := map[string]Pos{}
	for _, in := range intents {
		key := [2]string{in.Namespace, in.Name}
		if first, ok := byNSName[key]; ok {
			errs = append(errs, &Error{Pos: in.Pos, Msg: fmt.Sprintf("%s %s/%s is already defined at %s", in.Kind, in.Namespace, in.Name, first)})
			continue
		}
		byNSName[key] = in.Pos
		if in.Kind != KindClusterExtension {
			continue
		}
		if first, ok := byCEName[in.Name]; ok {
			errs = append(errs, &Error{Pos: in.Pos, Msg: fmt.Sprintf("ClusterExtension %s is already defined at %s (ClusterExtensions are cluster-scoped)", in.Name, first)})
			continue
		}
		byCEName[in.Name] = in.Pos
	}
	return errs
}
