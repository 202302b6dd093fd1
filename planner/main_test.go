package planner

import (
	"encoding/base64"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/olmops/olmops/internal/gittest"
)

var gitServer *gittest.Server

func TestMain(m *testing.M) {
	s, err := gittest.Start(gittest.ServerOptions{Username: "olmops", Password: "s3cret"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	gitServer = s
	code := m.Run()
	s.Close()
	os.Exit(code)
}

// examples is the example desired-state repository as commit files.
func examples(t testing.TB) map[string][]byte {
	files := map[string][]byte{}
	for k, v := range gittest.DirFiles(t, "../examples", "") {
		files[strings.TrimPrefix(k, "/")] = v
	}
	return files
}

var dataLine = regexp.MustCompile(`(?m)^(\s+data: )(\S+)$`)

// withEtcdBundle adds etcdoperator.v<version> to the example operatorhub
// catalog's stable channel, replacing v<replaces>: a copy of v0.9.4 whose skipRange covers every
// earlier 0.9 bundle, the way real catalogs ship a new patch release.
func withEtcdBundle(t testing.TB, files map[string][]byte, version, replaces string) {
	t.Helper()
	const path = "catalogs/operatorhub/etcd/catalog.yaml"
	cat := string(files[path])
	start := strings.Index(cat, "schema: olm.bundle\npackage: etcd\nname: etcdoperator.v0.9.4\n")
	end := strings.Index(cat[start:], "\n---\n")
	if start < 0 || end < 0 {
		t.Fatal("etcdoperator.v0.9.4 not found in the example catalog")
	}
	doc := cat[start : start+end+1]
	doc = dataLine.ReplaceAllStringFunc(doc, func(line string) string {
		m := dataLine.FindStringSubmatch(line)
		raw, err := base64.StdEncoding.DecodeString(m[2])
		if err != nil {
			t.Fatal(err)
		}
		return m[1] + base64.StdEncoding.EncodeToString([]byte(strings.ReplaceAll(string(raw), "0.9.4", version)))
	})
	doc = strings.ReplaceAll(doc, "0.9.4", version)
	entry := fmt.Sprintf("  - name: etcdoperator.v%s\n    replaces: etcdoperator.v%s\n    skipRange: '>=0.9.0 <%s'\n", version, replaces, version)
	anchor := "    skipRange: '>=0.9.0 <0.9.4'\n"
	i := strings.Index(cat, anchor) + len(anchor) // the stable channel comes first
	cat = cat[:i] + entry + cat[i:] + "---\n" + doc
	files[path] = []byte(cat)
}
