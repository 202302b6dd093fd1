package main

import "github.com/spf13/cobra"

func newCatalogCmd(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "Inspect file-based catalogs",
		Args:  args(cobra.NoArgs),
	}
	cmd.AddCommand(newCatalogListCmd(s))
	cmd.AddCommand(newCatalogImportCmd(s))
	return cmd
}
