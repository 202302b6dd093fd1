package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// initBudget is what one of olmops's own packages may allocate before
// main: every command of every binary that links the package pays it,
// whatever the command does. A costlier initialiser (a regexp with
// counted repetitions, a table) belongs behind a sync.OnceValue. The
// largest left is gitsource/github's (29 KB); plan's marker pattern
// (35 KB) went behind one and would fail it again.
const initBudget = 32 << 10

// Runs this test binary again with GODEBUG=inittrace=1, which reports each
// package's initialisation; the binary links every package olmops does.
func TestOwnPackagesInitialiseCheaply(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.CommandContext(t.Context(), exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", exe, err, out)
	}
	line := regexp.MustCompile(`(?m)^init (github\.com/olmops/olmops/\S+) @.*?, (\d+) bytes, \d+ allocs$`)
	seen := 0
	for _, m := range line.FindAllStringSubmatch(string(out), -1) {
		seen++
		if strings.HasSuffix(m[1], "test") {
			continue // a test helper (githubtest, kubetest): in no binary
		}
		if n, _ := strconv.Atoi(m[2]); n > initBudget {
			t.Errorf("package %s allocates %d bytes at start-up (budget %d): initialise it on first use", m[1], n, initBudget)
		}
	}
	if seen == 0 {
		t.Fatalf("no olmops package in the init trace:\n%s", out)
	}
}
