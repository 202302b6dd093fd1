package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog"
)

// Completion reads what the command would read (a catalog folder, the
// repository's olmops.yaml) and offers what is there; anything it cannot
// read completes nothing rather than failing the shell.

type completeFunc = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective)

const noFiles = cobra.ShellCompDirectiveNoFileComp

// completeClusters completes --cluster with the clusters of --repo, when
// it is a local folder: those olmops.yaml lists, or the folders under
// clusters/ without one.
func completeClusters(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	repo, _ := cmd.Flags().GetString("repo")
	cfg, err := localConfig(repo)
	if err != nil {
		return nil, noFiles
	}
	var names []string
	for _, c := range cfg.Spec.Clusters {
		names = append(names, c.Name)
	}
	return names, noFiles
}

func localConfig(repo string) (*v1alpha1.RepositoryConfig, error) {
	if repo == "" {
		repo = "."
	}
	path := filepath.Join(repo, "olmops.yaml")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return v1alpha1.Defaults(os.DirFS(repo), "")
	}
	if err != nil {
		return nil, err
	}
	return v1alpha1.Load(path, data)
}

// catalogPackages loads the catalogs in dirs (each DIR or DIR:PRIORITY)
// and returns the named package of the first that has it, or, for "", the
// names of every package.
func catalogPackages(cmd *cobra.Command, dirs []string, pkg string) (*catalog.Package, []string) {
	var names []string
	seen := map[string]bool{}
	for _, d := range dirs {
		// Cobra parses the flags of a completion twice: a repeated flag
		// holds each value twice.
		if seen[d] {
			continue
		}
		seen[d] = true
		if i := strings.LastIndex(d, ":"); i >= 0 {
			if _, err := strconv.Atoi(d[i+1:]); err == nil {
				d = d[:i]
			}
		}
		c, err := catalog.LoadDir(cmd.Context(), d, filepath.Base(filepath.Clean(d)))
		if err != nil {
			continue
		}
		if p := c.Packages[pkg]; pkg != "" && p != nil {
			return p, nil
		}
		names = append(names, c.PackageNames()...)
	}
	slices.Sort(names)
	return nil, slices.Compact(names)
}

// completeGraphArgs completes graph's DIR with folders and PACKAGE with the
// packages of DIR.
func completeGraphArgs(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	switch len(args) {
	case 0:
		return nil, cobra.ShellCompDirectiveFilterDirs
	case 1:
		_, names := catalogPackages(cmd, args[:1], "")
		return names, noFiles
	}
	return nil, noFiles
}

// completeListArgs completes catalog list's KIND, DIR and PACKAGE.
func completeListArgs(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	switch len(args) {
	case 0:
		return listKinds, noFiles
	case 1:
		return nil, cobra.ShellCompDirectiveFilterDirs
	case 2:
		_, names := catalogPackages(cmd, args[1:2], "")
		return names, noFiles
	}
	return nil, noFiles
}

// completeChannels completes a --channel flag with the channels of the
// package that dirs and pkg name.
func completeChannels(dirs func(*cobra.Command, []string) []string, pkg func(*cobra.Command, []string) string) completeFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		name := pkg(cmd, args)
		if name == "" {
			return nil, noFiles
		}
		p, _ := catalogPackages(cmd, dirs(cmd, args), name)
		if p == nil {
			return nil, noFiles
		}
		return p.ChannelNames(), noFiles
	}
}

// catalogFlags are the --catalog values of resolve.
func catalogFlags(cmd *cobra.Command, _ []string) []string {
	dirs, _ := cmd.Flags().GetStringArray("catalog")
	return dirs
}

// completeResolvePackages completes resolve's --package from its catalogs.
func completeResolvePackages(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	_, names := catalogPackages(cmd, catalogFlags(cmd, args), "")
	return names, noFiles
}
