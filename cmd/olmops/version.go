package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

type versionOptions struct {
	streams
}

func newVersionCmd(s streams) *cobra.Command {
	opts := &versionOptions{streams: s}
	return &cobra.Command{
		Use:   "version",
		Short: "Print the olmops version",
		Args:  args(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			return versionRun(opts)
		},
	}
}

func versionRun(opts *versionOptions) error {
	_, err := fmt.Fprintf(opts.Out, "olmops %s (%s %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}
