package fleettest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog"
)

// NewHead writes a new bundle of pkg, at version, into the fleet's
// worktree at the head of the package's default channel (replacing the
// head before it), so that every Subscription of pkg targets it, and
// returns the files it changed for a commit (gittest.Change.Files). Each
// call replaces the head the last call made. It does not commit.
func (f *Fleet) NewHead(b testing.TB, pkg *catalog.Package, version string) map[string][]byte {
	b.Helper()
	ch := pkg.Channels[pkg.DefaultChannel]
	if ch == nil {
		b.Fatalf("package %s has no default channel %q", pkg.Name, pkg.DefaultChannel)
	}
	if f.heads == nil {
		f.heads = map[string]string{}
	}
	prev := f.heads[pkg.Name]
	if prev == "" {
		e, err := ch.Head()
		if err != nil {
			b.Fatal(err)
		}
		prev = e.Name
	}
	name := pkg.Name + ".v" + version
	file := f.CatalogFile(b, ch.Pos)
	data, err := os.ReadFile(filepath.Join(f.Dir, filepath.FromSlash(file)))
	if err != nil {
		b.Fatal(err)
	}
	text, ok := addEntry(string(data), pkg.Name, ch.Name, fmt.Sprintf("- name: %s\n  replaces: %s\n", name, prev))
	if !ok {
		b.Fatalf("%s: no olm.channel %s of %s with entries in opm's layout", file, ch.Name, pkg.Name)
	}
	text = strings.TrimSuffix(text, "\n") + "\n---\n" + fmt.Sprintf(
		"image: example.com/bundles/%[1]s:v%[2]s\nname: %[3]s\npackage: %[1]s\nproperties:\n- type: olm.package\n  value:\n    packageName: %[1]s\n    version: %[2]s\nschema: olm.bundle\n",
		pkg.Name, version, name)
	out := map[string][]byte{file: []byte(text)}
	f.WriteFile(b, file, text)
	if f.bundlesPath != "" {
		csvFile := f.bundlesPath + "/" + name + "/manifests/csv.yaml"
		f.WriteFile(b, csvFile, csv(name))
		out[csvFile] = []byte(csv(name))
	}
	f.heads[pkg.Name] = name
	return out
}

// addEntry inserts entry first in the entries of the olm.channel document
// named channel of pkg, as opm render writes documents: keys sorted,
// entries first.
func addEntry(text, pkg, channel, entry string) (string, bool) {
	docs := strings.SplitAfter(text, "---\n")
	for i, d := range docs {
		lines := strings.Split(d, "\n")
		if !hasLine(lines, "schema: olm.channel") || !hasLine(lines, "name: "+channel) || !hasLine(lines, "package: "+pkg) {
			continue
		}
		before, after, ok := strings.Cut(d, "entries:\n")
		if !ok || before != "" {
			return "", false
		}
		docs[i] = "entries:\n" + entry + after
		return strings.Join(docs, ""), true
	}
	return "", false
}

func hasLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}
