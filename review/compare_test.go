package review

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/olmops/olmops/planner"
)

// examples reads the example repository into memory, to edit per test.
func examples(t *testing.T) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS("../examples"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(os.DirFS("../examples"), p)
		m[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func clone(m fstest.MapFS) fstest.MapFS {
	out := fstest.MapFS{}
	for k, v := range m {
		cp := *v
		out[k] = &cp
	}
	return out
}

// edit replaces old by new in a file of m, failing when old is absent.
func edit(t *testing.T, m fstest.MapFS, file, old, new string) {
	t.Helper()
	data := string(m[file].Data)
	if !strings.Contains(data, old) {
		t.Fatalf("%s lacks %q", file, old)
	}
	m[file] = &fstest.MapFile{Data: []byte(strings.Replace(data, old, new, 1))}
}

const (
	etcdCatalog = "catalogs/operatorhub/etcd/catalog.yaml"
	acmeCatalog = "catalogs/internal/acme-db/catalog.yaml"
)

func compare(t *testing.T, base, head fstest.MapFS, opts Options) *Report {
	t.Helper()
	r, err := Compare(t.Context(), Tree{Commit: Commit{Rev: "base"}, FS: base}, Tree{Commit: Commit{Rev: "head"}, FS: head}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestReviewCompare(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(t *testing.T, head fstest.MapFS)
		check func(t *testing.T, r *Report)
	}{
		{"no change", func(*testing.T, fstest.MapFS) {}, func(t *testing.T, r *Report) {
			if len(r.Problems) != 1 || r.Problems[0].Status != Present || len(r.Packages)+len(r.Impact) > 0 || r.Unchanged != 3 || r.Failed(true) {
				t.Errorf("a head equal to its base: %+v", r)
			}
		}},
		{"head does not parse", func(t *testing.T, m fstest.MapFS) {
			m["olmops.yaml"] = &fstest.MapFile{Data: []byte("spec: [\n")}
		}, func(t *testing.T, r *Report) {
			// The head's catalogs are still read, with the base's olmops.yaml.
			if len(r.Problems) != 2 || r.Problems[0].Status != New || r.Problems[0].Pos.File != "olmops.yaml" || r.Problems[1].Status != Present || !r.Failed(false) {
				t.Errorf("problems %+v", r.Problems)
			}
			if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "olmops.yaml does not load at the head") {
				t.Errorf("notes %q", r.Notes)
			}
		}},
		{"catalog does not parse", func(t *testing.T, m fstest.MapFS) {
			edit(t, m, etcdCatalog, "name: stable\nentries:", "name: stable\nentries: [")
		}, func(t *testing.T, r *Report) {
			if len(r.Problems) == 0 || r.Problems[0].Pos.File != etcdCatalog || r.Problems[0].Pos.Line == 0 || r.Problems[0].Source != "catalog operatorhub" {
				t.Errorf("problems %+v", r.Problems)
			}
			if len(r.Impact) > 0 || len(r.Notes) != 1 {
				t.Errorf("impact %+v, notes %q: want none and a note", r.Impact, r.Notes)
			}
		}},
		{"problem already present moves down", func(t *testing.T, m fstest.MapFS) {
			edit(t, m, acmeCatalog, "schema: olm.package\n", "\n\n\nschema: olm.package\n")
		}, func(t *testing.T, r *Report) {
			if len(r.Problems) != 1 || r.Problems[0].Status != Present || r.Failed(true) {
				t.Errorf("problems %+v", r.Problems)
			}
		}},
		{"subscription made unsatisfiable", func(t *testing.T, m fstest.MapFS) {
			for range 3 {
				edit(t, m, acmeCatalog, `versionRange: ">=0.9.2 <0.11.0"`, `versionRange: ">=2.0.0"`)
			}
		}, func(t *testing.T, r *Report) {
			var broken []string
			for _, im := range r.Impact {
				if im.Breaks() {
					broken = append(broken, im.Key())
					if len(im.Head.Explanation) == 0 || im.Action != ActionBlocked {
						t.Errorf("%s: %+v", im.Key(), im.Head)
					}
				}
			}
			if strings.Join(broken, " ") != "prod-east/etcd-system/acme-db prod-east/etcd-system/etcd" || !r.Failed(false) {
				t.Errorf("broken %v", broken)
			}
		}},
	}
	base := examples(t)
	// A problem both sides share: a skipRange that does not parse.
	edit(t, base, acmeCatalog, "skipRange: '>=1.0.0 <1.2.0'", "skipRange: 'bogus'")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head := clone(base)
			tt.edit(t, head)
			tt.check(t, compare(t, base, head, Options{Branch: "main"}))
		})
	}
}

func TestReviewUnknownCluster(t *testing.T) {
	m := examples(t)
	_, err := Compare(t.Context(), Tree{FS: m}, Tree{FS: m}, Options{Clusters: []string{"nope"}})
	if !errors.Is(err, planner.ErrUsage) {
		t.Errorf("err = %v, want ErrUsage", err)
	}
}

func TestReviewMatchProblems(t *testing.T) {
	p := func(file string, line int, pkg, msg string) Problem {
		return Problem{Source: "catalog c", Pos: Pos{File: file, Line: line}, Package: pkg, Message: msg}
	}
	base := []Problem{
		p("a.yaml", 3, "foo", `duplicate bundle "x" (also at a.yaml:1)`),
		p("b.yaml", 1, "", "bad YAML"),
		p("a.yaml", 9, "bar", "gone"),
	}
	head := []Problem{
		p("a.yaml", 7, "foo", `duplicate bundle "x" (also at a.yaml:5)`),
		p("c.yaml", 1, "", "bad YAML"),
		p("a.yaml", 8, "foo", `duplicate bundle "x" (also at a.yaml:5)`),
	}
	var got []string
	for _, m := range matchProblems(base, head, func(string) bool { return false }) {
		got = append(got, string(m.Status)+" "+m.Pos.String())
	}
	want := "new c.yaml:1, new a.yaml:8, present a.yaml:7, fixed b.yaml:1, fixed a.yaml:9"
	if strings.Join(got, ", ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, ", "), want)
	}
}
