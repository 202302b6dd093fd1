package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// The olmops_cli build hands over exactly the commands the full build
// has beside the CLI's, under the same names and descriptions.
func TestControllerCommandsMatch(t *testing.T) {
	s := streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}
	full := append([]*cobra.Command{newApplyCmd(s), newDiffCmd(s), newServeCmd(s)}, newVerbCmds(s)...)
	if len(full) != len(controllerCommands) {
		t.Fatalf("%d controller commands, %d handed over", len(full), len(controllerCommands))
	}
	for i, c := range full {
		if want := controllerCommands[i]; c.Name() != want.name || c.Short != want.short {
			t.Errorf("command %d: full build %q %q, handed over as %q %q", i, c.Name(), c.Short, want.name, want.short)
		}
	}
}

// A handed-over command runs olmops-controller with the same arguments
// and streams, and olmops exits with its code without a message of its own.
func TestHandover(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, controllerBinary)
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"args: $*\"\necho oops >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OLMOPS_CONTROLLER", script)
	var out, errOut bytes.Buffer
	s := streams{Out: &out, Err: &errOut}
	root := &cobra.Command{Use: "olmops", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(newHandoverCmd(s, "apply", "Apply"))
	root.SetArgs([]string{"apply", "--repo", ".", "--cluster", "staging", "--help"})
	err := root.ExecuteContext(t.Context())
	if got := exitCode(err); got != 3 {
		t.Errorf("exit code = %d (%v), want the controller's 3", got, err)
	}
	if got := out.String(); got != "args: apply --repo . --cluster staging --help\n" {
		t.Errorf("controller saw %q", got)
	}
	if got := errOut.String(); got != "oops\n" {
		t.Errorf("stderr = %q, want only the controller's", got)
	}

	t.Setenv("OLMOPS_CONTROLLER", "")
	t.Setenv("PATH", dir+"-missing")
	err = runController(t.Context(), s, []string{"serve"})
	if err == nil || !strings.Contains(err.Error(), "install it from the same release") {
		t.Errorf("without a controller: %v", err)
	}
}

// Completing a handed-over command asks olmops-controller, which knows
// its flags: `olmops apply --cluster <TAB>` offers what the controller
// offers, with its directive.
func TestHandoverCompletion(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, controllerBinary)
	stub := "#!/bin/sh\nprintf '%s\\n' \"$*\" staging ':4'\n"
	if err := os.WriteFile(script, []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	complete := func() string {
		var out bytes.Buffer
		root := &cobra.Command{Use: "olmops", SilenceUsage: true, SilenceErrors: true}
		root.AddCommand(newHandoverCmd(streams{Out: &out, Err: &bytes.Buffer{}}, "apply", "Apply"))
		root.SetOut(&out)
		root.SetErr(&bytes.Buffer{})
		root.SetArgs([]string{cobra.ShellCompRequestCmd, "apply", "--repo", ".", "--cluster", "st"})
		if err := root.ExecuteContext(t.Context()); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	t.Setenv("OLMOPS_CONTROLLER", script)
	if got, want := complete(), "__complete apply --repo . --cluster st\nstaging\n:4\n"; got != want {
		t.Errorf("completion = %q, want the controller's %q", got, want)
	}
	t.Setenv("OLMOPS_CONTROLLER", "")
	t.Setenv("PATH", dir+"-missing")
	if got, want := complete(), ":4\n"; got != want {
		t.Errorf("without a controller: %q, want %q (nothing, no files)", got, want)
	}
}

// The CLI build links neither controller-runtime nor client-go's API
// clients nor Prometheus: their initialisers run in every process that
// links them.
func TestCLIBuildLeavesControllerOut(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.CommandContext(t.Context(), goBin, "list", "-deps", "-tags", "olmops_cli", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, heavy := range []string{"sigs.k8s.io/controller-runtime", "k8s.io/client-go/kubernetes", "github.com/prometheus/"} {
			if strings.HasPrefix(pkg, heavy) {
				t.Errorf("the olmops_cli build links %s", pkg)
			}
		}
	}
}
