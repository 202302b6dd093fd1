//go:build olmops_cli

package main

import "github.com/spf13/cobra"

// In the olmops_cli build the cluster commands are handed to
// olmops-controller (see controller.go).

func newApplyCmd(s streams) *cobra.Command { return handover(s, "apply") }

func newDiffCmd(s streams) *cobra.Command { return handover(s, "diff") }

func newServeCmd(s streams) *cobra.Command { return handover(s, "serve") }

func newVerbCmds(s streams) []*cobra.Command {
	return []*cobra.Command{handover(s, "reconcile"), handover(s, "suspend"), handover(s, "resume")}
}

func handover(s streams, name string) *cobra.Command {
	for _, c := range controllerCommands {
		if c.name == name {
			return newHandoverCmd(s, c.name, c.short)
		}
	}
	panic("no controller command " + name)
}
