package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// Every build of olmops in the Makefile leaves kustomize's Go-plugin loader
// out: linking package plugin in a cgo build makes the linker export every
// symbol and keep methods it would drop, 12 MB more executable that each
// command maps (docs/performance.md, "The CLI's footprint").
func TestBuildsLeaveGoPluginsOut(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	b, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	makefile := string(b)
	builds := regexp.MustCompile(`(?m)^.*\$\(GO\) build .*\./cmd/olmops.*$`).FindAllString(makefile, -1)
	if len(builds) == 0 {
		t.Fatal("no build of ./cmd/olmops in the Makefile")
	}
	for _, line := range builds {
		if !strings.Contains(line, "-tags $(GOTAGS) ") && !strings.Contains(line, "-tags $(CLI_GOTAGS) ") {
			t.Errorf("Makefile builds without $(GOTAGS) or $(CLI_GOTAGS):\n%s", strings.TrimSpace(line))
		}
	}
	full, cli := makeVar(t, makefile, "GOTAGS"), makeVar(t, makefile, "CLI_GOTAGS")
	cli = strings.ReplaceAll(cli, "$(GOTAGS)", full)
	if !strings.Contains(","+cli+",", ",olmops_cli,") {
		t.Errorf("CLI_GOTAGS = %s: the CLI build without olmops_cli", cli)
	}
	for _, tags := range []string{full, cli} {
		out, err := exec.CommandContext(t.Context(), goBin, "list", "-deps", "-tags", tags, ".").Output()
		if err != nil {
			t.Fatalf("go list -tags %s: %v", tags, err)
		}
		for _, pkg := range strings.Fields(string(out)) {
			if pkg == "plugin" {
				t.Errorf("the build with -tags %s links package plugin", tags)
			}
		}
	}
}

// makeVar returns the value of a one-word ":=" variable of the Makefile.
func makeVar(t *testing.T, makefile, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + `\s*:=\s*(\S+)\s*$`).FindStringSubmatch(makefile)
	if m == nil {
		t.Fatalf("the Makefile sets no %s", name)
	}
	return m[1]
}
