package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// streams are the writers a command prints to; tests pass buffers.
type streams struct {
	Out io.Writer
	Err io.Writer
}

// newRootCmd builds the olmops command tree.
func newRootCmd(s streams) *cobra.Command {
	info := readBuildInfo()
	root := &cobra.Command{
		Use:   "olmops",
		Short: "Run Operator Lifecycle Manager through Git",
		Long: `olmops runs Operator Lifecycle Manager (OLM) through Git: a repository holds
file-based catalogs and Subscription intent per cluster, and olmops validates,
resolves and plans operator upgrades from it.

Exit codes: 0 success, 1 findings (an invalid catalog), 2 usage or I/O error.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       info.Version,
	}
	root.SetVersionTemplate(info.String() + "\n")
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageErrorf("%v", err)
	})
	root.AddCommand(
		newVersionCmd(s),
		newValidateCmd(s),
		newCatalogCmd(s),
		newGraphCmd(s),
		newResolveCmd(s),
		newPlanCmd(s),
		newReviewCmd(s),
		newApplyCmd(s),
		newDiffCmd(s),
		newServeCmd(s),
	)
	root.AddCommand(newVerbCmds(s)...)
	return root
}

// execute runs olmops with args and returns the process exit code. Errors
// are printed to s.Err, except bare findings, which the command has reported.
func execute(ctx context.Context, args []string, s streams) int {
	root := newRootCmd(s)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	code := exitCode(err)
	var child *childExit
	if err != nil && err != errFindings && err != errHeld && !errors.As(err, &child) { // already reported
		fmt.Fprintf(s.Err, "olmops: %v\n", err)
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprintln(s.Err, "Run 'olmops --help' for usage.")
		}
	}
	return code
}
