package gitsource

import (
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// pathChange is one non-folder entry that differs between two trees; a
// side where the path has no such entry has the zero hash.
type pathChange struct {
	name     string
	from, to object.TreeEntry
}

// diffTrees lists the entries that differ between the trees from and to
// (zero: the empty tree), in path order. With guide, the edit that turned
// from into to, only the folders the edit names are read: a commit's
// diff then costs what its own files cost, not what the repository's
// folders hold (go-git's DiffTree opened every sibling subtree of a
// changed folder, which made a fleet's commits quadratic in clusters).
// Without guide, every folder whose hash differs is compared.
func (r *Repo) diffTrees(from, to plumbing.Hash, guide *edit) ([]pathChange, error) {
	d := &treeDiff{r: r}
	if err := d.walk("", from, to, guide); err != nil {
		return nil, err
	}
	return d.out, nil
}

type treeDiff struct {
	r   *Repo
	out []pathChange
}

func (d *treeDiff) walk(dir string, from, to plumbing.Hash, guide *edit) error {
	if from == to {
		return nil
	}
	a, err := d.entries(from)
	if err != nil {
		return err
	}
	b, err := d.entries(to)
	if err != nil {
		return err
	}
	for _, name := range diffNames(a, b, guide) {
		x, inA := a[name]
		y, inB := b[name]
		if inA && inB && x.Hash == y.Hash && x.Mode == y.Mode {
			continue
		}
		p := name
		if dir != "" {
			p = dir + "/" + name
		}
		c := pathChange{name: p}
		if inA && x.Mode != filemode.Dir {
			c.from = x
		}
		if inB && y.Mode != filemode.Dir {
			c.to = y
		}
		if !c.from.Hash.IsZero() || !c.to.Hash.IsZero() {
			d.out = append(d.out, c)
		}
		var subA, subB plumbing.Hash
		if inA && x.Mode == filemode.Dir {
			subA = x.Hash
		}
		if inB && y.Mode == filemode.Dir {
			subB = y.Hash
		}
		if subA.IsZero() && subB.IsZero() {
			continue
		}
		// The edit below name guides only a folder on both sides; a folder
		// that appeared, vanished or replaced a file is listed whole.
		var sub *edit
		if guide != nil && !subA.IsZero() && !subB.IsZero() {
			sub = guide.children[name]
		}
		if err := d.walk(p, subA, subB, sub); err != nil {
			return err
		}
	}
	return nil
}

// diffNames are the names to compare in one folder, sorted: the ones the
// edit names, or every name on either side when there is no edit or it
// starts the folder afresh.
func diffNames(a, b map[string]object.TreeEntry, guide *edit) []string {
	var names []string
	if guide != nil && !guide.clear {
		for name := range guide.children {
			names = append(names, name)
		}
	} else {
		for name := range a {
			names = append(names, name)
		}
		for name := range b {
			if _, ok := a[name]; !ok {
				names = append(names, name)
			}
		}
	}
	sort.Strings(names)
	return names
}

func (d *treeDiff) entries(h plumbing.Hash) (map[string]object.TreeEntry, error) {
	if h.IsZero() {
		return nil, nil
	}
	t, err := d.r.tree(h)
	if err != nil {
		return nil, err
	}
	m := make(map[string]object.TreeEntry, len(t.Entries))
	for _, te := range t.Entries {
		m[te.Name] = te
	}
	return m, nil
}
