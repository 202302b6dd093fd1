package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// The commands that talk to a cluster link client-go and controller-runtime,
// whose package initialisers (API schemes, metrics registries) run in every
// process that links them, whatever command it runs: a Go init cannot be
// made lazy. So the CLI people run on catalogs and repositories (make
// build's bin/olmops, built with the olmops_cli tag) leaves those commands
// out and hands them to olmops-controller, the full build beside it, which
// runs every command. The image ships the full build.

// controllerBinary is the full build's name.
const controllerBinary = "olmops-controller"

// controllerCommands are the commands the olmops_cli build hands over;
// TestControllerCommandsMatch keeps them equal to the full build's.
var controllerCommands = []struct{ name, short string }{
	{"apply", "Apply a cluster's merged plans once, as the controller would"},
	{"diff", "Show what applying a cluster's merged plans would change in the cluster"},
	{"serve", "Run the in-cluster controller that applies merged plans"},
	{"reconcile", "Ask the controller for a pass of a Repository or Planner now"},
	{"suspend", "Stop the controller from working on a Repository or Planner"},
	{"resume", "Let the controller work on a suspended Repository or Planner again"},
}

// newHandoverCmd is a command that runs as olmops-controller's command of
// the same name, with the same arguments, streams and exit code.
func newHandoverCmd(s streams, name, short string) *cobra.Command {
	return &cobra.Command{
		Use:                name,
		Short:              short,
		Long:               short + ".\n\nThis build runs it as `" + controllerBinary + " " + name + "`: see `" + controllerBinary + " " + name + " --help`.",
		DisableFlagParsing: true, // every flag, --help included, is the controller's
		RunE: func(cmd *cobra.Command, a []string) error {
			return runController(cmd.Context(), s, append([]string{name}, a...))
		},
		// The controller knows the command's flags and their values, so
		// it answers the completion too.
		ValidArgsFunction: func(cmd *cobra.Command, a []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			return completeController(cmd.Context(), append(append([]string{name}, a...), toComplete))
		},
	}
}

// completeController asks olmops-controller to complete args, in cobra's
// own __complete protocol: one candidate per line, then ":<directive>".
// Without a controller there is nothing to offer, and no file names.
func completeController(ctx context.Context, args []string) ([]string, cobra.ShellCompDirective) {
	none := cobra.ShellCompDirectiveNoFileComp
	bin, err := findController()
	if err != nil {
		return nil, none
	}
	out, err := exec.CommandContext(ctx, bin, append([]string{cobra.ShellCompRequestCmd}, args...)...).Output()
	if err != nil {
		return nil, none
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	last := lines[len(lines)-1]
	directive, err := strconv.Atoi(strings.TrimPrefix(last, ":"))
	if !strings.HasPrefix(last, ":") || err != nil {
		return nil, none
	}
	return lines[:len(lines)-1], cobra.ShellCompDirective(directive)
}

// childExit is the exit code of olmops-controller, passed on as olmops's
// own; the controller has printed its errors.
type childExit struct{ code int }

func (e *childExit) Error() string {
	return fmt.Sprintf("%s exited with code %d", controllerBinary, e.code)
}

// runController runs olmops-controller with args. An interrupt or SIGTERM
// reaches it as SIGTERM, so a forwarded `olmops serve` shuts down cleanly.
func runController(ctx context.Context, s streams, args []string) error {
	bin, err := findController()
	if err != nil {
		return err
	}
	c := exec.CommandContext(ctx, bin, args...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, s.Out, s.Err
	c.Cancel = func() error { return c.Process.Signal(sigterm) }
	c.WaitDelay = 30 * time.Second
	err = c.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return &childExit{code: ee.ExitCode()}
	case err != nil:
		return fmt.Errorf("run %s: %w", bin, err)
	}
	return nil
}

// findController looks for olmops-controller beside the running
// executable, then in PATH; OLMOPS_CONTROLLER names it outright.
func findController() (string, error) {
	if p := os.Getenv("OLMOPS_CONTROLLER"); p != "" {
		return p, nil
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), controllerBinary)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath(controllerBinary)
	if err != nil {
		return "", fmt.Errorf("this olmops leaves the cluster commands to %s, which is neither beside it nor in PATH: install it from the same release (or set OLMOPS_CONTROLLER to its path)", controllerBinary)
	}
	return p, nil
}
